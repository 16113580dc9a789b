//! The board picture and the legal-move list a player asks for.

use super::*;

impl<S: Store> Service<S> {
    /// The board as the player to move prefers to see it (`!t settings board`).
    pub(super) fn board_reply(
        &self,
        loaded: &Loaded,
        last: Option<(&Position, &tessera_rules::Move)>,
        flip: bool,
        now: i64,
    ) -> Reply {
        self.board_reply_for(loaded, last, flip, None, now)
    }

    /// The board as `viewer` (else the player to move) prefers to see it: from their own side,
    /// from the side to move (the default), or always from White; `flip` turns it round.
    pub(super) fn board_reply_for(
        &self,
        loaded: &Loaded,
        last: Option<(&Position, &tessera_rules::Move)>,
        flip: bool,
        viewer: Option<&Player>,
        now: i64,
    ) -> Reply {
        let pos = loaded.game.position();
        let view = match last {
            Some(l) => BoardView::new(pos, Some(l)),
            None => self.last_move_view(loaded),
        };
        // A practice game is always seen as its person sees it: never from the bot's side while
        // it thinks.
        let person = loaded.row.bot.and_then(|b| {
            [Color::White, Color::Black].into_iter().find(|&c| loaded.player(c).id != b.player)
        });
        let who = match person {
            Some(c) => loaded.player(c),
            None => viewer.unwrap_or_else(|| loaded.player(pos.turn())),
        };
        let (platform, channel) = (&loaded.row.platform, &loaded.row.channel);
        let side = match (self.setting_for(who, platform, channel, &SETTINGS[1]).as_str(), person) {
            ("white", _) => Color::White,
            (_, Some(c)) => c,
            ("mine", None) => loaded.color_of(who).unwrap_or(pos.turn()),
            _ => pos.turn(),
        };
        let from_black = (side == Color::Black) != flip;
        let theme =
            self.setting_for(who, platform, channel, &SETTINGS[2]).parse().unwrap_or(self.render.theme);
        let coordinates = self.setting_for(who, platform, channel, &SETTINGS[3]) == "on";
        let opts = RenderOptions {
            flip: from_black,
            theme,
            coordinates,
            caption: Some(caption(loaded, now)),
            ..self.render.clone()
        };
        let image = tessera_render::render_png(&view, &opts).ok();
        let diagram =
            tessera_render::diagram::text_diagram(pos, if from_black { Color::Black } else { Color::White });
        let actions = loaded.game.outcome().is_none().then_some(Actions::Game(loaded.row.id));
        Reply { text: status_line(loaded, now), image, diagram: Some(diagram), actions, ..Reply::default() }
    }

    pub(super) fn last_move_view(&self, loaded: &Loaded) -> BoardView {
        let moves = loaded.game.moves();
        let pos = loaded.game.position();
        match moves.last() {
            Some(mv) => {
                let mut before = loaded.game.start().clone();
                for m in &moves[..moves.len() - 1] {
                    before.play_unchecked(m);
                }
                BoardView::new(pos, Some((&before, mv)))
            }
            None => BoardView::new(pos, None),
        }
    }

    pub(super) fn board(&self, msg: &Incoming, id: GameRef, flip: bool) -> Replies {
        let loaded = self.find(msg, id, true)?;
        if let Some(mut replies) = self.settle_clock(&loaded, msg.now, true)? {
            // It shows the final board.
            replies.iter_mut().for_each(|r| r.notify.retain(|id| id != &msg.author.id));
            self.after_commit(&mut replies, loaded.row.id, Committed::TimedOut, msg.now);
            return Ok(replies);
        }
        let mut replies = Vec::new();
        let me = self.me(msg).ok();
        replies.push(self.board_reply_for(&loaded, None, flip, me.as_ref(), msg.now));
        Ok(replies)
    }

    /// The legal turns, grouped by what begins them (see [`turn_list`]).
    pub(super) fn legal_moves(&self, msg: &Incoming, id: GameRef, start: Option<&str>) -> Replies {
        let loaded = self.find(msg, id, true)?;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {o}", loaded.row.id));
        }
        Ok(vec![Reply::text(turn_list::legal_turns(loaded.game.position(), loaded.row.id, start)?)])
    }
}

/// What the picture shows around the board: the names, the clock of the side to move where the
/// game has one, and the result of a finished game.
pub(super) fn caption(l: &Loaded, now: i64) -> Caption {
    let result = l.game.outcome().map(|o| {
        let winner = match o {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        };
        (winner, o.to_string())
    });
    let mut clocks = [None, None];
    if let (None, Some(deadline)) = (&result, l.deadline) {
        let turn = l.game.position().turn();
        clocks[turn.index()] = Some(time_left(deadline - now));
    }
    Caption { names: [l.white.name.clone(), l.black.name.clone()], clocks, result }
}
