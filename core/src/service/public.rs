//! What the web pages show (issue 31): a published tournament or a shared game, as plain data for
//! the `tessera-web` crate to draw, and the commands that publish them.
//!
//! Nothing here names a channel, a server, a conditional line or a note: a page is made only of
//! what these types hold.

use std::hash::{DefaultHasher, Hash, Hasher};

use super::*;
use crate::command::TournamentRef;
pub use crate::model::Publication;
use crate::model::{GameEnding, PairingKind, PlayerId, TournamentId, TournamentRow, TournamentStatus};
use crate::tournament::{Snapshot, Standings};

/// A published tournament: its settings, standings, and every round's pairings.
#[derive(Clone, Debug)]
pub struct PublicTournament {
    pub row: TournamentRow,
    pub variant_name: String,
    /// Entrants in seeding order (with their names), each round's cells, the knockout's matches.
    pub snapshot: Snapshot,
    pub standings: Standings,
    /// Every pairing, by round, board and leg.
    pub pairings: Vec<PublicPairing>,
    /// When the next round is due at the latest, where that is known: the start of an open
    /// tournament; for a running one on a clock, when the current round's slowest game runs out
    /// of time (later if a player takes a vacation).
    pub next_round_at: Option<i64>,
    /// Changes whenever anything the page shows changes.
    pub fingerprint: u64,
}

impl PublicTournament {
    /// An entrant's name by id (`?` for one not entered, which a pairing never names).
    pub fn name(&self, player: PlayerId) -> &str {
        self.snapshot.entries.iter().find(|e| e.player == player).map_or("?", |e| e.name.as_str())
    }

    /// Every entrant's name by id, for a page naming many of them.
    pub fn names(&self) -> std::collections::HashMap<PlayerId, &str> {
        self.snapshot.entries.iter().map(|e| (e.player, e.name.as_str())).collect()
    }
}

/// One pairing as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PublicPairing {
    pub round: u32,
    pub board: u32,
    pub leg: u32,
    pub white: PlayerId,
    pub black: Option<PlayerId>,
    pub kind: PairingKind,
    pub game: Option<GameId>,
    /// `1-0`, `0-1`, `½-½`, forfeits `+-`, `-+`, `--`, `bye`, `½ bye`, `absent`, or `*` while
    /// the game is played.
    pub result: String,
}

/// One side of a public game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PublicSide {
    pub name: String,
    /// The rating in the game's variant as the bot shows it (`1523`, `1500?` provisional), for a
    /// rated game.
    pub rating: Option<String>,
}

/// One ply of a game's record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PublicPly {
    /// The move number the record writes before it, where it writes one (`12.`, `12...`).
    pub label: Option<String>,
    /// Who played it.
    pub color: Color,
    /// The record's own notation: SAN for FIDE chess, the variants' long notation otherwise.
    pub text: String,
}

/// A game as its page shows it.
#[derive(Clone, Debug)]
pub struct PublicGame {
    pub id: GameId,
    pub variant_name: String,
    pub white: PublicSide,
    pub black: PublicSide,
    /// `1-0`, `0-1`, `1/2-1/2` once over.
    pub result: Option<String>,
    /// How it ended, in words (`White wins by checkmate`).
    pub ending: Option<String>,
    /// The side to move of a game still played.
    pub to_move: Option<Color>,
    /// When the side to move runs out of time (unix seconds), on a clock.
    pub deadline: Option<i64>,
    pub days_per_move: Option<u32>,
    pub weekends_off: bool,
    /// The tournament it belongs to: its id, name and round.
    pub tournament: Option<(TournamentId, String, u32)>,
    pub plies: Vec<PublicPly>,
    pub pgn: String,
    pub fingerprint: u64,
    /// The board after each ply, the start first.
    views: Vec<BoardView>,
    /// The engine's analysis, once one is done (issue 32).
    pub analysis: Option<PublicAnalysis>,
}

/// A game's analysis as its page shows it.
#[derive(Clone, Debug)]
pub struct PublicAnalysis {
    /// Each position's evaluation, the start first.
    pub evals: Vec<crate::analysis::PlyEval>,
    /// Each turn judged, in order (`judged[i]` is ply `i + 1`).
    pub judged: Vec<crate::analysis::Judged>,
    /// White's and Black's totals.
    pub tallies: [crate::analysis::Tally; 2],
    /// The evaluation graph (PNG).
    pub picture: Option<Vec<u8>>,
}

impl PublicGame {
    /// The board after `ply` plies (0: the start), the last move marked.
    pub fn view(&self, ply: usize) -> Option<&BoardView> {
        self.views.get(ply)
    }

    /// The number of plies played.
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }
}

fn fingerprint(parts: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

/// Whether `token` could be one of our addresses (letters and digits, not too long): anything else
/// is never looked up, nor kept by a cache.
pub fn could_be_address(token: &str) -> bool {
    !token.is_empty() && token.len() <= 64 && token.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// An unguessable address: 128 random bits, as 26 base-32 letters and digits.
fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| internal(anyhow::anyhow!("no randomness: {e}")))?;
    const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut value = u128::from_be_bytes(bytes);
    Ok((0..26)
        .map(|_| {
            let c = ALPHABET[(value % 32) as usize] as char;
            value /= 32;
            c
        })
        .collect())
}

impl<S: Store> Service<S> {
    /// A page's full address: under `web_base_url`, or the path alone where none is set.
    fn page_address(&self, path: &str) -> String {
        match &self.web_base_url {
            Some(base) => format!("{}{path}", base.trim_end_matches('/')),
            None => path.to_string(),
        }
    }

    fn no_web_hint(&self) -> &'static str {
        if self.web_base_url.is_some() {
            ""
        } else {
            " (the bot's web address is not configured yet: its operator sets `web_base_url`)"
        }
    }

    /// `!t tournament publish` / `unpublish`: the organiser gives the tournament a page, or takes
    /// it down (its address then answers as an unknown one; publishing again gives a new one).
    pub(super) fn publish_tournament(&self, msg: &Incoming, id: TournamentRef, on: bool) -> Replies {
        let t = self.pick_tournament(msg, id, false, true)?;
        let me = self.require_admin(msg, &t)?;
        let what = Publication::Tournament(t.id);
        if !on {
            let was = self.store.unpublish(what).map_err(internal)?;
            let text = if was {
                format!("{} (t{}) has no web page any more; its address answers nothing.", t.name, t.id)
            } else {
                format!("{} (t{}) had no web page.", t.name, t.id)
            };
            return Ok(vec![Reply::text(text)]);
        }
        let token = self.store.publish(what, &new_token()?, me.id, msg.now).map_err(internal)?;
        let address = self.page_address(&format!("/t/{token}"));
        Ok(vec![Reply::text(format!(
            "{} (t{}) is on the web: {address}{} — standings, rounds and every game, updated as they \
             end. `!t tournament unpublish t{}` takes it down.",
            t.name,
            t.id,
            self.no_web_hint(),
            t.id
        ))])
    }

    /// `!t share #12` / `unshare`: a player gives their game a page, or takes it down.
    pub(super) fn share(&self, msg: &Incoming, id: GameRef, on: bool) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.game_on_platform(msg, id)?;
        let game = loaded.row.id;
        if loaded.color_of(&me).is_none() {
            return Err(format!("only the players of game #{game} can share it"));
        }
        if on && loaded.row.bot.is_some() {
            return Err(format!(
                "game #{game} is a practice game against me, which is private: it has no web page"
            ));
        }
        let what = Publication::Game(game);
        if !on {
            let was = self.store.unpublish(what).map_err(internal)?;
            let text = if was {
                format!("Game #{game} has no web page any more; its address answers nothing.")
            } else {
                format!("Game #{game} had no web page.")
            };
            return Ok(vec![Reply::text(text)]);
        }
        let token = self.store.publish(what, &new_token()?, me.id, msg.now).map_err(internal)?;
        let address = self.page_address(&format!("/g/{token}"));
        Ok(vec![Reply::text(format!(
            "Game #{game} ({}) is on the web: {address}{} — every move to step through. \
             `!t unshare #{game}` takes it down.",
            loaded.title(),
            self.no_web_hint()
        ))])
    }

    /// What a live address shows: `None` for an unknown or withdrawn one.
    pub fn publication(&self, token: &str) -> Result<Option<Publication>> {
        if !could_be_address(token) {
            return Ok(None);
        }
        self.store.publication(token)
    }

    /// The tournament as its page shows it.
    pub fn public_tournament(&self, id: TournamentId) -> Result<PublicTournament, String> {
        let row =
            self.store.tournament(id).map_err(internal)?.ok_or_else(|| format!("no tournament t{id}"))?;
        let (mut snapshot, played, mut rows) = self.snapshot_with_pairings(&row)?;
        // Where it is played is nobody's business on the web: not even held.
        let row = TournamentRow { platform: String::new(), channel: String::new(), organiser: 0, ..row };
        snapshot.row = row.clone();
        let standings = snapshot.standings();
        rows.sort_by_key(|p| (p.round, p.board, p.leg));
        let pairings: Vec<PublicPairing> = rows
            .iter()
            .map(|p| {
                let stated =
                    p.result.clone().or_else(|| p.game.and_then(|g| played.results.get(&g).cloned()));
                let result = match (p.kind, stated.as_deref()) {
                    (PairingKind::Bye, _) => "bye".to_string(),
                    (PairingKind::HalfBye, _) => "½ bye".to_string(),
                    (PairingKind::Absent, _) => "absent".to_string(),
                    (PairingKind::Game, Some("1/2-1/2")) => "½-½".to_string(),
                    (PairingKind::Game, Some(r)) => r.to_string(),
                    (PairingKind::Game, None) => "*".to_string(),
                };
                PublicPairing {
                    round: p.round,
                    board: p.board,
                    leg: p.leg,
                    white: p.white,
                    black: p.black,
                    kind: p.kind,
                    game: p.game,
                    result,
                }
            })
            .collect();
        let next_round_at = match (row.status, row.days_per_move) {
            (TournamentStatus::Open, _) => row.starts_at,
            // The round's slowest game runs out of time then, unless a player takes a vacation.
            (TournamentStatus::Running, Some(days)) => self
                .store
                .round_last_move(id, row.current_round)
                .map_err(internal)?
                .map(|last| last + i64::from(days) * DAY),
            _ => None,
        };
        let variant_name =
            row.variant.parse::<Variant>().map_or_else(|_| row.variant.clone(), |v| v.title().to_string());
        let fingerprint = fingerprint(&(
            (&row.name, row.status.name(), row.current_round, row.rounds, row.starts_at, next_round_at),
            snapshot.entries.iter().map(|e| (e.player, &e.name, e.withdrawn_after)).collect::<Vec<_>>(),
            &pairings,
        ));
        Ok(PublicTournament { row, variant_name, snapshot, standings, pairings, next_round_at, fingerprint })
    }

    /// Every game of the tournament, paired so far, as one PGN file (games in round and board order).
    pub fn tournament_pgn(&self, id: TournamentId) -> Result<String, String> {
        let row =
            self.store.tournament(id).map_err(internal)?.ok_or_else(|| format!("no tournament t{id}"))?;
        let mut rows = self.store.pairings(id).map_err(internal)?;
        rows.retain(|p| p.round <= row.current_round);
        rows.sort_by_key(|p| (p.round, p.board, p.leg));
        let mut out = String::new();
        for p in rows {
            let Some(game) = p.game else { continue };
            let Some(g) = self.store.game(game).map_err(internal)? else { continue };
            let loaded = self.load_to_read(g)?;
            let round = if p.leg > 1 { format!("{}.{}", p.round, p.leg) } else { p.round.to_string() };
            out.push_str(&listings::pgn(&loaded, &format!("{} (t{id})", row.name), &round));
            out.push_str("\n\n");
        }
        Ok(out)
    }

    /// The ratings a page shows, worked out from every rated game at most every few seconds: a page
    /// watched live asks each second, and the work grows with the bot's whole history.
    fn public_ratings(&self) -> Result<std::sync::Arc<crate::ratings::Ratings>, String> {
        const KEEP: std::time::Duration = std::time::Duration::from_secs(10);
        let mut kept = self.public_ratings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, ratings)) = kept.as_ref()
            && at.elapsed() < KEEP
        {
            return Ok(ratings.clone());
        }
        let ratings = std::sync::Arc::new(self.ratings()?);
        *kept = Some((std::time::Instant::now(), ratings.clone()));
        Ok(ratings)
    }

    /// The tournament a game belongs to, by one indexed look: what a tournament's address checks
    /// a game number against before anything of the game is read.
    pub fn public_game_tournament(&self, game: GameId) -> Result<Option<TournamentId>, String> {
        Ok(self.store.tournament_of_game(game).map_err(internal)?.map(|(t, _)| t))
    }

    /// The game as its page shows it; `None` for no such game.
    pub fn public_game(&self, id: GameId) -> Result<Option<PublicGame>, String> {
        let Some(row) = self.store.game(id).map_err(internal)? else { return Ok(None) };
        let loaded = self.load_to_read(row)?;
        let tournament = match self.store.tournament_of_game(id).map_err(internal)? {
            Some((t, round)) => {
                let name = self.store.tournament(t).map_err(internal)?.map(|t| t.name).unwrap_or_default();
                Some((t, name, round))
            }
            None => None,
        };
        let (event, round) = match &tournament {
            Some((t, name, round)) => (format!("{name} (t{t})"), round.to_string()),
            None => (format!("Tessera game #{id}"), "-".to_string()),
        };
        let pgn = listings::pgn(&loaded, &event, &round);
        let ratings = if loaded.row.rated { Some(self.public_ratings()?) } else { None };
        let side = |p: &Player| PublicSide {
            name: p.name.clone(),
            rating: ratings.as_ref().map(|r| r.get(&loaded.row.variant, p.id).display()),
        };
        // The record's own numbering and notation, and the board before and after each ply.
        let views = loaded.game.views();
        let plies = tessera_rules::written_plies(&loaded.game)
            .into_iter()
            .zip(&views)
            .map(|(ply, before)| PublicPly { label: ply.label, color: before.turn, text: ply.text })
            .collect();
        let outcome = loaded.game.outcome();
        let result = loaded.row.result.clone().or_else(|| outcome.map(|o| o.result().to_string()));
        let ending = match (&loaded.row.result_reason, &result) {
            (Some(reason), Some(result)) if off_the_board(reason) => {
                Some(decided_off_the_board(result, reason))
            }
            _ => outcome.map(|o| o.to_string()).or_else(|| loaded.row.result_reason.clone()),
        };
        let to_move = result.is_none().then(|| loaded.game.position().turn());
        let white = side(&loaded.white);
        let black = side(&loaded.black);
        let analysis = self.public_analysis(&loaded)?;
        let fingerprint = fingerprint(&(
            (&loaded.row.moves, &result, &ending, &white, &black, loaded.deadline, &tournament),
            analysis.as_ref().map(|a| a.evals.len()),
        ));
        Ok(Some(PublicGame {
            id,
            variant_name: loaded.variant().title().to_string(),
            white,
            black,
            result,
            ending,
            to_move,
            deadline: loaded.deadline,
            days_per_move: loaded.row.days_per_move,
            weekends_off: loaded.row.weekends_off,
            tournament,
            plies,
            pgn,
            fingerprint,
            views,
            analysis,
        }))
    }
}

/// Whether a game's stored reason says it was decided off the board: by the organiser, or by
/// forfeit.
fn off_the_board(reason: &str) -> bool {
    reason.starts_with(GameEnding::ORGANISER) || reason.starts_with(GameEnding::FORFEIT)
}

/// How a game decided off the board ended, in words: `White wins by forfeit (no show)`, `Draw,
/// set by the organiser (agreed by phone)`.
fn decided_off_the_board(result: &str, reason: &str) -> String {
    let who = match result {
        "1-0" => "White wins",
        "0-1" => "Black wins",
        "1/2-1/2" => "Draw",
        "0-0" => "Both lose",
        other => other,
    };
    // The organiser's own words, where they gave any beyond the default.
    // Free text an organiser typed: cleaned as a name is (no bidi overrides, no hidden characters).
    let said = |why: &str| {
        let why = crate::names::fit(why.trim(), 200);
        if why.is_empty() || why == GameEnding::ORGANISER { String::new() } else { format!(" ({why})") }
    };
    match reason.strip_prefix(GameEnding::FORFEIT) {
        Some(why) => format!("{who} by forfeit{}", said(why)),
        None => {
            let why = reason.strip_prefix(GameEnding::ORGANISER).unwrap_or(reason).trim_start_matches(':');
            format!("{who}, {}{}", GameEnding::ORGANISER, said(why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_decided_off_the_board_says_how_once() {
        assert_eq!(
            decided_off_the_board("1-0", "set by the organiser: set by the organiser"),
            "White wins, set by the organiser"
        );
        assert_eq!(
            decided_off_the_board("1/2-1/2", "set by the organiser: agreed by phone"),
            "Draw, set by the organiser (agreed by phone)"
        );
        assert_eq!(decided_off_the_board("0-1", "forfeit: no show"), "Black wins by forfeit (no show)");
        assert_eq!(decided_off_the_board("0-0", "forfeit: "), "Both lose by forfeit");
        assert!(off_the_board("forfeit: withdrew") && !off_the_board("time"));
    }

    #[test]
    fn addresses_are_long_random_and_of_our_alphabet() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 26);
        assert!(a.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
    }
}
