//! Analysis after the game and the practice hint (issue 32): `!t analyse #12` queues a finished
//! game for the engine, which goes over every position on the practice worker's thread after the
//! bot's own turns, and answers with a graph of the evaluation and the turns where it dropped
//! most; `!t hint` gives a practice game's player the engine's turn, privately.
//!
//! Decisions, each for a reason:
//! - Once per game: the evaluations are stored, and a second request is answered at once from
//!   them. A fixed budget a position ([`crate::analysis::POSITION_MOVETIME`]) makes every analysis
//!   comparable and its cost known before it starts.
//! - Who may ask: whoever can see the game (in its channel, or one of its players anywhere on
//!   the platform); a practice game is private, so only its player. Tournament games only once
//!   the tournament is over: an analysis mid-event would help a player with their next game
//!   against the same openings.
//! - The queue is in the database (a restart loses no request) and bounded: a player has at
//!   most [`ANALYSIS_BOUNDS`]`.per_requester` waiting, the queue at most `.overall`.
//! - The answer is a notice stored with the evaluations in one transaction, posted where it was
//!   asked (the game's thread when asked in its channel).
//! - Hints only in practice games: in a game between people the engine's turn is cheating.

use tessera_engine::{Limits, Searcher};

use super::*;
use crate::analysis::{self, Class, Judged, PlyEval, Tally};
use crate::model::{AnalysisAsked, AnalysisBounds, NewAnalysis, TournamentStatus};
use crate::queue::{Hint, Job};

/// The analysis queue's bounds.
pub const ANALYSIS_BOUNDS: AnalysisBounds = AnalysisBounds { per_requester: 2, overall: 50 };

/// The budget of a hint: the strongest level's search, held to a second.
pub const HINT_LIMITS: Limits = Limits { depth: None, movetime: Some(std::time::Duration::from_secs(1)) };

/// The turns an answer lists at most: the largest drops.
const TURNS_LISTED: usize = 8;

impl<S: Store> Service<S> {
    /// `!t analyse [#N]`: the stored analysis at once, or the game queued for one.
    pub(super) fn analyse(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        // A finished game's player may ask from any channel of the platform.
        let loaded = match self.own_finished_game(msg, id)? {
            Some(loaded) => loaded,
            None => self.find(msg, id, true)?,
        };
        let game = loaded.row.id;
        if loaded.row.bot.is_some() && loaded.color_of(&me).is_none() {
            return Err(format!(
                "game #{game} is a practice game against me, which is private: only its player can have it \
                 analysed"
            ));
        }
        if loaded.row.result.is_none() && loaded.game.outcome().is_none() {
            return Err(format!(
                "game #{game} is still being played: it is analysed once it is over (no help during a game); \
                 ask again then with `!t analyse #{game}`"
            ));
        }
        if loaded.row.moves.is_empty() {
            return Err(format!(
                "game #{game} ended before any turn was played: there is nothing to analyse"
            ));
        }
        if let Some((t, _)) = self.store.tournament_of_game(game).map_err(internal)?
            && let Some(tournament) = self.store.tournament(t).map_err(internal)?
            && !matches!(tournament.status, TournamentStatus::Finished | TournamentStatus::Cancelled)
        {
            let stage = match tournament.status {
                TournamentStatus::Open => "has not begun".to_string(),
                _ => format!(
                    "is still {} (round {} of {})",
                    tournament.status.name(),
                    tournament.current_round,
                    tournament.rounds
                ),
            };
            return Err(format!(
                "game #{game} belongs to {} (t{t}), which {stage}: its games are analysed only after the \
                 tournament ends, so nobody gets help mid-event. Ask again once its last round is over",
                tournament.name
            ));
        }
        if let Some(row) = self.store.analysis(game).map_err(internal)? {
            if row.is_done() {
                let evals = self.store.analysis_evals(game).map_err(internal)?;
                return Ok(vec![self.analysis_reply(&loaded, &evals)]);
            }
            let place = self.analysis_place(game)?;
            let here = if row.platform == msg.platform && row.channel == msg.channel {
                "here".to_string()
            } else {
                format!("in {}", channel_name(&row.platform, &row.channel))
            };
            return Ok(vec![Reply::text(format!(
                "Game #{game} is already queued for analysis (place {place} in the queue); its answer will be \
                 posted {here}. Once it is, `!t analyse #{game}` shows it again at once."
            ))]);
        }
        let asked = NewAnalysis {
            game,
            requester: me.id,
            platform: msg.platform,
            channel: msg.channel,
            now: msg.now,
        };
        match self.store.ask_analysis(&asked, ANALYSIS_BOUNDS).map_err(internal)? {
            AnalysisAsked::Queued { place } => {
                self.practice.push_later(Job::Analysis(game));
                let positions = loaded.row.moves.len() + 1;
                let seconds = (positions as u128
                    * self.analysis_limits.movetime.map_or(250, |t| t.as_millis()))
                .div_ceil(1000);
                Ok(vec![Reply::text(format!(
                    "Game {} is queued for analysis: place {place} in the queue. I look at its {positions} \
                     positions ({}), about {seconds} s once its turn comes, after any practice moves, and post the \
                     graph and the turns that mattered here.",
                    loaded.title(),
                    budget_words(self.analysis_limits)
                ))])
            }
            AnalysisAsked::Exists(_) => Err(format!(
                "game #{game} was just queued for analysis by someone else; `!t analyse #{game}` shows it once \
                 it is done"
            )),
            AnalysisAsked::RequesterFull(n) => Err(format!(
                "you have {n} analyses waiting already (at most {} each); ask again once one is answered",
                ANALYSIS_BOUNDS.per_requester
            )),
            AnalysisAsked::QueueFull(n) => Err(format!(
                "the analysis queue is full ({n} games waiting); ask again in a few minutes, nothing was queued"
            )),
        }
    }

    /// Where a waiting analysis stands in the queue (1: next).
    fn analysis_place(&self, game: GameId) -> Result<usize, String> {
        let waiting = self.store.waiting_analyses().map_err(internal)?;
        Ok(waiting.iter().position(|a| a.game == game).map_or(waiting.len(), |i| i + 1))
    }

    /// Queues every analysis still waiting on `platforms` (all with `None`), oldest first: a
    /// restart resumes what was asked. Returns how many.
    pub fn analysis_resume(&self, platforms: Option<&[&str]>) -> Result<usize> {
        let mut queued = 0;
        for row in self.store.waiting_analyses()? {
            if platforms.is_some_and(|ps| !ps.contains(&row.platform.as_str())) {
                continue;
            }
            self.practice.push_later(Job::Analysis(row.game));
            queued += 1;
        }
        Ok(queued)
    }

    /// Does one of the practice worker's jobs; what to post at once (a turn's announcement, a
    /// hint). An analysis asks `go_on` before each position (the worker plays the bot's turns
    /// that came meanwhile, and says whether to go on) and posts through the outbox.
    pub fn practice_job(&self, job: &Job, now: i64, go_on: &mut dyn FnMut() -> bool) -> Vec<Notice> {
        match job {
            Job::Turn(game) => self.practice_turn(*game, now),
            Job::Hint(hint) => self.hint_answer(hint),
            Job::Analysis(game) => {
                self.analysis_run(*game, go_on);
                Vec::new()
            }
        }
    }

    /// Analyses `game` if its analysis waits, and stores the evaluations with the answer: true
    /// when this call stored them. False when there was nothing to do, the game cannot be read,
    /// or `go_on` said stop (the analysis then still waits, for the next start).
    pub fn analysis_run(&self, game: GameId, go_on: &mut dyn FnMut() -> bool) -> bool {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.analysis_run_unguarded(game, go_on)
        }));
        match run {
            Ok(Ok(stored)) => stored,
            Ok(Err(e)) => {
                tracing::error!(game, "the analysis failed: {e}");
                false
            }
            Err(_) => {
                tracing::error!(game, "the analysis panicked");
                false
            }
        }
    }

    fn analysis_run_unguarded(&self, game: GameId, go_on: &mut dyn FnMut() -> bool) -> Result<bool, String> {
        let Some(request) = self.store.analysis(game).map_err(internal)? else { return Ok(false) };
        if request.is_done() {
            return Ok(false);
        }
        let row = self.store.game(game).map_err(internal)?.ok_or_else(|| format!("no game #{game}"))?;
        let loaded = self.load_to_read(row)?;
        let moves = loaded.game.moves().to_vec();
        let started = std::time::Instant::now();
        let Some(evals) = analysis::analyse_game(loaded.game.start(), &moves, self.analysis_limits, go_on)
        else {
            tracing::info!(game, "the analysis stopped; it waits for the next start");
            return Ok(false);
        };
        let text = self.analysis_text(&loaded, &evals);
        let notify = match self.store.player_by_id(request.requester).map_err(internal)? {
            Some(p) => vec![p.user_id],
            None => Vec::new(),
        };
        let notice = NewNotice {
            kind: NoticeKind::Analysis,
            subject: Some(game),
            ..NewNotice::text(&request.platform, &request.channel, text, notify)
        };
        let now = unix_now();
        let stored = self.store.finish_analysis(game, &evals, now, &[notice]).map_err(internal)?;
        tracing::info!(
            game,
            positions = evals.len(),
            ms = started.elapsed().as_millis() as u64,
            stored,
            "analysed"
        );
        if stored {
            self.ring_bells();
        }
        Ok(stored)
    }

    /// The answer of a done analysis: its text, and the graph.
    fn analysis_reply(&self, loaded: &Loaded, evals: &[PlyEval]) -> Reply {
        let text = self.analysis_text(loaded, evals);
        let image = self.analysis_picture(loaded, evals);
        Reply { image, about: Some(format!("game #{}", loaded.row.id)), ..Reply::text(text) }
    }

    /// The graph of a done analysis.
    pub(super) fn analysis_picture(&self, loaded: &Loaded, evals: &[PlyEval]) -> Option<Vec<u8>> {
        let (judged, positions) = judged_turns(loaded, evals);
        let chart = analysis::chart(evals, &judged, &positions);
        tessera_render::graph::render_chart_png(&chart).ok()
    }

    /// What an analysis says: each side's count of inaccuracies, mistakes and blunders, and the
    /// turns where the evaluation dropped most, each with the engine's better turn.
    fn analysis_text(&self, loaded: &Loaded, evals: &[PlyEval]) -> String {
        let (judged, positions) = judged_turns(loaded, evals);
        let depths: Vec<u32> = evals.iter().map(|e| e.depth).filter(|d| *d > 0).collect();
        let depth = match (depths.iter().min(), depths.iter().max()) {
            (Some(a), Some(b)) if a == b => format!(", depth {a}"),
            (Some(a), Some(b)) => format!(", depth {a}–{b}"),
            _ => String::new(),
        };
        let result = loaded.row.result.as_deref().unwrap_or("*");
        let mut lines = vec![format!(
            "Analysis of game {}, {result}: {}{depth}.",
            loaded.title(),
            budget_words(self.analysis_limits)
        )];
        for color in [Color::White, Color::Black] {
            let t = Tally::of(&judged, color);
            lines.push(format!(
                "{} ({color}): {}, {}, {}; average loss {:.1}% a turn",
                loaded.player(color).name,
                count(t.inaccuracies, "inaccuracy", "inaccuracies"),
                count(t.mistakes, "mistake", "mistakes"),
                count(t.blunders, "blunder", "blunders"),
                t.average_loss
            ));
        }
        let mut worst: Vec<&Judged> = judged.iter().filter(|j| j.class.is_some()).collect();
        worst.sort_by(|a, b| b.loss.total_cmp(&a.loss));
        worst.truncate(TURNS_LISTED);
        worst.sort_by_key(|j| j.ply);
        if worst.is_empty() {
            lines.push("No inaccuracy, mistake or blunder: a clean game by my judgement.".into());
        } else {
            lines.push("Where it turned:".into());
            for j in worst {
                let class = j.class.unwrap_or(Class::Inaccuracy);
                let before = evals.get(j.ply - 1).map_or_else(String::new, |e| e.eval.short());
                let label = analysis::turn_label(&positions[j.ply - 1]);
                lines.push(format!(
                    "{label} {}{} {} ({before} → {}); better {label} {}",
                    j.played,
                    class.glyph(),
                    class.name(),
                    j.eval.short(),
                    j.better.as_deref().unwrap_or("?")
                ));
            }
        }
        lines.push(
            "By win chances as Lichess judges them: a drop of 5, 10 or 15 points of win% is an inaccuracy, a \
             mistake or a blunder."
                .into(),
        );
        lines.join("\n")
    }

    /// A done analysis, for the game's web page: `None` while none is done.
    pub(super) fn public_analysis(&self, loaded: &Loaded) -> Result<Option<public::PublicAnalysis>, String> {
        let game = loaded.row.id;
        match self.store.analysis(game).map_err(internal)? {
            Some(row) if row.is_done() => {}
            _ => return Ok(None),
        }
        let evals = self.store.analysis_evals(game).map_err(internal)?;
        let (judged, _) = judged_turns(loaded, &evals);
        let picture = self.analysis_picture(loaded, &evals);
        let tallies = [Tally::of(&judged, Color::White), Tally::of(&judged, Color::Black)];
        Ok(Some(public::PublicAnalysis { evals, judged, tallies, picture }))
    }

    /// `!t hint [#N]`: in a practice game, on the player's move, the engine's turn for them alone.
    pub(super) fn hint(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        let game = loaded.row.id;
        if loaded.row.bot.is_none() {
            return Err(format!(
                "hints are for practice games against me; in game #{game}, between people, you are on your own \
                 (once it is over, `!t analyse #{game}` shows where it turned)"
            ));
        }
        let Some(color) = loaded.color_of(&me) else {
            return Err(format!("only the player of practice game #{game} can ask for a hint in it"));
        };
        if loaded.row.result.is_some() || loaded.game.outcome().is_some() {
            return Err(format!("game #{game} is over; `!t analyse #{game}` looks back at it"));
        }
        if loaded.game.position().turn() != color {
            return Err(format!("it is my move in game #{game}; ask for a hint when it is yours"));
        }
        self.practice.push(Job::Hint(Hint {
            game,
            plies: loaded.row.moves.len(),
            player: me.id,
            platform: msg.platform.to_string(),
            channel: msg.channel.to_string(),
            user_id: msg.author.id.clone(),
        }));
        let secs = self.hint_limits.movetime.map_or(1, |t| t.as_secs().max(1));
        Ok(vec![Reply {
            secret: true,
            private: true,
            ..Reply::text(format!(
                "Looking for a turn for you in game #{game} (about {secs} s); I tell you privately."
            ))
        }])
    }

    /// The hint asked for, to its player alone; nothing when the game moved on meanwhile.
    fn hint_answer(&self, hint: &Hint) -> Vec<Notice> {
        let Ok(Some(row)) = self.store.game(hint.game) else { return Vec::new() };
        if row.result.is_some() || row.moves.len() != hint.plies {
            tracing::debug!(game = hint.game, "the game moved on before its hint; dropped");
            return Vec::new();
        }
        let Ok(loaded) = self.load(row) else { return Vec::new() };
        let pos = loaded.game.position();
        let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Searcher::new().best_move(&loaded.game, self.hint_limits)
        }));
        let text = match found {
            Ok(Some(choice)) => format!(
                "Hint for game #{}: {} {} ({} for you).",
                hint.game,
                analysis::turn_label(pos),
                analysis::record_turn(pos, &choice.mv),
                analysis::Eval::from_score(choice.score, pos.turn()).short_for(pos.turn())
            ),
            Ok(None) => return Vec::new(),
            Err(_) => {
                tracing::error!(game = hint.game, "the hint's search panicked");
                format!("Game #{}: I could not find a hint, sorry; nothing was changed.", hint.game)
            }
        };
        vec![Notice {
            platform: hint.platform.clone(),
            channel: hint.channel.clone(),
            direct: vec![(hint.user_id.clone(), text)],
            about: Some(format!("game #{}", hint.game)),
            ..Notice::default()
        }]
    }
}

/// Every turn of a game judged from its evaluations, and its positions (the start first).
fn judged_turns(loaded: &Loaded, evals: &[PlyEval]) -> (Vec<Judged>, Vec<Position>) {
    let start = loaded.game.start();
    let moves = loaded.game.moves();
    let played = analysis::written_turns(start, moves);
    (analysis::judge_all(start.turn(), &played, evals), analysis::positions(start, moves))
}

/// An analysis's budget in words: "250 ms a position".
fn budget_words(limits: Limits) -> String {
    match (limits.movetime, limits.depth) {
        (Some(t), _) => format!("{} ms a position", t.as_millis()),
        (None, Some(d)) => format!("depth {d} a position"),
        (None, None) => "no limit".into(),
    }
}

/// "1 blunder", "0 mistakes".
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}
