//! Turns: a move read, checked, committed, and what follows its commit.

use super::*;
use conditional::Answer;

impl<S: Store> Service<S> {
    /// Ends a game whose mover ran out of time, storing the notice that says so (posted with the
    /// final board and the game's GIF; both players are named to notify). `Some` if this call
    /// ended it: with `answer`, the notice as replies, held for the caller to post.
    pub(super) fn settle_clock(
        &self,
        loaded: &Loaded,
        now: i64,
        answer: bool,
    ) -> Result<Option<Vec<Reply>>, String> {
        let Some(deadline) = loaded.deadline.filter(|_| loaded.row.result.is_none()) else { return Ok(None) };
        if now < deadline {
            return Ok(None);
        }
        let loser = loaded.game.position().turn();
        let outcome = Outcome::Win { winner: loser.other(), reason: WinReason::Time };
        let text = format!(
            "Game #{}: {} ran out of time. {} ({}).",
            loaded.row.id,
            loaded.player(loser).name,
            outcome,
            outcome.result()
        );
        let notify = vec![loaded.player(loser).user_id.clone(), loaded.player(loser.other()).user_id.clone()];
        let claim = answer.then(|| self.new_claim());
        // The loss on time and the notice saying so, in one transaction: the final board and the
        // GIF are drawn when it is posted.
        let notice = NewNotice {
            kind: NoticeKind::Game,
            subject: Some(loaded.row.id),
            ..NewNotice::text(&loaded.row.platform, &loaded.row.channel, text, notify)
        }
        .claimed(claim.as_ref());
        if !self
            .store
            .time_out(loaded.row.id, loaded.row.last_move_at, outcome.result(), now, &[notice])
            .map_err(internal)?
        {
            // Someone else settled it a moment ago and said so, or a move came in meanwhile.
            return Ok(None);
        }
        self.games.forget(loaded.row.id);
        Ok(Some(claim.map(|c| self.held_replies(&c)).unwrap_or_default()))
    }

    /// Plays `text` in the author's game; `usage` is how they wrote it, for an example that
    /// names the game (`e5 #12`, `!t move e5 #12`).
    pub(super) fn make_move_as(&self, msg: &Incoming, id: GameRef, text: &str, usage: &str) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find_as(msg, id, false, usage)?;
        self.play_turn(msg, &me, loaded, text, None, None)
    }

    /// Plays `text` in a loaded game for `me`: checks, commits, answers with the board. Everything
    /// is worked out once: the game is not read back after the commit but carried forward.
    /// `parsed` (the text read, if it was already) and `games_here` (how many games run in this
    /// channel) are passed where already known.
    pub(super) fn play_turn(
        &self,
        msg: &Incoming,
        me: &Player,
        loaded: Loaded,
        text: &str,
        parsed: Option<notation::ParsedMove>,
        games_here: Option<usize>,
    ) -> Replies {
        if let Some(mut replies) = self.settle_clock(&loaded, msg.now, true)? {
            replies.iter_mut().for_each(|r| r.notify.retain(|id| id != &msg.author.id));
            self.after_commit(&mut replies, loaded.row.id, Committed::TimedOut, msg.now);
            return Ok(replies);
        }
        let Some(my_color) = loaded.color_of(me) else {
            return Err(format!("you are not playing in game #{}", loaded.row.id));
        };
        if let Some(outcome) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {outcome} ({})", loaded.row.id, outcome.result()));
        }
        let pos = loaded.game.position().clone();
        if pos.turn() != my_color {
            return Err(format!(
                "it is {}'s turn ({}), not yours",
                loaded.player(pos.turn()).name,
                pos.turn()
            ));
        }
        // A separate `!` at the end: the player confirms the turn in advance.
        let (text, confirmed) = match text.trim_end().strip_suffix(" !") {
            Some(t) => (t.trim_end(), true),
            None => (text, false),
        };
        let parsed = match parsed {
            Some(parsed) => parsed,
            None => notation::parse(text).map_err(|e| e.in_variant(pos.variant()))?,
        };
        let mv = parsed.resolve(&pos).map_err(|e| e.to_string())?;
        let mut game = loaded.game.clone();
        game.play(mv).map_err(|e| e.to_string())?;
        let ply = loaded.row.moves.len() + 1;
        if !confirmed
            && self.setting_for(me, msg.platform, msg.channel, &SETTINGS[0]) != "off"
            && let Some(danger) = turn_danger(&pos, &mv)
        {
            let id = loaded.row.id;
            self.store.set_pending_turn(me.id, id, Some((ply - 1, text))).map_err(internal)?;
            return Ok(vec![Reply {
                text: format!(
                    "Not played yet: {danger}. To play {} anyway: `!t confirm` (or send it again with ` !` at the \
                     end); `!t settings confirm off` stops these questions.",
                    notation::san(&pos, &mv)
                ),
                // It names the answer that wins against the turn: the opponent must not read it.
                private: true,
                secret: true,
                actions: Some(Actions::Confirm(id)),
                ..Reply::default()
            }]);
        }
        let id = loaded.row.id;
        match self.commit_turn(
            msg,
            me,
            loaded,
            game,
            &pos,
            &mv,
            Some(&parsed.shrink_promotions),
            games_here,
        )? {
            Some(replies) => Ok(replies),
            None => {
                let now = self.find(msg, Some(id), true)?;
                let mut r = self.board_reply(&now, None, false, msg.now);
                r.text = format!(
                    "The position changed before your move arrived; {}. Here is the board now.",
                    status_line(&now, msg.now)
                );
                Ok(vec![r])
            }
        }
    }

    /// Commits `mv`, which turns `pos` into `game`, as `me`'s turn in `loaded`, and answers with
    /// the board: the one path of a person's move and the practice opponent's. `None`, with
    /// nothing changed, when the game moved on or ended since `loaded` was read. `named`: the
    /// promotions the player wrote (a Shrink note names the ones they did not), `None` for the bot.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn commit_turn(
        &self,
        msg: &Incoming,
        me: &Player,
        loaded: Loaded,
        game: Game,
        pos: &Position,
        mv: &Move,
        named: Option<&[(Square, Role)]>,
        games_here: Option<usize>,
    ) -> Result<Option<Vec<Reply>>, String> {
        // Only the player to move moves: callers have checked that `me` is that player.
        let my_color = pos.turn();
        let (san_unmarked, stored_text) = notation::san_and_lan_unmarked(pos, mv);
        let waiting = loaded.player(my_color.other()).id;
        // The opponent's conditional answer, if a line of theirs expected this turn, is stored
        // with it: played once, whichever process stores the turn.
        let mut tries = 0;
        let answer = loop {
            let lines = self.store.conditional_lines(loaded.row.id).map_err(internal)?;
            let (answer, lines) =
                conditional::plan_answer(&lines, loaded.row.moves.len(), waiting, pos, &stored_text, &game);
            let outcome = answer.as_ref().map_or(&game, |a| &a.game).outcome();
            let result = outcome.map(|o| (o.result(), reason_word(o)));
            let mut turns = vec![stored_text.as_str()];
            turns.extend(answer.as_ref().map(|a| a.stored.as_str()));
            // On exactly the moves the mover saw: a takeback and another move since (the bot's
            // search takes seconds) leave as many moves but another position.
            match self
                .store
                .append_turns(loaded.row.id, &loaded.row.moves, &turns, result, &lines, msg.now)
                .map_err(internal)?
            {
                Append::Stored => break answer,
                Append::Conflict => return Ok(None),
                // A line given or cleared meanwhile: plan again with it (each retry means another
                // writer got through, so this ends).
                Append::LinesChanged if tries < 100 => tries += 1,
                Append::LinesChanged => return Ok(None),
            }
        };
        let mine_after = game.clone();
        let (game, answer) = match answer {
            Some(Answer { mv, stored, san, game }) => (game, Some((mv, stored, san))),
            None => (game, None),
        };
        let outcome = game.outcome();
        let result = outcome.map(|o| (o.result(), reason_word(o)));
        // Committed: now it may be acknowledged. The stored row now reads as `after`'s.
        let after = {
            let Loaded { mut row, white, black, .. } = loaded;
            row.moves.push(stored_text);
            row.moves.extend(answer.as_ref().map(|a| a.1.clone()));
            row.last_move_at = msg.now;
            row.reminded = false;
            (row.draw_offer, row.takeback_offer) = (None, None);
            (row.result, row.result_reason) = result.map(|(r, why)| (r.to_string(), why.to_string())).unzip();
            match outcome {
                Some(_) => self.games.forget(row.id),
                None => self.games.put(row.id, &row.start_fen, &row.moves, &game),
            }
            let deadline = if outcome.is_none() { self.deadline_of(&row) } else { None };
            Loaded { row, game, white, black, deadline }
        };
        let id = after.row.id;
        let mark = |game: &Game| match game.outcome() {
            Some(Outcome::Win { reason: WinReason::Checkmate, .. }) => "#",
            _ if game.position().is_check() => "+",
            _ => "",
        };
        let mut text = format!("{} played {san_unmarked}{}.", me.name, mark(&mine_after));
        // With several games in the channel, say which one it went to: the players and everyone
        // reading tell them apart (the bot's moves, posted unasked, most of all).
        let games_here = match games_here {
            Some(n) => n,
            None => {
                self.store.channel_games(msg.platform, msg.channel).map_err(internal)?.len()
                    + usize::from(outcome.is_some())
            }
        };
        if games_here > 1 {
            text = format!("Game #{id}: {text}");
        }
        text.push_str(&shrink_note(pos, mv, mine_after.position()));
        if let Some(named) = named {
            text.push_str(&shrink_promotion_note(pos, mv, named));
        }
        if let Some((answer_mv, _, san)) = &answer {
            text.push_str(&format!(
                " {} answered {san}{} (a conditional turn).",
                after.player(my_color.other()).name,
                mark(&after.game)
            ));
            text.push_str(&shrink_note(mine_after.position(), answer_mv, after.game.position()));
        }
        match outcome {
            Some(o) => text.push_str(&format!(" {o} ({}).", o.result())),
            None => {
                let next = after.game.position().turn();
                match after.row.bot.filter(|b| b.player == after.player(next).id) {
                    Some(b) => text.push_str(&format!(
                        " {} is thinking (level {}, {} at most).",
                        after.player(next).name,
                        b.level,
                        think_time(b.level)
                    )),
                    None => {
                        text.push_str(&format!(" {}, your move ({next}).", after.player(next).name));
                        // A draw is claimed by the player to move; the bot does not claim.
                        if let Some(reason) = after.game.claimable_draw() {
                            text.push_str(&format!(
                                " You may claim a draw ({}): `!t claim`.",
                                draw_text(reason, after.game.start().variant())
                            ));
                        }
                    }
                }
            }
        }
        let last = match &answer {
            Some((answer_mv, _, _)) => (mine_after.position(), answer_mv),
            None => (pos, mv),
        };
        let mut reply = self.board_reply(&after, Some(last), false, msg.now);
        reply.text = text;
        let other = after.player(my_color.other());
        // The bot needs no ping to move: its worker is told below. A conditional answer leaves
        // the move with the author, who is reading.
        if after.row.bot.is_none_or(|b| b.player != other.id) && answer.is_none() {
            reply = reply.notifying(other);
        }
        // The player to move's and the spectators' direct messages, as they asked for them.
        let mut played = format!("{san_unmarked}{}", mark(&mine_after));
        if let Some((_, _, san)) = &answer {
            played.push_str(&format!(
                ", and {} answered {san}{} (a conditional turn)",
                after.player(my_color.other()).name,
                mark(&after.game)
            ));
        }
        reply.direct.extend(self.turn_words(&after, me, &played, msg.now));
        let mut replies = vec![reply];
        let next = after.player(after.game.position().turn()).id;
        let change = match outcome {
            Some(_) => Committed::Ended,
            None => Committed::GoesOn { bot_to_move: after.row.bot.is_some_and(|b| b.player == next) },
        };
        self.after_commit(&mut replies, id, change, msg.now);
        Ok(Some(replies))
    }
}

/// Shrink Chess: which ranks and files the move made vanish, the board's new size, and that every
/// piece beyond a vanished line was renamed towards a1, once, with one of them for an example (the
/// moved piece where it is one).
pub(super) fn shrink_note(before: &Position, mv: &tessera_rules::Move, after: &Position) -> String {
    use tessera_rules::Action;
    let (files, ranks) = before.vanishing_lines(mv);
    if files.is_empty() && ranks.is_empty() {
        return String::new();
    }
    let ordinal = |n: u8| match n {
        1 => "1st".to_string(),
        2 => "2nd".to_string(),
        3 => "3rd".to_string(),
        n => format!("{n}th"),
    };
    let mut gone: Vec<String> = files.iter().map(|&f| format!("the {}-file", (b'a' + f) as char)).collect();
    gone.extend(ranks.iter().map(|&r| format!("the {} rank", ordinal(r + 1))));
    let verb = if gone.len() == 1 { "vanished" } else { "vanish" };
    let (w, h) = after.size();
    let mut note = format!(" {} {verb}: the board is now {w}×{h}", gone.join(" and "));
    // Where each piece now standing stood before the board closed up.
    let (bw, bh) = before.size();
    let kept_files: Vec<u8> = (0..bw).filter(|f| !files.contains(f)).collect();
    let kept_ranks: Vec<u8> = (0..bh).filter(|r| !ranks.contains(r)).collect();
    let renamed: Vec<(Square, Square)> = after
        .occupied()
        .into_iter()
        .filter_map(|now| {
            let was = Square::from_coords(
                *kept_files.get(now.file() as usize)?,
                *kept_ranks.get(now.rank() as usize)?,
            );
            (was != now).then_some((was, now))
        })
        .collect();
    let moved_to = match mv.first() {
        Action::Normal { to, .. } | Action::EnPassant { to, .. } => Some(to),
        _ => None,
    };
    // An example the reader knows: the moved piece, else one that stood there before the move
    // (not a pawn a shrink promoted), the mover's strongest first.
    let mover = before.turn();
    let rank_of = |sq: Square| {
        let piece = after.piece_at(sq);
        let order = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::King, Role::Pawn];
        let strength = piece.map_or(9, |p| order.iter().position(|&r| r == p.role).unwrap_or(9));
        (piece.is_some_and(|p| p.color != mover), strength)
    };
    let example = renamed.iter().find(|(was, _)| Some(*was) == moved_to).or_else(|| {
        renamed
            .iter()
            .filter(|&&(was, now)| {
                before.piece_at(was).is_some() && before.piece_at(was) == after.piece_at(now)
            })
            .min_by_key(|&&(_, now)| rank_of(now))
    });
    if let Some(&(was, now)) = example {
        let beyond = match (files.len(), ranks.len()) {
            (0, 1) => "the ranks above it moved down one",
            (0, _) => "the ranks above them moved down",
            (1, 0) => "the files right of it moved left one",
            (_, 0) => "the files right of them moved left",
            _ => "the lines beyond them moved towards a1",
        };
        let role = after.piece_at(now).map_or("piece", |p| p.role.name());
        note.push_str(&format!(
            ", and {beyond}: every piece there was renamed (the {role} on {was} is now on {now})"
        ));
    }
    note.push('.');
    note
}

/// Why a turn deserves a second thought before it is played, if it does: it leaves out an action
/// the turn could still take, or the opponent can answer it so that the mover has no legal turn,
/// which loses where stalemate does (L8).
pub(super) fn turn_danger(pos: &Position, mv: &Move) -> Option<String> {
    if let Some(longer) = pos.longer_turn(mv) {
        return Some(format!(
            "this turn could take one more action, as `{}` does",
            notation::san(pos, &longer)
        ));
    }
    if let Some((after, answer)) = pos.stalemating_answer(mv) {
        return Some(format!(
            "{} can answer {} and leave you no legal turn, which loses",
            pos.turn().other(),
            notation::san(&after, &answer)
        ));
    }
    None
}

pub(crate) fn reason_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win { reason: WinReason::Checkmate, .. } => "checkmate",
        Outcome::Win { reason: WinReason::Stalemate, .. } => "stalemate",
        Outcome::Win { reason: WinReason::Resignation, .. } => "resignation",
        Outcome::Win { reason: WinReason::Time, .. } => "time",
        Outcome::Win { reason: WinReason::Forfeit, .. } => "forfeit",
        Outcome::Draw { reason } => draw_name(reason),
    }
}

/// Shrink Chess: what the reply says of each pawn the move's shrink promoted without the player
/// naming a piece (S6): a queen, or the first piece that would not leave their king in check.
pub(super) fn shrink_promotion_note(pos: &Position, mv: &Move, named: &[(Square, Role)]) -> String {
    let mut text = String::new();
    for (sq, role) in pos.shrink_promotions(mv).iter().filter(|(s, _)| !named.iter().any(|(n, _)| n == s)) {
        let why = if *role == Role::Queen {
            String::new()
        } else {
            let unsafe_pieces: Vec<&str> =
                Role::PROMOTIONS.iter().take_while(|r| *r != role).map(|r| r.name()).collect();
            format!(", and a {} there would leave your king in check", unsafe_pieces.join(" or "))
        };
        text.push_str(&format!(
            " The pawn on {sq} became a {} (no piece was named{why}; write [{sq}=N] to choose).",
            role.name()
        ));
    }
    text
}
