//! Listings: the games of a channel or a player, a game's history and its PGN.

use super::*;

impl<S: Store> Service<S> {
    pub(super) fn games(&self, msg: &Incoming, scope: Scope) -> Replies {
        let me = self.me(msg)?;
        let rows = match scope {
            Scope::Mine => self
                .store
                .player_games(me.id)
                .map_err(internal)?
                .into_iter()
                .filter(|g| g.platform == msg.platform)
                .collect(),
            Scope::Channel => self.store.channel_games(msg.platform, msg.channel).map_err(internal)?,
        };
        if rows.is_empty() {
            return Ok(vec![Reply::text("No games running. Start one with `!t challenge @someone hans38`.")]);
        }
        // A bounded answer however many games there are.
        const SHOWN: usize = 30;
        let total = rows.len();
        let mut rows: Vec<GameRow> = rows.into_iter().rev().collect();
        if scope == Scope::Mine {
            // The games waiting for the author first, the least time left first (a game without a
            // clock after those with one); then the others, newest first. Read off the rows: only
            // the games shown are replayed.
            rows.sort_by_key(|row| match row_turn(row) {
                Some(turn) if (turn == Color::White) == (row.white == me.id) => {
                    (0, self.deadline_of(row).unwrap_or(i64::MAX), -row.id)
                }
                _ => (1, 0, -row.id),
            });
        }
        let loaded = rows.into_iter().take(SHOWN).map(|row| self.load(row));
        let mut lines = Vec::new();
        let mut heading = None;
        for l in loaded {
            match l {
                Ok(l) if scope == Scope::Mine => {
                    let turn = l.game.position().turn();
                    let mine = l.color_of(&me) == Some(turn);
                    let head = if mine { "Your move:" } else { "Their move:" };
                    if heading != Some(head) {
                        lines.push(head.to_string());
                        heading = Some(head);
                    }
                    let whose = if mine {
                        "your move".to_string()
                    } else {
                        format!("{} to move", l.player(turn).name)
                    };
                    // A player's own list says where each game is played (it is acted on there).
                    lines.push(format!(
                        "{}, move {}, {whose} ({turn}){}, in {}",
                        l.title(),
                        l.game.position().fullmoves(),
                        clock_left(&l, msg.now),
                        channel_name(&l.row.platform, &l.row.channel)
                    ))
                }
                Ok(l) => lines.push(format!("{}, {}", l.title(), status_line(&l, msg.now))),
                Err(e) => lines.push(e),
            }
        }
        if total > SHOWN {
            lines.push(format!(
                "… and {} more games; name one with its number, like `!t board #12`",
                total - SHOWN
            ));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    pub(super) fn history(&self, msg: &Incoming, id: GameRef) -> Replies {
        // A finished game's player may ask for its record from any channel of the platform.
        let loaded = match self.own_finished_game(msg, id)? {
            Some(loaded) => loaded,
            None => self.find(msg, id, true)?,
        };
        let round = match self.store.tournament_of_game(loaded.row.id).map_err(internal)? {
            Some((t, round)) => {
                let name = self.store.tournament(t).map_err(internal)?.map(|t| t.name).unwrap_or_default();
                (format!("{name} (t{t})"), round.to_string())
            }
            None => (format!("Tessera game #{}", loaded.row.id), "-".to_string()),
        };
        let id = loaded.row.id;
        let summary = format!(
            "The record of game #{id} ({}, {} turns) is attached as game-{id}.pgn.",
            loaded.title(),
            loaded.row.moves.len()
        );
        let pgn = pgn(&loaded, &round.0, &round.1);
        Ok(vec![Reply {
            about: Some(format!("game #{id}")),
            ..Reply::export(format!("game-{id}.pgn"), pgn, false, summary)
        }])
    }
}

/// The game as PGN: the Seven Tag Roster (Event, Site, Date, Round, White, Black, Result), then
/// `Variant`, `Termination`, and `SetUp`/`FEN` for a game that did not begin at the variant's
/// start; the moves in lines under 80 characters, SAN for FIDE chess.
pub(super) fn pgn(l: &Loaded, event: &str, round: &str) -> String {
    let tag = |name: &str, value: &str| {
        // PGN escapes a quote and a backslash inside a tag value; a line break would end the tag.
        let value: String = value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ");
        format!("[{name} \"{value}\"]\n")
    };
    let result = l.game.outcome().map_or("*", |o| o.result());
    let mut text = tag("Event", event);
    text.push_str(&tag("Site", &format!("Tessera, {}", l.row.platform)));
    text.push_str(&tag("Date", &pgn_date(l.row.created_at)));
    text.push_str(&tag("Round", round));
    text.push_str(&tag("White", &l.white.name));
    text.push_str(&tag("Black", &l.black.name));
    text.push_str(&tag("Result", result));
    text.push_str(&tag("Variant", l.variant().name()));
    // Results an organiser set: decided off the board, or a game not played (a double forfeit too).
    let termination = match l.row.result_reason.as_deref() {
        Some(r) if r.starts_with(crate::model::GameEnding::ORGANISER) => "adjudication",
        Some(r) if r.starts_with(crate::model::GameEnding::FORFEIT) => "abandoned",
        _ => tessera_rules::record::termination(l.game.outcome()),
    };
    text.push_str(&tag("Termination", termination));
    if l.game.start() != &Position::start(l.variant()) {
        text.push_str(&tag("SetUp", "1"));
        text.push_str(&tag("FEN", &l.game.start().fen()));
    }
    let moves = tessera_rules::record::wrap(&l.game.record(), 79);
    text.push_str(&format!("\n{moves}"));
    if !moves.trim_end().ends_with(result) {
        text.push_str(&format!(" {result}"));
    }
    text
}

/// The side to move at a stored game's start: the position text's second field, whatever the
/// variant (so a list of games reads no variant definition).
pub(super) fn start_turn(row: &GameRow) -> Option<Color> {
    match row.start_fen.split_whitespace().nth(1)? {
        "w" => Some(Color::White),
        "b" => Some(Color::Black),
        _ => None,
    }
}

/// The side to move in a stored game, from the number of its moves (each is one whole turn).
pub(super) fn row_turn(row: &GameRow) -> Option<Color> {
    let first = start_turn(row)?;
    Some(if row.moves.len().is_multiple_of(2) { first } else { first.other() })
}
