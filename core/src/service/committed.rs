//! The one step every committed change to a game goes through before it is acknowledged: the
//! finished game's animation, its tournament moved on, the practice opponent's turn queued. A
//! handler stores its change, writes its own reply, then hands both here; nothing that follows a
//! commit is done anywhere else.

use super::*;

/// What a committed change did to its game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Committed {
    /// A turn was played or the game begun, and it goes on; `bot_to_move` when the practice
    /// opponent is to move next.
    GoesOn { bot_to_move: bool },
    /// The game ended by play, resignation or agreement: the answer gets its animation.
    Ended,
    /// The game was found lost on time while answering: the answer already shows its final board.
    TimedOut,
}

impl<S: Store> Service<S> {
    /// Completes the answer to a committed change of `game`.
    pub(super) fn after_commit(&self, replies: &mut Vec<Reply>, game: GameId, change: Committed, now: i64) {
        // The handler's answer announces the change (a tournament's news added below does not).
        for reply in replies.iter_mut() {
            reply.game.get_or_insert(game);
        }
        match change {
            Committed::GoesOn { bot_to_move } => {
                if bot_to_move {
                    // Committed and acknowledged: the bot's answer is the worker's, off this thread.
                    self.practice.push(crate::queue::Job::Turn(game));
                } else if self.write_turns_ahead {
                    // A compound-turn position has tens of thousands of turns: written off this
                    // thread now, not at the next player's first keystroke.
                    self.turns_ahead.push(game);
                }
            }
            Committed::Ended => {
                if let Some(first) = replies.first_mut() {
                    first.animation = self.game_gif(game);
                }
                self.tournament_after_game(replies, game, now);
            }
            Committed::TimedOut => self.tournament_after_game(replies, game, now),
        }
    }
}
