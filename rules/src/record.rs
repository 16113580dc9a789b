//! Game records: PGN-like text with headers, move numbers, comments and a result, read here, and
//! written here too ([`Game::record`]: SAN for FIDE chess, the authors' notation for variants).
//!
//! Tolerated and skipped: `[Tag "value"]` headers (the `Variant`, `FEN` and `Result` tags are read),
//! move numbers (`1.`, `1...`, `1.e4`), comments in braces or after `;`, variations in
//! parentheses, numeric annotation glyphs (`$1`). What is left is one move text per token.

use std::fmt;

use crate::Move;
use crate::game::{Game, Outcome, PlayError, WinReason};
use crate::notation;
use crate::position::Position;
use crate::text::PositionError;
use crate::types::Color;
use crate::variant::TurnRule;
use crate::variant::Variant;

/// A record split into its parts, not yet played.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub headers: Vec<(String, String)>,
    /// Move texts, one action each; a turn of several actions spans several tokens.
    pub moves: Vec<RecordToken>,
    /// The result token that closes the record, if any (`1-0`, `0-1`, `1/2-1/2`).
    pub result: Option<String>,
}

/// One move text of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordToken {
    pub text: String,
    /// A move number stood right before it (`12.` or `12...`): it starts a turn.
    pub numbered: bool,
}

impl Record {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Why a record could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    Syntax(String),
    StartPosition(PositionError),
    /// The move at `ply` (1-based) could not be played.
    Move {
        ply: usize,
        text: String,
        error: PlayError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Syntax(msg) => write!(f, "cannot read the record: {msg}"),
            ReplayError::StartPosition(e) => write!(f, "bad start position: {e}"),
            ReplayError::Move { ply, text, error } => write!(f, "ply {ply} ({text}): {error}"),
        }
    }
}

impl std::error::Error for ReplayError {}

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

/// Splits a record into headers, move texts and result.
pub fn parse_record(text: &str) -> Result<Record, ReplayError> {
    // A file saved by some editors starts with a byte-order mark: not part of the record.
    let text = text.trim_start_matches('\u{feff}');
    let mut record = Record::default();
    let mut body = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some((name, value)) = header_line(trimmed) {
            record.headers.push((name, value));
        } else if !trimmed.starts_with('%') {
            body.push_str(line);
            body.push('\n');
        }
    }

    let mut chars = body.chars().peekable();
    let mut token = String::new();
    let mut tokens = Vec::new();
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                if !chars.by_ref().any(|c| c == '}') {
                    return Err(ReplayError::Syntax("a comment opened with { is never closed".into()));
                }
                flush(&mut token, &mut tokens, depth);
            }
            ';' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                flush(&mut token, &mut tokens, depth);
            }
            // `Nd7xM1(P)`: a capture choice written right after a move, not a variation.
            '(' if !token.is_empty() && capture_choice_follows(&chars) => {
                token.push('(');
                token.extend(chars.by_ref().take(2));
            }
            '(' => {
                flush(&mut token, &mut tokens, depth);
                depth += 1;
            }
            // `12)` is an old-style move number, not the end of a variation.
            ')' if depth == 0 && !token.is_empty() && token.chars().all(|c| c.is_ascii_digit()) => {
                token.push(')');
                flush(&mut token, &mut tokens, depth);
            }
            ')' => {
                flush(&mut token, &mut tokens, depth);
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| ReplayError::Syntax("a ) closes no variation".into()))?;
            }
            c if c.is_whitespace() => flush(&mut token, &mut tokens, depth),
            c => token.push(c),
        }
    }
    flush(&mut token, &mut tokens, depth);
    if depth > 0 {
        return Err(ReplayError::Syntax("a variation opened with ( is never closed".into()));
    }

    let mut numbered = false;
    for token in tokens {
        let stripped = strip_move_number(&token);
        if stripped.len() != token.len() {
            numbered = true;
        }
        let token = stripped;
        if token.is_empty() || token.starts_with('$') {
            continue;
        }
        if is_commentary(token) {
            continue;
        }
        if is_result(token) {
            record.result = Some(token.replace('½', "1/2")).filter(|r| r != "*");
            continue;
        }
        if record.result.is_some() {
            return Err(ReplayError::Syntax(format!("\"{token}\" comes after the result")));
        }
        record.moves.push(RecordToken { text: token.to_string(), numbered: std::mem::take(&mut numbered) });
    }
    if record.result.is_none() {
        record.result = record.header("Result").filter(|r| is_result(r) && *r != "*").map(str::to_string);
    }
    Ok(record)
}

/// Words that annotators write between moves and that name no move ("e.p.", "White resigns").
fn is_commentary(token: &str) -> bool {
    const WORDS: [&str; 14] = [
        "e.p.",
        "ep",
        "resigns",
        "resign",
        "resigned",
        "white",
        "black",
        "wins",
        "won",
        "draw",
        "drawn",
        "agreed",
        "mate",
        "stalemate",
    ];
    let word = token.trim_matches(|c: char| c == '.' || c == ',' || c == '!' || c == '?');
    WORDS.iter().any(|w| word.eq_ignore_ascii_case(w)) || token.eq_ignore_ascii_case("e.p.")
}

fn flush(token: &mut String, tokens: &mut Vec<String>, depth: usize) {
    if !token.is_empty() {
        if depth == 0 {
            tokens.push(std::mem::take(token));
        } else {
            token.clear();
        }
    }
}

/// `[Name "value"]`, the only header form; other bracketed text is left to the moves.
fn header_line(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then(|| (name.to_string(), value.replace("\\\"", "\"")))
}

/// Removes a leading move number: `12.`, `12...`, `12.e4`, `12)` → `e4`.
fn strip_move_number(token: &str) -> &str {
    let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && token[digits..].starts_with(['.', ')']) {
        token[digits..].trim_start_matches(['.', ')'])
    } else {
        token
    }
}

/// The result of replaying a record.
#[derive(Clone, Debug)]
pub struct Replay {
    pub game: Game,
    pub record: Record,
}

impl Replay {
    /// The game's result: by the rules if the board decided it, else what the record states
    /// (a resignation or agreed draw), else none.
    pub fn result(&self) -> Option<String> {
        self.game.outcome().map(|o| o.result().to_string()).or_else(|| self.record.result.clone())
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }
}

/// Whether the text after a `(` is a piece letter and `)`: Quad-Square's capture choice.
fn capture_choice_follows(rest: &std::iter::Peekable<std::str::Chars>) -> bool {
    let mut ahead = rest.clone();
    matches!((ahead.next(), ahead.next()), (Some('K' | 'Q' | 'R' | 'B' | 'N' | 'P'), Some(')')))
}

/// Plays a record from the variant's start position (or its `FEN` header), stopping at the first bad move.
pub fn replay(variant: Variant, text: &str) -> Result<Replay, ReplayError> {
    let record = parse_record(text)?;
    let start = match record.header("FEN") {
        Some(fen) => Position::from_fen(variant, fen).map_err(ReplayError::StartPosition)?,
        None => Position::start(variant),
    };
    let mut game = Game::new(start);
    play_tokens(&mut game, &record.moves)?;
    Ok(Replay { game, record })
}

/// Reads turns written one after another from `start` (a conditional line: `e5 Nf3 Nc6 Bb5`,
/// `@@e5 Ng1-f3 @e2-e4`), grouping a compound turn's actions as a record's are: a square action
/// joins the turn before it while that turn can take it, and a move number starts a new turn.
/// Each turn must be legal where it is played; the error names the first that is not.
pub fn read_turns(start: &Position, text: &str) -> Result<Vec<Move>, ReplayError> {
    let record = parse_record(text)?;
    if !record.headers.is_empty() || record.result.is_some() {
        return Err(ReplayError::Syntax("only turns, one after another, like `e5 Nf3 Nc6 Bb5`".into()));
    }
    let mut game = Game::new(start.clone());
    play_tokens(&mut game, &record.moves)?;
    Ok(game.moves().to_vec())
}

/// Plays a record's move texts on `game`, a compound turn's actions grouped into one turn.
fn play_tokens(game: &mut Game, moves: &[RecordToken]) -> Result<(), ReplayError> {
    let mut tokens = moves.iter().peekable();
    let mut ply = 0;
    // The turn just played, and the position before it, to explain a square action it could not take.
    let mut last: Option<(usize, String, Position)> = None;
    while let Some(first) = tokens.next() {
        ply += 1;
        let mut turn = first.text.clone();
        let split_off = !first.numbered
            && first.text.starts_with('@')
            && game.position().rules().turn != TurnRule::Single;
        // A square action joins the turn before it while that turn can take it (L15); a move
        // number, or an action the turn cannot take, starts the next turn.
        if game.position().rules().turn != TurnRule::Single {
            while let Some(next) = tokens.peek() {
                let longer = format!("{turn} {}", next.text);
                let joins = next.text.starts_with('@') || next.text.starts_with('[');
                if next.numbered || !joins || !turn_can_start_with(game.position(), &longer) {
                    break;
                }
                turn = longer;
                tokens.next();
            }
        }
        let before = game.position().clone();
        if let Err(error) = game.play_text(&turn) {
            // A square action the turn before could not take was read as the next player's turn;
            // if it fails there too, what the writer meant was the longer turn: say why that fails.
            if let Some((last_ply, last_text, last_pos)) = last.filter(|_| split_off) {
                let longer = format!("{last_text} {turn}");
                if let Err(error) = notation::parse_move(&last_pos, &longer) {
                    return Err(ReplayError::Move {
                        ply: last_ply,
                        text: longer,
                        error: PlayError::Move(error),
                    });
                }
            }
            return Err(ReplayError::Move { ply, text: turn, error });
        }
        last = Some((ply, turn, before));
    }
    Ok(())
}

/// The moves of `game` as a record ([`Game::record`]): SAN for FIDE chess, so that other chess
/// programs read it (`1. e4 e5 2. Nf3`); the long notation of the variants' authors for every
/// variant (`1. @@f3 @@f6 2. Ng1-f3`). Black's turn carries a number of its own (`3... @a4-c3`)
/// only where it must: as the game's first turn, or where its opening square action would
/// otherwise be read as the end of White's turn before it. Blue Chip's opening chip, placed
/// before White's first move, stands before `1.` unnumbered (`[e5] 1. e2-e4[d5]`).
pub(crate) fn write_moves(game: &Game) -> String {
    let mut out = String::new();
    for ply in written_plies(game) {
        if let Some(label) = &ply.label {
            out.push_str(label);
            out.push(' ');
        }
        out.push_str(&ply.text);
        out.push(' ');
    }
    out.push_str(game.outcome().map_or("*", |o| o.result()));
    out
}

/// One ply as the record writes it: the move number before it, where the record writes one
/// (`12.`, `12...`), and the move in the record's notation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WrittenPly {
    pub label: Option<String>,
    pub text: String,
}

/// The game's plies as [`Game::record`] writes them: SAN for FIDE chess, the variants' long
/// notation otherwise, numbered where the record numbers them (a Black turn after a White one is
/// numbered again only where [`replay`] would otherwise join it to White's).
pub fn written_plies(game: &Game) -> Vec<WrittenPly> {
    let san = game.start().variant() == Variant::CHESS;
    let mut pos = game.start().clone();
    let mut plies = Vec::with_capacity(game.moves().len());
    // White's turn just written, and the position it was played from.
    let mut last: Option<(String, Position)> = None;
    for (i, mv) in game.moves().iter().enumerate() {
        let text = if san { notation::san(&pos, mv) } else { notation::lan(&pos, mv) };
        let after = pos.played(mv);
        let label = if pos.turn() == Color::White {
            Some(format!("{}.", pos.fullmoves()))
        } else if i == 0 {
            // A turn that does not count as a move (the opening chip) comes before move 1.
            (after.fullmoves() != pos.fullmoves()).then(|| format!("{}...", pos.fullmoves()))
        } else if let Some((white, before)) = &last
            && would_join(before, white, &text)
        {
            Some(format!("{}...", pos.fullmoves()))
        } else {
            None
        };
        last = (pos.turn() == Color::White).then(|| (text.clone(), pos.clone()));
        plies.push(WrittenPly { label, text });
        pos = after;
    }
    plies
}

/// Whether [`replay`] would read the first action of `next`, written unnumbered after the turn
/// `turn` played from `pos`, as part of that turn: it joins a square action (or a chip) to the
/// turn before it while that turn can take it.
fn would_join(pos: &Position, turn: &str, next: &str) -> bool {
    let first = next.split(' ').next().unwrap_or_default();
    pos.rules().turn != TurnRule::Single
        && (first.starts_with('@') || first.starts_with('['))
        && turn_can_start_with(pos, &format!("{turn} {first}"))
}

/// The PGN `Termination` tag's value for how a game ended (the PGN standard's words): `normal`
/// for an ending on the board or between the players (mate, stalemate, resignation, a draw
/// agreed or by rule), `time forfeit` for a loss on time, `abandoned` for a game not played out
/// (a forfeit), `unterminated` for a game still going.
pub fn termination(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "unterminated",
        Some(Outcome::Win { reason: WinReason::Time, .. }) => "time forfeit",
        Some(Outcome::Win { reason: WinReason::Forfeit, .. }) => "abandoned",
        Some(Outcome::Win { .. } | Outcome::Draw { .. }) => "normal",
    }
}

/// Movetext broken into lines of at most `width` characters (PGN's export form keeps lines under
/// 80), between words only, a move number kept with the move after it.
pub fn wrap(movetext: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut words = movetext.split_whitespace().peekable();
    while let Some(word) = words.next() {
        let mut unit = word.to_string();
        if word.ends_with('.')
            && word.starts_with(|c: char| c.is_ascii_digit())
            && let Some(next) = words.next()
        {
            unit = format!("{word} {next}");
        }
        if !line.is_empty() && line.len() + 1 + unit.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&unit);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// Whether some legal turn begins with the actions written in `text`.
fn turn_can_start_with(pos: &Position, text: &str) -> bool {
    notation::parse(text).is_ok_and(|parsed| parsed.is_prefix_of_legal_turn(pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_choice_is_no_variation() {
        // Quad-Square writes the piece taken in parentheses right after the move.
        let rec = parse_record("1. Nd7xM1(P)+ e5 (2. d4) 2. Qd3xM1(N)").unwrap();
        let texts: Vec<&str> = rec.moves.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["Nd7xM1(P)+", "e5", "Qd3xM1(N)"]);
    }

    #[test]
    fn tolerates_pgn_furniture() {
        let text = r#"[Event "Casual"]
[Result "1-0"]
% a escape line
1. e4 {best by test} e5 2.Nf3 ; a comment
Nc6 (2... d6 3. d4) 3. Bb5 $1 a6 4...Nf6?? 1-0"#;
        let rec = parse_record(text).unwrap();
        let texts: Vec<&str> = rec.moves.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Nf6??"]);
        let old_style = parse_record("1) e2-e4 e7-e5 2) Qd1-h5 Ke8-e7 3) Qh5xe5ch").unwrap();
        assert_eq!(old_style.moves.len(), 5);
        assert!(replay(Variant::CHESS, "1) e2-e4 e7-e5 2) Qd1-h5 Ke8-e7 3) Qh5xe5ch").is_ok());
        let numbered: Vec<bool> = rec.moves.iter().map(|t| t.numbered).collect();
        assert_eq!(numbered, [true, false, true, false, true, false, true]);
        assert_eq!(rec.result.as_deref(), Some("1-0"));
        assert_eq!(rec.header("event"), Some("Casual"));
    }

    #[test]
    fn annotators_words_are_skipped() {
        let rec = parse_record("1. e4 d5 2. e5 f5 3. exf6 e.p. Nxf6 White resigns").unwrap();
        let texts: Vec<&str> = rec.moves.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["e4", "d5", "e5", "f5", "exf6", "Nxf6"]);
        // Anything else that is not a move is still an error at its ply.
        assert!(matches!(replay(Variant::CHESS, "1. e4 blunder"), Err(ReplayError::Move { ply: 2, .. })));
    }

    #[test]
    fn replay_stops_at_the_first_illegal_move() {
        let err = replay(Variant::CHESS, "1. e4 e5 2. Ke3 Nc6").unwrap_err();
        match &err {
            ReplayError::Move { ply, text, .. } => {
                assert_eq!((*ply, text.as_str()), (3, "Ke3"));
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("ply 3"));
    }

    #[test]
    fn result_from_rules_or_record() {
        let r = replay(Variant::CHESS, "1. f3 e5 2. g4 Qh4#").unwrap();
        assert_eq!(r.result().as_deref(), Some("0-1"));
        let r = replay(Variant::CHESS, "1. e4 e5 1/2-1/2").unwrap();
        assert_eq!(r.result().as_deref(), Some("1/2-1/2"));
        let r = replay(Variant::CHESS, "1. e4 e5 *").unwrap();
        assert_eq!(r.result(), None);
    }

    #[test]
    fn fen_header_sets_the_start() {
        let text = "[FEN \"4k3/8/8/8/8/8/8/R3K3 b - - 0 1\"]\n1... Kd7 2. Ra7+";
        let r = replay(Variant::CHESS, text).unwrap();
        assert_eq!(r.game.position().fen(), "8/R2k4/8/8/8/8/8/4K3 b - - 2 2");
    }

    #[test]
    fn movetext_wraps_between_words_with_each_number_kept_with_its_move() {
        let mut game = Game::from_variant(Variant::CHESS);
        let breyer = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 Nbd2 Bb7";
        for mv in breyer.split(' ') {
            game.play_text(mv).unwrap();
        }
        let record = game.record();
        let wrapped = wrap(&record, 79);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        for line in wrapped.lines() {
            assert!(line.len() <= 79 && !line.ends_with('.'), "{line}");
        }
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            record.split_whitespace().collect::<Vec<_>>()
        );
        let back = replay(Variant::CHESS, &wrapped).unwrap();
        assert_eq!(back.game.position(), game.position());
        assert_eq!(wrap("1. e4 e5 *", 79), "1. e4 e5 *");
    }

    #[test]
    fn syntax_errors() {
        assert!(matches!(parse_record("1. e4 {oops"), Err(ReplayError::Syntax(_))));
        assert!(matches!(parse_record("1. e4 (e5"), Err(ReplayError::Syntax(_))));
        assert!(matches!(parse_record("1. e4 1-0 e5"), Err(ReplayError::Syntax(_))));
    }
}

#[cfg(test)]
mod written_plies_tests {
    use super::*;

    /// A page's move list is the record's: Blue Chip's opening chip unnumbered before `1.`,
    /// Black's reply unnumbered after White's move.
    #[test]
    fn plies_are_numbered_as_the_record_numbers_them() {
        let game = replay(Variant::BLUE_CHIP, "[e5] 1. e2-e4[d5] e7-e5[f3]").unwrap().game;
        let plies = written_plies(&game);
        let shown: Vec<(Option<&str>, &str)> =
            plies.iter().map(|p| (p.label.as_deref(), p.text.as_str())).collect();
        assert_eq!(shown, [(None, "[e5]"), (Some("1."), "e2-e4[d5]"), (None, "e7-e5[f3]")]);
        assert_eq!(game.record(), "[e5] 1. e2-e4[d5] e7-e5[f3] *");
    }
}
