//! What the two players of a game agree or decide: resigning, draws, takebacks.

use super::*;

impl<S: Store> Service<S> {
    pub(super) fn participant(&self, msg: &Incoming, id: GameRef) -> Result<(Player, Loaded, Color), String> {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        let color = loaded
            .color_of(&me)
            .ok_or_else(|| format!("only the players of game #{} can do that", loaded.row.id))?;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {o} ({})", loaded.row.id, o.result()));
        }
        Ok((me, loaded, color))
    }

    /// Why the author may not act in a game (resign, offer a draw) now, if they may not: for
    /// platforms that ask for confirmation first.
    pub fn refusal_to_act(&self, msg: &Incoming, id: GameRef) -> Option<String> {
        self.placed(msg, |msg| self.participant(msg, id).err())
    }

    pub(super) fn resign(&self, msg: &Incoming, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        let outcome = Outcome::Win { winner: color.other(), reason: WinReason::Resignation };
        if !self.store.finish(loaded.row.id, outcome.result(), "resignation", msg.now).map_err(internal)? {
            return Err(format!("game #{} has just ended", loaded.row.id));
        }
        let reply = Reply::text(format!(
            "{} resigns game #{}. {outcome} ({}).",
            me.name,
            loaded.row.id,
            outcome.result()
        ));
        let mut replies = vec![reply.notifying(loaded.player(color.other()))];
        self.after_commit(&mut replies, loaded.row.id, Committed::Ended, msg.now);
        Ok(replies)
    }

    pub(super) fn draw(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        if loaded.row.bot.is_some() {
            return Err(format!(
                "I neither offer nor accept draws in a practice game: play on (on your move, `!t claim` a \
                 repetition or the 50-move rule), or `!t resign #{}`",
                loaded.row.id
            ));
        }
        let opponent = loaded.player(color.other());
        let pending = loaded.row.draw_offer;
        match offer {
            Offer::Offer | Offer::Accept if pending == Some(opponent.id) => {
                // The offer must still stand when the game ends: a move withdraws it.
                if !self.store.accept_draw(loaded.row.id, opponent.id, msg.now).map_err(internal)? {
                    return Err(format!(
                        "{}'s draw offer no longer stands (a move withdrew it, or the game ended)",
                        opponent.name
                    ));
                }
                let reply = Reply::text(format!("Game #{} is drawn by agreement (1/2-1/2).", loaded.row.id));
                let mut replies = vec![reply.notifying(opponent)];
                self.after_commit(&mut replies, loaded.row.id, Committed::Ended, msg.now);
                Ok(replies)
            }
            Offer::Accept => {
                Err(format!("{} has not offered a draw; offer one with `!t draw`", opponent.name))
            }
            Offer::Offer if pending == Some(me.id) => Err("you have already offered a draw".into()),
            Offer::Offer => {
                self.store.set_draw_offer(loaded.row.id, Some(me.id)).map_err(internal)?;
                let mut reply = Reply::text(format!(
                    "{} offers a draw in game #{}. {}: `!t draw accept` or `!t draw decline`.",
                    me.name, loaded.row.id, opponent.name
                ));
                reply.actions = Some(Actions::DrawOffer(loaded.row.id));
                Ok(vec![reply.of_game(loaded.row.id).notifying(opponent)])
            }
            Offer::Decline if pending == Some(opponent.id) => {
                self.store.set_draw_offer(loaded.row.id, None).map_err(internal)?;
                let reply =
                    Reply::text(format!("{} declines the draw; game #{} goes on.", me.name, loaded.row.id));
                Ok(vec![reply.of_game(loaded.row.id).notifying(opponent)])
            }
            Offer::Decline => Err("there is no draw offer to decline".into()),
        }
    }

    pub(super) fn claim(&self, msg: &Incoming, id: GameRef) -> Replies {
        let (_, loaded, color) = self.participant(msg, id)?;
        let opponent = loaded.player(color.other());
        if loaded.game.position().turn() != color {
            return Err("a draw is claimed by the player to move".into());
        }
        let Some(reason) = loaded.game.claimable_draw() else {
            let moves = loaded.game.start().variant().rules().move_limit.map_or(50, u32::from);
            return Err(format!(
                "there is nothing to claim: a draw needs a threefold repetition or {moves} moves without a capture or pawn move"
            ));
        };
        if !self.store.finish(loaded.row.id, "1/2-1/2", draw_name(reason), msg.now).map_err(internal)? {
            return Err(format!("game #{} has just ended", loaded.row.id));
        }
        let reply = Reply::text(format!(
            "Game #{} is drawn by {} (1/2-1/2).",
            loaded.row.id,
            draw_text(reason, loaded.game.start().variant())
        ));
        let mut replies = vec![reply.notifying(opponent)];
        self.after_commit(&mut replies, loaded.row.id, Committed::Ended, msg.now);
        Ok(replies)
    }

    pub(super) fn takeback(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        if loaded.row.bot.is_some() {
            return self.practice_takeback(msg, offer, Some(loaded.row.id));
        }
        if loaded.row.rated || self.store.tournament_of_game(loaded.row.id).map_err(internal)?.is_some() {
            return Err(format!(
                "game #{} is rated or part of a tournament: moves cannot be taken back",
                loaded.row.id
            ));
        }
        let opponent = loaded.player(color.other());
        let pending = loaded.row.takeback_offer;
        match offer {
            Offer::Offer | Offer::Accept if pending == Some(opponent.id) => {
                // Undo the asker's last move: one ply if it was the last move, two if the other has replied.
                let asker_color = color.other();
                let to_move = loaded.game.position().turn();
                let count = if to_move == asker_color { 2 } else { 1 };
                let count = count.min(loaded.row.moves.len());
                if count == 0 {
                    return Err("there is no move to take back".into());
                }
                // Only on the moves it was agreed on: a move that got in first withdrew the request.
                let moves = loaded.row.moves.len();
                if !self
                    .store
                    .take_back(loaded.row.id, moves, count, opponent.id, msg.now)
                    .map_err(internal)?
                {
                    return Err(format!(
                        "{}'s takeback request no longer stands (a move withdrew it, or the game ended)",
                        opponent.name
                    ));
                }
                let now = self.find(msg, Some(loaded.row.id), true)?;
                let mut r = self.board_reply(&now, None, false, msg.now);
                r.text = format!(
                    "Takeback agreed: {count} move{} undone. {}",
                    if count == 1 { "" } else { "s" },
                    status_line(&now, msg.now)
                );
                Ok(vec![r.of_game(loaded.row.id).notifying(opponent)])
            }
            Offer::Accept => Err(format!("{} has not asked for a takeback", opponent.name)),
            Offer::Offer if pending == Some(me.id) => {
                Err(format!("you have already asked; {} has not answered yet", opponent.name))
            }
            // Only your own last move can be taken back: you must have made one.
            Offer::Offer if !has_moved(&loaded, color) => {
                Err("there is no move to take back: you have not moved yet".into())
            }
            Offer::Offer => {
                self.store.set_takeback_offer(loaded.row.id, Some(me.id)).map_err(internal)?;
                let mut reply = Reply::text(format!(
                    "{} asks to take back their last move in game #{}. {}: `!t takeback accept` or `!t takeback decline`.",
                    me.name, loaded.row.id, opponent.name
                ));
                reply.actions = Some(Actions::TakebackOffer(loaded.row.id));
                Ok(vec![reply.of_game(loaded.row.id).notifying(opponent)])
            }
            Offer::Decline if pending == Some(opponent.id) => {
                self.store.set_takeback_offer(loaded.row.id, None).map_err(internal)?;
                let reply = Reply::text(format!("{} declines the takeback.", me.name));
                Ok(vec![reply.of_game(loaded.row.id).notifying(opponent)])
            }
            Offer::Decline => Err("there is no takeback request to decline".into()),
        }
    }
}
