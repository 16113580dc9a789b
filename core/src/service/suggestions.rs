//! Suggestions while a command is typed (autocomplete): what each option declares it suggests
//! (variants, moves, games, opponents, challenges, tournaments), for the author.

use super::*;
use crate::turn_texts::TurnText;

impl<S: Store> Service<S> {
    /// The suggestions an option declares ([`Suggest`], in the command table) for what is typed
    /// so far; `game` is the command's game option where it has one (the moves' game).
    pub fn suggest(
        &self,
        msg: &Incoming,
        what: Suggest,
        typed: &str,
        game: GameRef,
        limit: usize,
    ) -> Vec<Suggestion> {
        self.placed(msg, |msg| self.suggest_placed(msg, what, typed, game, limit))
    }

    fn suggest_placed(
        &self,
        msg: &Incoming,
        what: Suggest,
        typed: &str,
        game: GameRef,
        limit: usize,
    ) -> Vec<Suggestion> {
        match what {
            Suggest::Variants => suggest_variants(typed, limit),
            Suggest::Opponents => self.suggest_opponents(msg, typed, limit),
            Suggest::Moves => self.suggest_moves(msg, game, typed, limit),
            Suggest::Games => self.suggest_games(msg, typed, limit),
            Suggest::ChallengesToMe => self.suggest_challenges(msg, false, typed, limit),
            Suggest::MyChallenges => self.suggest_challenges(msg, true, typed, limit),
            Suggest::Tournaments => self.suggest_tournaments(msg, typed, limit),
        }
    }

    /// Legal turns for the author's game (the one named, or their game here), for autocomplete:
    /// the ones whose SAN or long form starts with what is typed (case, `x`, `-` and spaces
    /// ignored; `g1f3` finds Ng1-f3), written without check marks (finding mates among tens of
    /// thousands of compound turns would take too long). Empty when it is not the author's turn:
    /// nothing they could send would be legal.
    pub fn suggest_moves(&self, msg: &Incoming, game: GameRef, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(loaded) = self.find(msg, game, false) else { return Vec::new() };
        let pos = loaded.game.position();
        if loaded.game.outcome().is_some() || loaded.color_of(&me) != Some(pos.turn()) {
            return Vec::new();
        }
        let typed = move_key(typed);
        // Each keystroke asks again: the position's turns are written once (see `turn_texts`).
        let turns = self.turn_texts.of(loaded.row.id, pos);
        let mut found: Vec<(u8, &TurnText)> = turns
            .iter()
            .filter_map(|turn| {
                if key_begins(&turn.san, &typed) {
                    return Some((0, turn));
                }
                long_begins_like(&turn.lan, &typed).then_some((1, turn))
            })
            .collect();
        let order = |(ra, a): &(u8, &TurnText), (rb, b): &(u8, &TurnText)| {
            (ra, a.san.len(), &a.san).cmp(&(rb, b.san.len(), &b.san))
        };
        // Only the first few are shown: pick them before sorting (twice as many, for duplicates).
        let keep = limit.saturating_mul(2).max(1);
        if found.len() > keep {
            found.select_nth_unstable_by(keep - 1, order);
            found.truncate(keep);
        }
        found.sort_by(order);
        found.dedup_by(|a, b| a.1.san == b.1.san);
        found
            .into_iter()
            .take(limit)
            .map(|(_, turn)| {
                let (san, lan) = (&turn.san, &turn.lan);
                let label = if san == lan { san.clone() } else { format!("{san}  ({lan})") };
                Suggestion { label, value: san.clone() }
            })
            .collect()
    }

    /// The turn-writing worker's step: writes the turns of the next queued game's current
    /// position into the autocomplete cache (see [`Service::write_turns_ahead`]). False once the
    /// queue is closed.
    pub fn write_turns_step(&self) -> bool {
        let Some((game, _)) = self.turns_ahead.pop_wait() else { return false };
        // Read as it is now: a game that moved on meanwhile is written at its newest position,
        // one that ended (or is gone) is not written at all.
        let loaded = match self.store.game(game) {
            Ok(Some(row)) => self.load(row),
            Ok(None) => return true,
            Err(e) => Err(internal(e)),
        };
        match loaded {
            Ok(loaded) if loaded.game.outcome().is_none() => {
                self.turn_texts.of(game, loaded.game.position());
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(game, "could not write the turns ahead: {e}"),
        }
        true
    }

    /// The games waiting for [`Service::write_turns_step`].
    pub fn turns_ahead_queue(&self) -> &crate::queue::Queue {
        &self.turns_ahead
    }

    /// The author's running games on this platform, this channel's first, for autocomplete; the
    /// value is the game's number.
    pub fn suggest_games(&self, msg: &Incoming, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(rows) = self.store.player_games(me.id) else { return Vec::new() };
        // Only this channel's: a game is played in its own channel.
        let mut rows: Vec<GameRow> =
            rows.into_iter().filter(|g| g.platform == msg.platform && g.channel == msg.channel).collect();
        rows.sort_by_key(|g| -g.id);
        let typed = typed.trim().trim_start_matches('#').to_lowercase();
        // Labels come from the rows alone: replaying every game on each keystroke would be slow.
        rows.into_iter()
            .filter_map(|row| {
                let color = if row.white == me.id { Color::White } else { Color::Black };
                let variant = &row.variant;
                let turn = super::listings::row_turn(&row)?;
                let opponent =
                    self.store.player_by_id(if color == Color::White { row.black } else { row.white });
                let opponent = opponent.ok()??;
                let whose = if turn == color { "your move" } else { "their move" };
                let elsewhere = if row.channel == msg.channel { "" } else { ", another channel" };
                let label =
                    format!("#{} {variant} vs {} ({color}), {whose}{elsewhere}", row.id, opponent.name);
                label.to_lowercase().contains(&typed).then(|| Suggestion { label, value: row.id.to_string() })
            })
            .take(limit)
            .collect()
    }

    /// The people the author played lately on this platform, for a rematch; the value is their
    /// platform user id.
    pub fn suggest_opponents(&self, msg: &Incoming, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(recent) = self.recent_opponents(msg, &me) else { return Vec::new() };
        let typed = typed.trim().to_lowercase();
        let mut seen = std::collections::HashSet::new();
        recent
            .into_iter()
            .filter(|(_, p)| seen.insert(p.id) && p.name.to_lowercase().contains(&typed))
            .map(|(g, p)| {
                let mine = if g.white == me.id { "white" } else { "black" };
                let label = format!("{} (last: #{} {}, you had {mine})", p.name, g.id, g.variant);
                Suggestion { label, value: p.user_id }
            })
            .take(limit)
            .collect()
    }

    /// Open challenges here that the author can answer (`mine` false) or withdraw (`mine` true).
    pub fn suggest_challenges(
        &self,
        msg: &Incoming,
        mine: bool,
        typed: &str,
        limit: usize,
    ) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(open) = self.store.open_challenges(msg.platform, msg.channel, me.id) else {
            return Vec::new();
        };
        let typed = typed.trim().to_lowercase();
        open.into_iter()
            .rev()
            .filter(|c| if mine { c.challenger == me.id } else { c.challenged == me.id })
            .filter_map(|c| {
                let other = if mine { c.challenged } else { c.challenger };
                let name = self.store.player_by_id(other).ok()??.name;
                let label = if mine {
                    format!("{}: your challenge to {name}, {}", c.id, c.variant)
                } else {
                    format!("{}: {name} challenges you to {}", c.id, c.variant)
                };
                label.to_lowercase().contains(&typed).then(|| Suggestion { label, value: c.id.to_string() })
            })
            .take(limit)
            .collect()
    }
}
