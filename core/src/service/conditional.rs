//! Conditional turns: "if my opponent plays e5, I answer Nf3; if then Nc6, Bb5". A player plans
//! lines while the opponent is to move; the bot plays the planned answer in the transaction that
//! stores the opponent's turn, and drops every line the game leaves. Lines are private: they are
//! shown to their owner alone, and every answer about them is secret.

use super::turns::turn_danger;
use super::*;
use crate::model::{ConditionalLine, LinesAfter, PlayerId};

/// Lines one player may keep in one game, and turns in one line: a tree of fifty lines is a
/// correspondence player's whole preparation; more is a mistake or an attack.
const MAX_LINES: usize = 50;
const MAX_LINE_TURNS: usize = 40;

/// The planned answer to the turn just made, as [`plan_answer`] finds it.
pub(super) struct Answer {
    pub mv: Move,
    /// As the game stores it.
    pub stored: String,
    /// As the reply says it.
    pub san: String,
    /// The game after the answer.
    pub game: Game,
}

/// What the turn `played` (stored text; it turned `before` into `after`) does to the game's
/// `lines`, which were read with the game at `moves` moves: the answer planned by `waiting` (the
/// player not moving) if one of their lines expected the turn, and the lines that live on.
pub(super) fn plan_answer(
    lines: &[ConditionalLine],
    moves: usize,
    waiting: PlayerId,
    before: &Position,
    played: &str,
    after: &Game,
) -> (Option<Answer>, LinesAfter) {
    let mut plan = LinesAfter { seen: lines.iter().map(|l| l.id).collect(), kept: Vec::new() };
    if after.outcome().is_some() {
        return (None, plan);
    }
    let expected = |line: &ConditionalLine| {
        let first = &line.turns[0];
        // A compound turn's actions may be written in another order to the same effect: the
        // position decides.
        first == played
            || ((first.contains(' ') || played.contains(' '))
                && notation::parse(first)
                    .ok()
                    .and_then(|p| p.resolve(before).ok())
                    .is_some_and(|m| before.played(&m) == *after.position()))
    };
    let matched: Vec<&ConditionalLine> = lines
        .iter()
        .filter(|l| l.player == waiting && l.from_ply == moves && l.turns.len() >= 2)
        .filter(|l| expected(l))
        .collect();
    let Some(first) = matched.first() else { return (None, plan) };
    let text = &first.turns[1];
    let mut game = after.clone();
    let Ok(mv) = game.play_text(text) else {
        // Checked when it was given, so the rules changed since: drop the line, play nothing.
        tracing::warn!(line = first.id, "a conditional answer no longer plays: {text}");
        return (None, plan);
    };
    let (san, stored) = notation::san_and_lan_unmarked(after.position(), &mv);
    if game.outcome().is_none() {
        plan.kept = matched
            .iter()
            .filter(|l| &l.turns[1] == text && l.turns.len() > 2)
            .map(|l| (l.id, moves + 2, l.turns[2..].to_vec()))
            .collect();
    }
    (Some(Answer { mv, stored, san, game }), plan)
}

impl<S: Store> Service<S> {
    /// `!t conditional`: shows the author's lines in a game, clears them, or adds one. Every
    /// answer is secret, errors included: a refusal would name the planned turns.
    pub(super) fn conditional(&self, msg: &Incoming, id: GameRef, line: Option<&str>) -> Vec<Reply> {
        let answer = self.conditional_unsealed(msg, id, line);
        answer
            .unwrap_or_else(|e| vec![Reply::error(e)])
            .into_iter()
            .map(|r| Reply { private: true, secret: true, ..r })
            .collect()
    }

    fn conditional_unsealed(&self, msg: &Incoming, id: GameRef, line: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.conditional_game(msg, &me, id)?;
        let game_id = loaded.row.id;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{game_id} is over: {o} ({})", o.result()));
        }
        let Some(my_color) = loaded.color_of(&me) else {
            return Err(format!("you are not playing in game #{game_id}"));
        };
        let lines = self.store.conditional_lines(game_id).map_err(internal)?;
        let moves = loaded.row.moves.len();
        let mine: Vec<&ConditionalLine> =
            lines.iter().filter(|l| l.player == me.id && l.from_ply == moves).collect();
        let seen: Vec<i64> = lines.iter().map(|l| l.id).collect();
        // Lines of mine the game has left (a takeback drops them too; this is the rest).
        let stale: Vec<i64> =
            lines.iter().filter(|l| l.player == me.id && l.from_ply != moves).map(|l| l.id).collect();
        let pos = loaded.game.position();
        let words = line.unwrap_or_default().trim();
        // Typed where games are played, the message itself is read by everyone there: lines are
        // given in a direct message or by the slash command and its form, never saved from here.
        let typed = commands::PREFIXES.iter().any(|p| msg.text.trim_start().to_lowercase().starts_with(p));
        if typed && !self.store.channel_games(msg.platform, msg.channel).map_err(internal)?.is_empty() {
            return Err(format!(
                "conditional turns are private: write them to me in a direct message (`!t conditional \
                 #{game_id} e5 Nf3`) or use `/conditional`, where only you see them; here your opponent \
                 could read them. Nothing was saved or shown"
            ));
        }
        if words.is_empty() {
            return Ok(vec![Reply::text(self.lines_text(&loaded, pos, &mine))]);
        }
        if words.eq_ignore_ascii_case("clear") {
            let drop: Vec<i64> = mine.iter().map(|l| l.id).chain(stale).collect();
            if !self
                .store
                .change_conditional_lines(game_id, me.id, &loaded.row.moves, &seen, &[], &drop, msg.now)
                .map_err(internal)?
            {
                return Err(format!("game #{game_id} changed while I was clearing; say it again"));
            }
            return Ok(vec![Reply::text(format!(
                "Cleared: no conditional turns of yours in game #{game_id} ({} removed).",
                mine.len()
            ))]);
        }
        if pos.turn() == my_color {
            return Err(format!(
                "it is your turn in game #{game_id}: conditional turns answer your opponent's next turn, so play \
                 yours first (then `!t conditional #{game_id} e5 Nf3` plans: if they play e5, you play Nf3)"
            ));
        }
        let (text, confirmed) = match words.strip_suffix(" !") {
            Some(t) => (t.trim_end(), true),
            None => (words, false),
        };
        let turns = tessera_rules::read_turns(pos, text).map_err(|e| match e {
            tessera_rules::ReplayError::Move { ply, text, error } => {
                let whose = if ply % 2 == 1 { "your opponent's" } else { "your" };
                format!("turn {ply} of the line, {whose} `{text}`, cannot be played there: {error}")
            }
            other => other.to_string(),
        })?;
        if turns.is_empty() {
            return Err(format!(
                "write the turns in order, theirs first: `!t conditional #{game_id} e5 Nf3`"
            ));
        }
        if turns.len() % 2 == 1 {
            return Err(format!(
                "a line ends with your answer: after their `{}`, say what you play",
                text.split_whitespace().last().unwrap_or_default()
            ));
        }
        if turns.len() > MAX_LINE_TURNS {
            return Err(format!("a line holds at most {MAX_LINE_TURNS} turns; yours has {}", turns.len()));
        }
        // Each turn as stored, and the losing-turn trap checked on each of my answers.
        let mut at = pos.clone();
        let mut stored = Vec::with_capacity(turns.len());
        for (i, mv) in turns.iter().enumerate() {
            if i % 2 == 1
                && !confirmed
                && self.setting_for(&me, &loaded.row.platform, &loaded.row.channel, &SETTINGS[0]) != "off"
                && let Some(danger) = turn_danger(&at, mv)
            {
                return Ok(vec![Reply::text(format!(
                    "Not saved yet: your answer {} (turn {} of the line): {danger}. To save the line anyway, send it \
                     again with ` !` at the end.",
                    notation::san(&at, mv),
                    i + 1
                ))]);
            }
            stored.push(notation::san_and_lan_unmarked(&at, mv).1);
            at = at.played(mv);
        }
        // Merged into the tree: a line this one extends goes; one that answers a turn of theirs
        // differently is replaced; one this repeats leaves nothing to do.
        let mut drop = stale;
        let mut replaced = Vec::new();
        for old in &mine {
            let same = old.turns.iter().zip(&stored).take_while(|(a, b)| a == b).count();
            if same == stored.len() {
                return Ok(vec![Reply::text(format!(
                    "That line is already planned in game #{game_id}.\n{}",
                    self.lines_text(&loaded, pos, &mine)
                ))]);
            }
            if same == old.turns.len() || same % 2 == 1 {
                drop.push(old.id);
                if same % 2 == 1 {
                    replaced.push(self.line_words(pos, &old.turns));
                }
            }
        }
        if mine.len() - drop.iter().filter(|d| mine.iter().any(|l| l.id == **d)).count() >= MAX_LINES {
            return Err(format!(
                "you have {MAX_LINES} lines in game #{game_id}, the most there may be; clear some with \
                 `!t conditional #{game_id} clear`"
            ));
        }
        if !self
            .store
            .change_conditional_lines(
                game_id,
                me.id,
                &loaded.row.moves,
                &seen,
                &[stored.clone()],
                &drop,
                msg.now,
            )
            .map_err(internal)?
        {
            return Err(format!("game #{game_id} moved on while I was saving; look at it and plan again"));
        }
        let mut text =
            format!("Saved for game #{game_id} (only you see it): {}.", self.line_words(pos, &stored));
        if !replaced.is_empty() {
            text.push_str(&format!(" It replaces: {}.", replaced.join("; ")));
        }
        let now = self.store.conditional_lines(game_id).map_err(internal)?;
        let mine: Vec<&ConditionalLine> =
            now.iter().filter(|l| l.player == me.id && l.from_ply == moves).collect();
        text.push('\n');
        text.push_str(&self.lines_text(&loaded, pos, &mine));
        Ok(vec![Reply::text(text)])
    }

    /// The game a conditional line is for: named, from any channel of its platform (a direct
    /// message keeps the plan from the opponent's eyes), if the author plays in it; else the
    /// author's only game here.
    fn conditional_game(&self, msg: &Incoming, me: &Player, id: GameRef) -> Result<Loaded, String> {
        let Some(id) = id else { return self.find(msg, None, false) };
        let row = self.store.game(id).map_err(internal)?.filter(|g| g.platform == msg.platform);
        match row {
            Some(row) if row.white == me.id || row.black == me.id => self.load(row),
            // Someone else's game: not even whether it exists.
            _ => Err(format!("you have no game #{id}")),
        }
    }

    /// A line as the reply says it: "if e5, you answer Nf3; then if Nc6, Bb5".
    fn line_words(&self, pos: &Position, turns: &[String]) -> String {
        let mut at = pos.clone();
        let mut said = Vec::new();
        for pair in turns.chunks(2) {
            let mut words = Vec::new();
            for text in pair {
                match notation::parse(text).ok().and_then(|p| p.resolve(&at).ok()) {
                    Some(mv) => {
                        words.push(notation::san(&at, &mv));
                        at = at.played(&mv);
                    }
                    None => words.push(text.clone()),
                }
            }
            let answer = words.get(1).cloned().unwrap_or_default();
            said.push(if said.is_empty() {
                format!("if they play {}, you answer {answer}", words[0])
            } else {
                format!("then if {}, {answer}", words[0])
            });
        }
        said.join("; ")
    }

    /// The author's lines in a game, one a line, with how to change them.
    fn lines_text(&self, loaded: &Loaded, pos: &Position, mine: &[&ConditionalLine]) -> String {
        let id = loaded.row.id;
        if mine.is_empty() {
            return format!(
                "You have no conditional turns in game #{id}. Plan some like `!t conditional #{id} e5 Nf3 Nc6 Bb5` \
                 (their turn first, then your answer): I play your answer the moment they play the turn you expected."
            );
        }
        let mut text = format!("Your conditional turns in game #{id} (only you see them):");
        for (i, line) in mine.iter().enumerate() {
            text.push_str(&format!("\n{}. {}", i + 1, self.line_words(pos, &line.turns)));
        }
        text.push_str(&format!("\n`!t conditional #{id} clear` removes them."));
        text
    }
}
