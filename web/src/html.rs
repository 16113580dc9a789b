//! The pages, as maud templates: maud escapes everything it prints, so a name is text whatever it
//! holds. Names are also cleaned of control and bidi characters, cut, and isolated in `<bdi>` so a
//! right-to-left name cannot turn the line around it. No inline script or style anywhere: the CSP
//! forbids both.

use std::collections::HashMap;
use std::fmt::Write as _;

use maud::{DOCTYPE, Markup, html};
use tessera_core::model::{Format, PlayerId, TournamentStatus};
use tessera_core::names;
use tessera_core::public::{PublicAnalysis, PublicGame, PublicTournament};
use tessera_core::tournament::{Cell, Outcome, TieBreak, points_text};
use tessera_rules::Color;

/// Characters of a name shown; the rest is in its `title`.
pub const NAME_SHOWN: usize = 60;
/// Characters of a name kept at all (the `title` of a long one).
const NAME_KEPT: usize = 300;
/// Standings lines and pairings per page.
pub const PER_PAGE: usize = 100;
/// Most players a crosstable is drawn for: past that its rows are wider than any screen.
const CROSSTABLE_MAX: usize = 40;

/// The query numbers a page reads. Each is clamped to what the page has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// Standings page, from 1.
    pub page: Option<u32>,
    /// The round whose pairings are shown.
    pub round: Option<u32>,
    /// Page of that round's pairings, from 1.
    pub boards: Option<u32>,
    /// Plies into the game.
    pub ply: Option<u32>,
}

impl Query {
    /// Reads `page`, `round`, `boards` and `ply` from a query string; anything else is ignored,
    /// a number too large for any page reads as the largest (and is clamped by the page).
    pub fn parse(raw: Option<&str>) -> Query {
        let mut q = Query::default();
        for pair in raw.unwrap_or("").split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let number = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                Some(value.parse::<u32>().unwrap_or(u32::MAX))
            } else {
                None
            };
            match key {
                "page" => q.page = number,
                "round" => q.round = number,
                "boards" => q.boards = number,
                "ply" => q.ply = number,
                _ => {}
            }
        }
        q
    }
}

/// A name as text: control and bidi characters gone, cut to [`NAME_SHOWN`], isolated.
pub fn name(raw: &str) -> Markup {
    let kept = names::fit(raw, NAME_KEPT);
    // Cleaning is the cost: a name short enough (nearly all) is cleaned once.
    if kept.chars().nth(NAME_SHOWN).is_none() {
        return html! { bdi { (kept) } };
    }
    html! { bdi title=(kept) { (names::fit(raw, NAME_SHOWN)) } }
}

/// A moment as UTC text, in a `<time>` a script could localise.
fn moment(secs: i64) -> Markup {
    match chrono::DateTime::from_timestamp(secs, 0) {
        Some(at) => html! {
            time datetime=(at.format("%Y-%m-%dT%H:%M:%SZ").to_string()) { (at.format("%Y-%m-%d %H:%M UTC").to_string()) }
        },
        None => html! { "?" },
    }
}

/// A duration as a clock reads it: `2d 4h`, `3h 20m`, `5m`.
fn span(secs: i64) -> String {
    let secs = secs.max(0);
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    match (d, h) {
        (0, 0) => format!("{m}m"),
        (0, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

/// The frame every page shares. `live` is the stream to follow and the fingerprint the page
/// shows, for the script.
fn layout(title: &str, live: Option<(&str, u64)>, body: Markup) -> Markup {
    let (events, fingerprint) = match live {
        Some((events, fingerprint)) => (Some(events), Some(fingerprint.to_string())),
        None => (None, None),
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (names::fit(title, NAME_KEPT)) " · Tessera" }
                link rel="stylesheet" href=(crate::routes::asset_path("tessera.css"));
                script src=(crate::routes::asset_path("tessera.js")) defer {}
            }
            body {
                header.site { span.brand { "Tessera" } }
                main #main data-events=[events] data-fingerprint=[fingerprint] { (body) }
                footer.site { "Read-only pages of the Tessera chess bot. Updates itself while open." }
            }
        }
    }
}

/// The page every unknown, withdrawn or wrong address answers, the same for all.
pub fn not_found() -> Markup {
    layout(
        "Not found",
        None,
        html! {
            h1 { "Not found" }
            p { "There is no page here. It may never have existed, or its owner took it down." }
            p { "If someone gave you this link, ask them in the chat for the current one: a page published again gets a new address." }
        },
    )
}

fn tie_break_help(t: TieBreak) -> &'static str {
    match t {
        TieBreak::BuchholzCut1 => "Buchholz Cut 1: the opponents' scores added up, less the lowest",
        TieBreak::Buchholz => "Buchholz: the opponents' scores added up",
        TieBreak::SonnebornBerger => {
            "Sonneborn-Berger: the scores of the opponents beaten, plus half of those drawn"
        }
        TieBreak::DirectEncounter => {
            "Direct encounter: the points scored in the games between the players tied"
        }
        TieBreak::Wins => "Wins: the rounds won outright (forfeits and byes included)",
        TieBreak::Koya => "Koya: the points scored against the opponents who scored half the rounds or more",
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Swiss => "Swiss",
        Format::RoundRobin => "Round robin",
        Format::DoubleRoundRobin => "Double round robin",
        Format::Knockout => "Knockout",
    }
}

/// What a player's round shows in a crosstable: `1`, `½`, `0`, forfeits `+`/`−`, `*` while played.
fn outcome_mark(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pending => "*",
        Outcome::Win => "1",
        Outcome::Draw => "½",
        Outcome::Loss => "0",
        Outcome::ForfeitWin => "+",
        Outcome::ForfeitLoss => "−",
        Outcome::Bye => "bye",
        Outcome::HalfBye => "½ bye",
        Outcome::Absent => "–",
    }
}

/// A game's result from White's outcome.
fn leg_result(white: Outcome) -> &'static str {
    match white {
        Outcome::Win => "1-0",
        Outcome::Loss => "0-1",
        Outcome::Draw => "½-½",
        Outcome::ForfeitWin => "+-",
        Outcome::ForfeitLoss => "-+",
        Outcome::Pending => "*",
        _ => "–",
    }
}

/// Links to pages 1..=`pages` around `current` of a list, each made by `href`.
fn pager(label: &str, current: usize, pages: usize, href: impl Fn(usize) -> String) -> Markup {
    if pages <= 1 {
        return html! {};
    }
    let mut shown: Vec<usize> = vec![1, pages];
    shown.extend(current.saturating_sub(2).max(1)..=(current + 2).min(pages));
    shown.sort_unstable();
    shown.dedup();
    // The page numbers, `None` where some are skipped.
    let mut items = Vec::with_capacity(shown.len() * 2);
    for (i, &p) in shown.iter().enumerate() {
        if i > 0 && p > shown[i - 1] + 1 {
            items.push(None);
        }
        items.push(Some(p));
    }
    html! {
        nav.pager aria-label=(label) {
            @if current > 1 { a rel="prev" href=(href(current - 1)) { "‹ Previous" } }
            @for item in items {
                @match item {
                    None => span.gap { "…" },
                    Some(p) if p == current => strong aria-current="page" { (p) },
                    Some(p) => a href=(href(p)) { (p) },
                }
            }
            @if current < pages { a rel="next" href=(href(current + 1)) { "Next ›" } }
        }
    }
}

/// The tournament's page: `base` is its address (`/t/{token}`).
pub fn tournament(t: &PublicTournament, base: &str, q: Query) -> Markup {
    let names = t.names();
    let name_of = |p: PlayerId| name(names.get(&p).copied().unwrap_or("?"));
    let row = &t.row;
    let lines = &t.standings.lines;
    let pages = lines.len().div_ceil(PER_PAGE).max(1);
    let page = (q.page.unwrap_or(1) as usize).clamp(1, pages);
    let rounds_paired = row.current_round.min(t.pairings.iter().map(|p| p.round).max().unwrap_or(0));
    let round = q.round.map_or(rounds_paired, |r| r.min(rounds_paired)).max(rounds_paired.min(1));
    // Every link keeps the other choices the visitor made.
    let href = |page: usize, round: Option<u32>, boards: Option<usize>| {
        let mut s = String::from(base);
        let mut sep = '?';
        for (key, value) in
            [("page", (page > 1).then_some(page)), ("round", round.map(|r| r as usize)), ("boards", boards)]
        {
            if let Some(v) = value {
                let _ = write!(s, "{sep}{key}={v}");
                sep = '&';
            }
        }
        s
    };
    let chosen_round = q.round.map(|_| round);
    let game_href = |game: i64| format!("{base}/g/{game}");
    let status = match row.status {
        TournamentStatus::Open => "Taking entries".to_string(),
        TournamentStatus::Running => format!("Round {} of {}", row.current_round, row.rounds),
        TournamentStatus::Paused => format!("Paused after round {} of {}", row.current_round, row.rounds),
        TournamentStatus::Finished => "Finished".to_string(),
        TournamentStatus::Cancelled => "Cancelled".to_string(),
    };
    let body = html! {
        h1 { (name(&row.name)) }
        p.facts {
            span { (format_name(row.format)) }
            span { (t.variant_name) }
            span.status { (status) }
            @if let Some(days) = row.days_per_move { span { (days) (if days == 1 { " day" } else { " days" }) " a move" } }
            span { (if row.rated { "rated" } else { "casual" }) }
            span { (t.snapshot.entries.len()) " players" }
        }
        @if let Some(at) = t.next_round_at {
            @if t.row.status == TournamentStatus::Open {
                p.next { "Starts " (moment(at)) }
            } @else {
                p.next {
                    @if t.row.rounds > 0 && t.row.current_round >= t.row.rounds {
                        "The last round ends"
                    } @else {
                        "Round " (t.row.current_round + 1) " is paired when round " (t.row.current_round) " ends"
                    }
                    ": by " (moment(at)) " at the latest (later if a player takes a vacation)"
                }
            }
        }
        nav.downloads aria-label="Downloads" {
            "Download: "
            a href=(format!("{base}/trf")) download { "TRF-16" }
            a href=(format!("{base}/pgn")) download { "PGN" }
            a href=(format!("{base}/json")) { "JSON" }
        }
        section #standings {
            h2 { "Standings" }
            @if lines.is_empty() {
                p { "No players yet." }
            } @else {
                p.count { "Players " ((page - 1) * PER_PAGE + 1) "–" ((page * PER_PAGE).min(lines.len())) " of " (lines.len()) }
                div.scroll {
                    table.standings {
                        thead { tr {
                            th scope="col" title="Rank" { "#" }
                            th scope="col" title="Starting number" { "No." }
                            th scope="col" { "Player" }
                            th scope="col" title="Seeding rating" { "Rating" }
                            th scope="col" title="Points" { "Pts" }
                            @for tb in &t.standings.tie_breaks { th scope="col" title=(tie_break_help(*tb)) { (tb.short()) } }
                        } }
                        tbody {
                            @for line in lines.iter().skip((page - 1) * PER_PAGE).take(PER_PAGE) {
                                tr.withdrawn[line.withdrawn] {
                                    td.num { (line.rank) }
                                    td.num { (line.start_no) }
                                    td.player { (name(&line.name)) @if line.withdrawn { " " small { "(withdrawn)" } } }
                                    td.num { (line.rating) }
                                    td.num.points { (points_text(line.halves)) }
                                    @for (tb, v) in t.standings.tie_breaks.iter().zip(&line.tie_breaks) { td.num { (tb.value_text(*v)) } }
                                }
                            }
                        }
                    }
                }
                (pager("Standings pages", page, pages, |p| href(p, chosen_round, None)))
            }
        }
        @match row.format {
            Format::RoundRobin | Format::DoubleRoundRobin => (crosstable(t, &game_href)),
            Format::Knockout => (bracket(t, &names, &game_href)),
            Format::Swiss => {},
        }
        @if rounds_paired > 0 {
            section #rounds {
                h2 { "Round " (round) }
                nav.rounds aria-label="Rounds" {
                    "Rounds: "
                    @for r in 1..=rounds_paired {
                        @if r == round { strong aria-current="page" { (r) } } @else { a href=(href(page, Some(r), None)) { (r) } }
                    }
                }
                @let boards: Vec<_> = t.pairings.iter().filter(|p| p.round == round).collect();
                @let board_pages = boards.len().div_ceil(PER_PAGE).max(1);
                @let board_page = (q.boards.unwrap_or(1) as usize).clamp(1, board_pages);
                div.scroll {
                    table.pairings {
                        thead { tr {
                            th scope="col" title="Board" { "Bd" }
                            th scope="col" { "White" }
                            th scope="col" { "Result" }
                            th scope="col" { "Black" }
                        } }
                        tbody {
                            @for p in boards.iter().skip((board_page - 1) * PER_PAGE).take(PER_PAGE) {
                                tr {
                                    td.num { (p.board) @if p.leg > 1 { "." (p.leg) } }
                                    td.player { (name_of(p.white)) }
                                    td.result {
                                        @match p.game {
                                            Some(game) => a href=(game_href(game)) title="The game" { (p.result) },
                                            None => (p.result),
                                        }
                                    }
                                    td.player { @if let Some(black) = p.black { (name_of(black)) } }
                                }
                            }
                        }
                    }
                }
                (pager("Pairings pages", board_page, board_pages, |b| href(page, Some(round), Some(b))))
            }
        }
    };
    layout(&row.name, Some((&format!("{base}/events"), t.fingerprint)), body)
}

/// A round robin's crosstable: players in standings order, a column per starting number.
fn crosstable(t: &PublicTournament, game_href: &dyn Fn(i64) -> String) -> Markup {
    let entries = &t.snapshot.entries;
    if entries.len() > CROSSTABLE_MAX || entries.is_empty() {
        return html! {};
    }
    // (player, opponent) → their games, in round order.
    let mut met: HashMap<(PlayerId, PlayerId), Vec<&Cell>> = HashMap::new();
    for round in &t.snapshot.cells {
        for (player, cell) in round {
            if let Some(opponent) = cell.opponent {
                met.entry((*player, opponent)).or_default().push(cell);
            }
        }
    }
    html! {
        section #crosstable {
            h2 { "Crosstable" }
            div.scroll {
                table.crosstable {
                    thead { tr {
                        th scope="col" { "#" }
                        th scope="col" { "Player" }
                        @for (i, e) in entries.iter().enumerate() { th scope="col" title=(names::fit(&e.name, NAME_KEPT)) { (i + 1) } }
                        th scope="col" title="Points" { "Pts" }
                    } }
                    tbody {
                        @for line in &t.standings.lines {
                            tr {
                                td.num { (line.rank) }
                                td.player { (line.start_no) ". " (name(&line.name)) }
                                @for e in entries {
                                    @if e.player == line.player {
                                        td.self { "×" }
                                    } @else {
                                        td.cross {
                                            @for cell in met.get(&(line.player, e.player)).into_iter().flatten() {
                                                @match cell.game {
                                                    Some(game) => a href=(game_href(game)) { (outcome_mark(cell.outcome)) },
                                                    None => span { (outcome_mark(cell.outcome)) },
                                                }
                                            }
                                        }
                                    }
                                }
                                td.num.points { (points_text(line.halves)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A knockout's bracket: a column per round, each match with its games.
fn bracket(
    t: &PublicTournament,
    names: &HashMap<PlayerId, &str>,
    game_href: &dyn Fn(i64) -> String,
) -> Markup {
    if t.snapshot.matches.is_empty() {
        return html! {};
    }
    let name_of = |p: PlayerId| name(names.get(&p).copied().unwrap_or("?"));
    html! {
        section #bracket {
            h2 { "Bracket" }
            div.scroll {
                div.bracket {
                    @for (r, matches) in t.snapshot.matches.iter().enumerate() {
                        div.round {
                            h3 { "Round " (r + 1) }
                            @for m in matches {
                                @let winner = m.winner();
                                div.match {
                                    div.side.winner[winner == Some(m.higher)] { (name_of(m.higher)) }
                                    div.side.winner[m.lower.is_some() && winner == m.lower] {
                                        @match m.lower { Some(lower) => (name_of(lower)), None => em { "bye" } }
                                    }
                                    @if !m.legs.is_empty() {
                                        div.legs {
                                            @for (white, outcome, game) in &m.legs {
                                                @let title = format!("White: {}", names::fit(names.get(white).copied().unwrap_or("?"), NAME_KEPT));
                                                @match game {
                                                    Some(game) => a href=(game_href(*game)) title=(title) { (leg_result(*outcome)) },
                                                    None => span title=(title) { (leg_result(*outcome)) },
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn side_name(c: Color) -> &'static str {
    if c == Color::White { "White" } else { "Black" }
}

/// The class of ply `i + 1`, where the game's analysis judged it.
fn judged_class(g: &PublicGame, i: usize) -> Option<tessera_core::analysis::Class> {
    g.analysis.as_ref()?.judged.get(i)?.class
}

/// The engine's analysis under the board: the graph, each side's counts, the marked turns.
fn analysis_section(a: &PublicAnalysis, base: &str, titles: &[String]) -> Markup {
    let marked: Vec<&tessera_core::analysis::Judged> =
        a.judged.iter().filter(|j| j.class.is_some()).collect();
    html! {
        section.analysis #analysis {
            h2 { "Analysis" }
            @if a.picture.is_some() {
                img.graph src=(format!("{base}/analysis.png")) width="800" height="320"
                    alt="The evaluation over the game: above the middle White stands better, below it Black; dots mark inaccuracies, mistakes and blunders";
            }
            ul.tallies {
                @for (color, t) in [(Color::White, &a.tallies[0]), (Color::Black, &a.tallies[1])] {
                    li {
                        strong { (side_name(color)) } ": "
                        (t.inaccuracies) " inaccuracies, " (t.mistakes) " mistakes, " (t.blunders) " blunders; average loss "
                        (format!("{:.1}", t.average_loss)) "% a turn"
                    }
                }
            }
            @if marked.is_empty() {
                p { "No inaccuracy, mistake or blunder." }
            } @else {
                ol.judged {
                    @for j in &marked {
                        @let class = j.class.unwrap_or(tessera_core::analysis::Class::Inaccuracy);
                        li class=(class.name()) {
                            a href=(format!("{base}?ply={}", j.ply)) {
                                (titles.get(j.ply - 1).map_or("", String::as_str)) (class.glyph())
                            }
                            " " (class.name()) " (" (j.eval.short()) ")"
                            @if let Some(better) = &j.better { "; better " (better) }
                        }
                    }
                }
            }
            p.hint { "Judged as Lichess judges: a turn that costs its player 5, 10 or 15 points of win% is an inaccuracy (?!), a mistake (?) or a blunder (??)." }
        }
    }
}

/// A game's page: `base` is its address (`/g/{token}` or `/t/{token}/g/{id}`), `tournament` the
/// tournament page it was reached from, if any.
pub fn game(g: &PublicGame, base: &str, tournament: Option<&str>, ply: Option<u32>, now: i64) -> Markup {
    let len = g.len();
    let ply = ply.map_or(len, |p| (p as usize).min(len));
    let step = |to: usize, label: &str, rel: &str, class: &str| {
        let off = to == ply;
        html! {
            a class=(format!("step {class}")) href=(format!("{base}?ply={to}")) data-ply=(to) rel=(rel)
                aria-disabled=[off.then_some("true")] title=(label) { (label) }
        }
    };
    // Titles of every ply, built in one pass (not one pass per ply).
    let mut titles = Vec::with_capacity(len);
    let mut number = String::new();
    for p in &g.plies {
        if let Some(label) = &p.label {
            number = label.trim_end_matches(['.', '…']).to_string();
        }
        let dots = if p.color == Color::White { "." } else { "..." };
        titles.push(format!("{number}{dots} {}", p.text));
    }
    let title =
        format!("{} – {}", names::fit(&g.white.name, NAME_SHOWN), names::fit(&g.black.name, NAME_SHOWN));
    let body = html! {
        h1.players {
            span.white { (name(&g.white.name)) @if let Some(r) = &g.white.rating { " " span.rating { "(" (r) ")" } } }
            " – "
            span.black { (name(&g.black.name)) @if let Some(r) = &g.black.rating { " " span.rating { "(" (r) ")" } } }
        }
        p.facts {
            span { (g.variant_name) }
            @if let Some(days) = g.days_per_move {
                span { (days) (if days == 1 { " day" } else { " days" }) " a move" @if g.weekends_off { ", weekends free" } }
            }
            @if let Some((_, t_name, round)) = &g.tournament {
                span {
                    @match tournament {
                        Some(href) => a href=(format!("{href}?round={round}")) { (name(t_name)) },
                        None => (name(t_name)),
                    }
                    ", round " (round)
                }
            }
        }
        p #state.state {
            @match (&g.result, g.to_move) {
                (Some(result), _) => {
                    strong.result { (result.replace("1/2", "½")) }
                    // It may hold an organiser's own words, in any direction.
                    @if let Some(ending) = &g.ending {
                        " " span.ending { bdi { (ending) } }
                    }
                },
                (None, Some(color)) => {
                    strong { (side_name(color)) " to move" }
                    @if let Some(deadline) = g.deadline {
                        ", " span.clock { (span(deadline - now)) " left" } " (until " (moment(deadline)) ")"
                    }
                },
                (None, None) => "In play",
            }
        }
        div.game {
            figure.board {
                nav.steps aria-label="Step through the game" {
                    (step(0, "« First", "first", "first"))
                    (step(ply.saturating_sub(1), "‹ Back", "prev", "prev"))
                    (step((ply + 1).min(len), "Forward ›", "next", "next"))
                    (step(len, "Last »", "last", "last"))
                }
                img #board src=(format!("{base}/ply/{ply}.png")) data-base=(format!("{base}/ply/"))
                    alt=(format!("The board after {}", if ply == 0 { "no moves" } else { &titles[ply - 1] }));
                figcaption #caption { (if ply == 0 { "Start" } else { &titles[ply - 1] }) }
            }
            div.moves #moves data-plies=(len) data-ply=(ply) {
                h2 { "Moves" }
                @if len == 0 { p { "No moves yet." } }
                ol.movelist {
                    @for (i, p) in g.plies.iter().enumerate() {
                        li class=[(p.color == Color::White).then_some("white")] {
                            @if let Some(label) = &p.label { span.num { (label) } " " }
                            a.move.current[i + 1 == ply] href=(format!("{base}?ply={}", i + 1)) data-ply=(i + 1)
                                aria-current=[(i + 1 == ply).then_some("step")] title=(titles[i]) {
                                (p.text)
                                @if let Some(class) = judged_class(g, i) {
                                    span class=(format!("glyph {}", class.name())) title=(class.name()) { (class.glyph()) }
                                }
                            }
                        }
                    }
                }
                @if g.result.is_some() { p.final { (g.result.as_deref().unwrap_or("").replace("1/2", "½")) } }
            }
        }
        @if let Some(a) = &g.analysis {
            (analysis_section(a, base, &titles))
        }
        nav.downloads aria-label="Downloads" {
            "Download: " a href=(format!("{base}/pgn")) download { "PGN" }
            @if let Some(href) = tournament { a href=(href) { "The tournament" } }
        }
        noscript { p.hint { "Each move is a link; with scripts on, the arrow keys step through the game." } }
    };
    layout(&title, Some((&format!("{base}/events"), g.fingerprint)), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_numbers_are_read_and_bounded() {
        let q = Query::parse(Some("page=3&round=2&ply=99999999999999999999&boards=x&junk"));
        assert_eq!(q, Query { page: Some(3), round: Some(2), boards: None, ply: Some(u32::MAX) });
        assert_eq!(Query::parse(None), Query::default());
        assert_eq!(Query::parse(Some("page=-1")).page, None);
    }

    #[test]
    fn a_name_is_escaped_isolated_and_cut() {
        let shown = name("<script>alert(1)</script>").into_string();
        assert_eq!(shown, "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>");
        let rtl = name("\u{202E}evil\u{202C}").into_string();
        assert_eq!(rtl, "<bdi>evil</bdi>");
        let long = name(&"x".repeat(10_000)).into_string();
        assert!(long.len() < 500, "{}", long.len());
        assert!(long.contains(&format!(">{}…</bdi>", "x".repeat(NAME_SHOWN - 1))), "{long}");
    }

    #[test]
    fn spans_read_as_clocks() {
        assert_eq!(span(2 * 86_400 + 4 * 3_600 + 59), "2d 4h");
        assert_eq!(span(3 * 3_600 + 20 * 60), "3h 20m");
        assert_eq!(span(-5), "0m");
    }
}
