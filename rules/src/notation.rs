//! Move notation in two phases: [`parse`] reads text with no position, [`ParsedMove::resolve`]
//! finds the one legal move it names, and [`san`] / [`lan`] write a move back.
//!
//! ```
//! use tessera_rules::{notation, Position, Variant};
//! let pos = Position::start(Variant::CHESS);
//! let mv = notation::parse("Ng1-f3").unwrap().resolve(&pos).unwrap();
//! assert_eq!(notation::san(&pos, &mv), "Nf3");
//! assert_eq!(notation::lan(&pos, &mv), "Ng1-f3");
//! ```

use std::fmt;

use crate::mechanic::{self, Mechanic, dispatch};
use crate::moves::{Action, Move};
use crate::position::Position;
use crate::types::{Role, Square};
use crate::variant::{TurnRule, Variant};

/// Longest move text we read; anything longer is not a move.
const MAX_LEN: usize = 64;

/// A move as written, before it is matched against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedMove {
    pub text: String,
    pub actions: Vec<ParsedAction>,
    /// Shrink Chess: pieces named for pawns the shrink promotes, `[a7=N,h1=Q]`, by their square after it.
    pub shrink_promotions: Vec<(Square, Role)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsedAction {
    Piece(ParsedPieceMove),
    /// `O-O` (short) or `O-O-O` (long).
    Castle {
        long: bool,
    },
    /// `@@f3`: a square from reserve.
    Place {
        to: Square,
    },
    /// `@g8-e6`: a square moved; `=Q` when it carries a pawn to its last rank.
    Shift {
        from: Square,
        to: Square,
        promotion: Option<Role>,
    },
    /// `[d5]`: where the Blue Chip goes.
    Chip {
        to: Square,
    },
    /// `@!e4`: an anti-tile dropped (Tiled Squares).
    DropAnti {
        to: Square,
    },
    /// `@xe4`: an own empty tile taken away (Tiled Squares).
    RemoveTile {
        at: Square,
    },
}

impl ParsedAction {
    pub(crate) fn is_piece_move(&self) -> bool {
        matches!(self, ParsedAction::Piece(_) | ParsedAction::Castle { .. })
    }
}

/// A piece move in SAN or long algebraic form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedPieceMove {
    /// The role letter, if one was written.
    pub role: Option<Role>,
    pub from_file: Option<u8>,
    pub from_rank: Option<u8>,
    pub capture: bool,
    pub to: Square,
    pub promotion: Option<Role>,
    /// Quad-Square Chess: the piece chosen for capture, `(N)`.
    pub victim: Option<Role>,
}

impl ParsedPieceMove {
    pub(crate) fn origin(&self) -> Option<Square> {
        Some(Square::from_coords(self.from_file?, self.from_rank?))
    }
}

/// Why a move text could not be read at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub text: String,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read \"{}\" as a move: {}. {PIECE_MOVES}", self.text, self.reason)
    }
}

impl ParseError {
    /// The error with the move forms of `variant` (its square actions, quad names, chip…), for a
    /// player of that variant; [`Display`](fmt::Display) gives only the piece moves every variant reads.
    pub fn in_variant(&self, variant: Variant) -> String {
        format!("cannot read \"{}\" as a move: {}. {}", self.text, self.reason, move_forms(variant))
    }
}

/// The piece moves every variant reads.
const PIECE_MOVES: &str = "Write moves like e2-e4, Ng1-f3, e4, Nf3, exd5, O-O or e8=Q";

/// How to write a turn of `variant`, in one or two sentences with examples of each of its kinds of
/// action (L15, Q12, T2, B5, S6), for a player whose text could not be read.
pub fn move_forms(variant: Variant) -> String {
    let rules = variant.rules();
    if rules.quad_squares {
        return "Write moves with the quad-squares' names: c3-M1, NS2-d3, M1xd6, e2-e3 or O-O; name the piece you \
                take on a shared quad-square, Qd3xM1(N); a bishop's sacrifice is Bd3xM1"
            .into();
    }
    if rules.chip {
        return "Write a move, then the chip's square in brackets: e2-e4[d5] or e4[d5]; Black's opening turn is the \
                chip alone: [e5]"
            .into();
    }
    if rules.tiles {
        return "Write one action: a piece move like e2-e4, Ng1-f3, Nf3 or O-O, a tile dropped like @@e4, an \
                anti-tile dropped like @!e4, or an empty tile of yours taken away like @xe4"
            .into();
    }
    if rules.shrink {
        return format!(
            "{PIECE_MOVES}; name the pieces for pawns a shrink promotes after the move, by their new squares: \
             Rh1-h3[a1=N]"
        );
    }
    let carry = if rules.carry { "; a square move may carry a piece of yours one step: @b2-b3" } else { "" };
    match rules.turn {
        _ if !rules.square_actions => PIECE_MOVES.into(),
        TurnRule::Single => "Write one action: a piece move like e2-e4, Ng1-f3, Nf3 or O-O, a placement like @@e4, \
                             or a square move like @g1-g3"
            .into(),
        TurnRule::Postal => "Write the piece move first, then at most one square action, a placement or a square \
                             move: Ng1-f3 @@e4 or Ng1-f3 @g1-g3; a first turn with no piece move is one of them \
                             alone: @@f3"
            .into(),
        _ => format!(
            "Write the piece move first, then a square move and a placement, either or both, in the order you make \
             them: Ng1-f3 @g1-g3 @@e4 or Ng1-f3 @@e4; a first turn with no piece move is square actions alone: \
             @@f3{carry}"
        ),
    }
}

impl std::error::Error for ParseError {}

/// Why a readable move does not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    Illegal { text: String, reason: String },
    Ambiguous { text: String, candidates: Vec<String> },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Illegal { text, reason } => write!(f, "{text} is illegal: {reason}"),
            ResolveError::Ambiguous { text, candidates } => {
                write!(f, "{text} is ambiguous: it could be {}", join_or(candidates))
            }
        }
    }
}

impl std::error::Error for ResolveError {}

pub(crate) fn join_or(items: &[String]) -> String {
    join_with(items, "or")
}

pub(crate) fn join_and(items: &[String]) -> String {
    join_with(items, "and")
}

fn join_with(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {word} {}", rest.join(", "), last),
    }
}

/// Either kind of failure, for callers that parse and resolve in one go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Parse(ParseError),
    Resolve(ResolveError),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Parse(e) => e.fmt(f),
            MoveError::Resolve(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for MoveError {}

impl From<ParseError> for MoveError {
    fn from(e: ParseError) -> Self {
        MoveError::Parse(e)
    }
}

impl From<ResolveError> for MoveError {
    fn from(e: ResolveError) -> Self {
        MoveError::Resolve(e)
    }
}

/// Parses and resolves in one step.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    Ok(parse(text)?.resolve(pos)?)
}

/// Reads move text without looking at a position.
pub fn parse(text: &str) -> Result<ParsedMove, ParseError> {
    let fail = |reason: &str| ParseError { text: shorten(text), reason: reason.to_string() };
    if text.len() > MAX_LEN {
        return Err(fail("that is far too long for a move"));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(fail("it is empty"));
    }
    let tokens: Vec<&str> = trimmed.split_whitespace().collect();
    if tokens.len() > 3 {
        return Err(fail("a turn has at most three actions (a piece move, a square move, a placement)"));
    }
    let mut actions = Vec::new();
    let mut shrink_promotions = Vec::new();
    for token in &tokens {
        parse_token(token, &mut actions, &mut shrink_promotions).map_err(|r| fail(&r))?;
    }
    if actions.len() > 3 {
        return Err(fail("a turn has at most three actions"));
    }
    Ok(ParsedMove { text: trimmed.to_string(), actions, shrink_promotions })
}

fn shorten(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() > 20 {
        format!("{}…", t.chars().take(20).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Strips what may follow a move: check and mate marks, annotation glyphs, "e.p.".
fn strip_suffixes(mut s: &str) -> &str {
    loop {
        let before = s;
        for suffix in ["e.p.", "ep", "ch", "++", "+", "#", "!", "?"] {
            if let Some(rest) = s.strip_suffix(suffix) {
                // "ep" and "ch" (check) only right after a square, never eating part of one.
                if (suffix == "ep" || suffix == "ch") && !rest.ends_with(|c: char| c.is_ascii_digit()) {
                    continue;
                }
                s = rest;
            }
        }
        if s == before {
            return s;
        }
    }
}

/// One word of move text: an action, an action with the chip after it (`e2-e4[d5]`), or the chip alone.
fn parse_token(
    token: &str,
    actions: &mut Vec<ParsedAction>,
    shrink_promotions: &mut Vec<(Square, Role)>,
) -> Result<(), String> {
    let token = strip_suffixes(token);
    let Some((main, rest)) = token.split_once('[') else {
        actions.push(parse_action(token)?);
        return Ok(());
    };
    let inside = strip_suffixes(rest).strip_suffix(']').ok_or("a [ is never closed")?;
    if !main.is_empty() {
        actions.push(parse_action(main)?);
    }
    if inside.contains('=') {
        // Shrink Chess: `[a7=N,h1=Q]` names the pieces for pawns the shrink promotes.
        for item in inside.split(',') {
            let (sq, role) =
                item.trim().split_once('=').ok_or("write promotions after a shrink like [a7=N,h2=Q]")?;
            let sq = Square::parse(sq).ok_or_else(|| format!("\"{sq}\" is not a square"))?;
            let role = promotion_role(role.chars().next().unwrap_or('?'))?;
            shrink_promotions.push((sq, role));
        }
        return Ok(());
    }
    let to = Square::parse(inside)
        .ok_or_else(|| format!("\"[{inside}]\" should name the chip's square, like [d5]"))?;
    actions.push(ParsedAction::Chip { to });
    Ok(())
}

fn parse_action(token: &str) -> Result<ParsedAction, String> {
    let s = strip_suffixes(token);
    if s.is_empty() {
        return Err("there is no move before the check or annotation marks".into());
    }
    if let Some(rest) = s.strip_prefix("@@") {
        let to = Square::parse(rest)
            .ok_or_else(|| format!("\"{rest}\" is not a square; place a square with @@f3"))?;
        return Ok(ParsedAction::Place { to });
    }
    if let Some(rest) = s.strip_prefix("@!") {
        let to = Square::parse(rest)
            .ok_or_else(|| format!("\"{rest}\" is not a square; drop an anti-tile with @!e4"))?;
        return Ok(ParsedAction::DropAnti { to });
    }
    if let Some(rest) = s.strip_prefix("@x").filter(|r| r.len() == 2) {
        let at = Square::parse(rest)
            .ok_or_else(|| format!("\"{rest}\" is not a square; remove a tile with @xe4"))?;
        return Ok(ParsedAction::RemoveTile { at });
    }
    if let Some(rest) = s.strip_prefix('@') {
        return parse_shift(rest);
    }
    let castle = s.replace(['0', 'o'], "O");
    let s = &mechanic::location_names_as_cells(s);
    match castle.as_str() {
        "O-O" => return Ok(ParsedAction::Castle { long: false }),
        "O-O-O" => return Ok(ParsedAction::Castle { long: true }),
        _ => {}
    }
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let role = match chars.first() {
        Some(&c) if "NBRQKP".contains(c) => {
            i = 1;
            Role::from_char(c)
        }
        _ => None,
    };
    // At the end, in either order: a promotion (=Q, /Q, or a bare letter after the destination
    // rank) and, in Quad-Square Chess, the piece chosen for capture in parentheses: (N).
    let mut end = chars.len();
    let mut promotion = None;
    let mut victim = None;
    loop {
        if victim.is_none() && end >= 4 && chars[end - 1] == ')' && chars[end - 3] == '(' {
            victim = Some(Role::from_char(chars[end - 2]).ok_or_else(|| {
                format!("\"({})\" should name the piece to capture, like (N)", chars[end - 2])
            })?);
            end -= 3;
        } else if promotion.is_none() && end >= 2 && (chars[end - 2] == '=' || chars[end - 2] == '/') {
            promotion = Some(promotion_role(chars[end - 1])?);
            end -= 2;
        } else if promotion.is_none()
            && end >= 2
            && chars[end - 1].is_ascii_alphabetic()
            && chars[end - 2].is_ascii_digit()
        {
            promotion = Some(promotion_role(chars[end - 1])?);
            end -= 1;
        } else {
            break;
        }
    }
    // Counted in characters, never bytes: players type any script.
    let body = &chars[i..end.max(i)];
    if body.len() < 2 {
        return Err("a move needs a destination square such as e4".into());
    }
    let head: String = body[..body.len() - 2].iter().collect();
    let dest: String = body[body.len() - 2..].iter().collect();
    let (head, dest) = (head.as_str(), dest.as_str());
    let to =
        Square::parse(dest).ok_or_else(|| format!("\"{dest}\" is not a square (files a-h, ranks 1-8)"))?;
    let mut capture = false;
    let mut head = head;
    if let Some(h) = head.strip_suffix(['x', ':', '-']) {
        capture = head.ends_with(['x', ':']);
        head = h;
    }
    let mut from_file = None;
    let mut from_rank = None;
    for c in head.chars() {
        match c {
            'a'..='h' if from_file.is_none() && from_rank.is_none() => from_file = Some(c as u8 - b'a'),
            '1'..='8' if from_rank.is_none() => from_rank = Some(c as u8 - b'1'),
            _ => return Err(format!("unexpected \"{c}\"")),
        }
    }
    if promotion.is_some() && role.is_some_and(|r| r != Role::Pawn) {
        return Err("only pawns promote".into());
    }
    Ok(ParsedAction::Piece(ParsedPieceMove { role, from_file, from_rank, capture, to, promotion, victim }))
}

/// `g8-e6`, `g8e6`, `e7-e8=Q`: the part after `@`.
fn parse_shift(rest: &str) -> Result<ParsedAction, String> {
    let usage = || format!("\"@{rest}\" is not a square move; write @g8-e6");
    let (squares, promotion) = match rest.split_once(['=', '/']) {
        Some((sq, p)) if p.chars().count() == 1 => {
            (sq, Some(promotion_role(p.chars().next().unwrap_or('?'))?))
        }
        Some(_) => return Err(usage()),
        None => (rest, None),
    };
    let squares = squares.replace(['-', 'x', ':'], "");
    if squares.len() != 4 || !squares.is_ascii() {
        return Err(usage());
    }
    let from = Square::parse(&squares[..2]).ok_or_else(usage)?;
    let to = Square::parse(&squares[2..]).ok_or_else(usage)?;
    Ok(ParsedAction::Shift { from, to, promotion })
}

fn promotion_role(c: char) -> Result<Role, String> {
    match Role::from_char(c) {
        Some(r @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) => Ok(r),
        _ => Err(format!("a pawn promotes to Q, R, B or N, not \"{c}\"")),
    }
}

impl ParsedMove {
    /// Finds the one legal move this text names in `pos`.
    pub fn resolve(&self, pos: &Position) -> Result<Move, ResolveError> {
        let matching = self.candidates(pos);
        match matching.len() {
            1 => Ok(matching[0]),
            0 => Err(ResolveError::Illegal { text: self.text.clone(), reason: self.why_illegal(pos) }),
            _ => {
                let mut candidates: Vec<String> = matching.iter().map(|mv| san(pos, mv)).collect();
                candidates.dedup();
                Err(ResolveError::Ambiguous { text: self.text.clone(), candidates })
            }
        }
    }

    /// Legal turns this text could mean (a few at most, enough to show an ambiguity).
    fn candidates(&self, pos: &Position) -> Vec<Move> {
        if pos.rules().turn == TurnRule::Single && self.actions.len() == 1 {
            let mut found: Vec<Move> =
                pos.legal_moves().into_iter().filter(|mv| self.matches(pos, mv)).collect();
            dispatch!(pos.room, M => M::keep_named(pos, self, &mut found));
            if let Some(ParsedAction::Piece(p)) = self.actions.first() {
                prefer_exact(&mut found, p);
            }
            return found;
        }
        let n = self.actions.len();
        let mut found = Vec::new();
        pos.for_each_turn(
            &mut |step, at, action| step < n && action_matches(at, &self.actions[step], action),
            &mut |mv| {
                if mv.len() == n {
                    found.push(mv);
                }
                found.len() < 8
            },
        );
        found
    }

    /// Whether a legal turn starts with these actions (and may go on with more).
    pub fn is_prefix_of_legal_turn(&self, pos: &Position) -> bool {
        let n = self.actions.len();
        let mut found = false;
        pos.for_each_turn(
            &mut |step, at, action| step >= n || action_matches(at, &self.actions[step], action),
            &mut |mv| {
                found = mv.len() >= n;
                !found
            },
        );
        found
    }

    fn matches(&self, pos: &Position, mv: &Move) -> bool {
        let mut actions = mv.actions();
        self.actions.iter().all(|parsed| actions.next().is_some_and(|a| action_matches(pos, parsed, a)))
            && actions.next().is_none()
    }

    /// Explains, for text that matches no legal turn, what stands in the way.
    fn why_illegal(&self, pos: &Position) -> String {
        if let Some(reason) = turn_shape_error(pos, &self.actions) {
            return self.piece_move_first(pos).or_else(|| self.impossible_piece_move(pos)).unwrap_or(reason);
        }
        // Walk the actions: the first one that cannot be made is the one to explain.
        let mut at = pos.clone();
        let mut made = Vec::new();
        for (i, parsed) in self.actions.iter().enumerate() {
            let mut options = Vec::new();
            at.gen_piece_actions(&mut |a| options.push(a));
            at.gen_square_actions(&mut |a| options.push(a));
            let Some(&action) = options.iter().find(|&&a| action_matches(&at, parsed, a)) else {
                let reason = why_action_impossible(&at, parsed);
                // A chip written in the same word as its move needs no "after ...".
                let same_word = matches!(parsed, ParsedAction::Chip { .. });
                return if i == 0 || same_word {
                    reason
                } else {
                    format!("after {}, {reason}", self.actions_text(i))
                };
            };
            at.apply_action(action);
            made.push(action);
        }
        let us = pos.turn();
        // The whole turn, played out: a shrink (S3) or the turn's later actions may matter.
        let after = Move::from_actions(&made).map_or(at, |mv| pos.played(&mv));
        if let Some(reason) = dispatch!(pos.room, M => M::why_extras(pos, self, &made)) {
            return reason;
        }
        if after.king_attacked(us) {
            return if pos.is_check() {
                "you are in check and it does not get you out of check".into()
            } else if self.actions.len() > 1 {
                "your king would be in check at the end of the turn".into()
            } else {
                "your king would be in check".into()
            };
        }
        if pos.rules().turn == TurnRule::InfiniteReserves
            && !self.actions.iter().any(|a| matches!(a, ParsedAction::Place { .. }))
        {
            return "every turn places a square while there is a location without one (add @@e4 or the like)"
                .into();
        }
        if !self.actions.iter().any(ParsedAction::is_piece_move) && pos.rules().turn.is_postal() {
            return "a turn must include a piece move whenever a piece can move".into();
        }
        format!("it is not a legal turn here{}", legal_examples(pos))
    }

    /// A Postal turn written with its piece move after a square action (`@@f3 Ng1-f3`): the piece
    /// move comes first (L9, L12), so say so with the turn put in order, and whether that is legal.
    fn piece_move_first(&self, pos: &Position) -> Option<String> {
        let words: Vec<&str> = self.text.split_whitespace().collect();
        let piece = self.actions.iter().position(ParsedAction::is_piece_move)?;
        let pieces = self.actions.iter().filter(|a| a.is_piece_move()).count();
        if !pos.rules().turn.is_postal() || piece == 0 || pieces != 1 || words.len() != self.actions.len() {
            return None;
        }
        let mut ordered = vec![words[piece]];
        ordered.extend(words.iter().enumerate().filter(|&(i, _)| i != piece).map(|(_, w)| *w));
        let ordered = ordered.join(" ");
        let first = "the piece move comes first, then the square actions";
        Some(match parse(&ordered).map(|p| p.resolve(pos)) {
            Ok(Ok(_)) | Ok(Err(ResolveError::Ambiguous { .. })) => format!("{first}: `{ordered}`"),
            Ok(Err(ResolveError::Illegal { reason, .. })) => {
                format!("{first}; but `{ordered}` is not legal either: {reason}")
            }
            Err(_) => first.to_string(),
        })
    }

    /// For a turn of the wrong shape that begins with a piece move that no legal turn begins with
    /// (Blue Chip's `exe5` without its chip): why that move cannot be made, which matters before
    /// what the turn lacks. Only where some legal turn begins with a piece move.
    fn impossible_piece_move(&self, pos: &Position) -> Option<String> {
        let first = self.actions.first().filter(|a| a.is_piece_move())?;
        if pos.rules().turn == TurnRule::Single {
            return None;
        }
        let alone =
            ParsedMove { text: String::new(), actions: vec![first.clone()], shrink_promotions: Vec::new() };
        let mut pieces_move = false;
        pos.for_each_turn(&mut |step, _, action| step > 0 || action.is_piece_move(), &mut |_| {
            pieces_move = true;
            false
        });
        (pieces_move && !alone.is_prefix_of_legal_turn(pos)).then(|| why_action_impossible(pos, first))
    }

    fn actions_text(&self, upto: usize) -> String {
        let words: Vec<&str> = self.text.split_whitespace().take(upto).collect();
        words.join(" ")
    }
}

/// Where a text fits several moves, keeps those it fits to the letter: no promotion letter means no
/// promotion where promoting is optional (Quad-Square's S quads); a capture mark on a bishop's move
/// onto a lone enemy means the sacrifice, no mark the sharing move.
fn prefer_exact(found: &mut Vec<Move>, p: &ParsedPieceMove) {
    if found.len() < 2 {
        return;
    }
    if p.promotion.is_none() && found.iter().any(|m| m.first().promotion().is_none()) {
        found.retain(|m| m.first().promotion().is_none());
    }
    let is_sacrifice = |m: &Move| matches!(m.first(), Action::Sacrifice { .. });
    if found.iter().any(is_sacrifice) && !found.iter().all(is_sacrifice) {
        found.retain(|m| is_sacrifice(m) == p.capture);
    }
}

/// What the variant's turn structure says about this sequence of actions, before any square is looked at.
fn turn_shape_error(pos: &Position, actions: &[ParsedAction]) -> Option<String> {
    let rules = pos.rules();
    let variant = pos.variant();
    let square_actions = actions
        .iter()
        .filter(|a| {
            matches!(
                a,
                ParsedAction::Place { .. }
                    | ParsedAction::Shift { .. }
                    | ParsedAction::DropAnti { .. }
                    | ParsedAction::RemoveTile { .. }
            )
        })
        .count();
    if !rules.square_actions && square_actions > 0 {
        return Some(format!("{variant} has no square moves or placements"));
    }
    match rules.turn {
        TurnRule::Single if actions.len() > 1 => Some(if rules.square_actions {
            format!(
                "in {variant} a turn is one action: a piece move, a square move (@g8-e6) or a placement (@@f3)"
            )
        } else {
            "write one move".into()
        }),
        TurnRule::Single => None,
        TurnRule::PieceThenChip => dispatch!(pos.room, M => M::why_turn_shape(pos, actions)),
        _ => {
            let pieces = actions.iter().filter(|a| a.is_piece_move()).count();
            let places = actions.iter().filter(|a| matches!(a, ParsedAction::Place { .. })).count();
            let shifts = actions.iter().filter(|a| matches!(a, ParsedAction::Shift { .. })).count();
            if pieces > 1 {
                Some("a turn has one piece move".into())
            } else if pieces == 1 && !actions[0].is_piece_move() {
                Some("the piece move comes first, then the square actions".into())
            } else if rules.turn == TurnRule::Postal && square_actions > 1 {
                Some(format!(
                    "in {variant} a turn is a piece move, then at most one square move or placement"
                ))
            } else if places > 1 || shifts > 1 {
                Some("a turn has at most one square move and one placement".into())
            } else {
                None
            }
        }
    }
}

/// A pawn move written in SAN as a capture along the pawn's own file (`exe5`), where a pawn never
/// takes straight ahead: it names no move, so it is not read as the step `e5`. (A full origin,
/// `e2:e4`, is long notation whose capture mark is forgiven, as before.) (Where squares or tiles
/// can be taken, a pawn does take one by stepping straight onto it, so the mark can be right.)
fn pawn_takes_along_its_file(pos: &Position, p: &ParsedPieceMove) -> bool {
    p.capture
        && p.role.is_none_or(|r| r == Role::Pawn)
        && p.from_file == Some(p.to.file())
        && p.from_rank.is_none()
        && !pos.rules().square_actions
        && !pos.has_named_locations()
}

/// Why one action cannot be made in `pos` by the piece and square rules.
fn why_action_impossible(pos: &Position, parsed: &ParsedAction) -> String {
    if let Some(reason) = why_not_by_switches(pos, parsed) {
        return reason;
    }
    if let Some(reason) = mechanic::why_not_action(pos, parsed) {
        return reason;
    }
    let p = match parsed {
        ParsedAction::Castle { long } => return why_no_castling(pos, *long),
        ParsedAction::Piece(p) => p,
        _ => unreachable!("the board's own actions are explained by their rooms"),
    };
    dispatch!(pos.room, M => why_piece_move_impossible::<M>(pos, parsed, p))
}

/// Why an action is not one of the variant's moves at all by the switches of its file: a promotion
/// to a piece it does not allow, castling where there is none, a pawn's double step where pawns
/// step one square at a time.
fn why_not_by_switches(pos: &Position, parsed: &ParsedAction) -> Option<String> {
    let rules = pos.rules();
    let variant = pos.variant();
    let promotion = match parsed {
        ParsedAction::Piece(p) => p.promotion,
        ParsedAction::Shift { promotion, .. } => *promotion,
        _ => None,
    };
    if let Some(role) = promotion
        && !rules.promotions.contains(role)
    {
        let letters: Vec<String> = rules.promotions.roles().map(|r| format!("={}", r.upper())).collect();
        return Some(format!(
            "in {variant} a pawn promotes only to {} ({}), not to a {}",
            rules.promotions.names(),
            join_or(&letters),
            role.name()
        ));
    }
    match parsed {
        ParsedAction::Castle { .. } if !rules.castling => Some(format!("there is no castling in {variant}")),
        ParsedAction::Piece(p) if !rules.double_step && is_double_step(pos, p) => Some(format!(
            "pawns never step two squares in {variant}: one square at a time ({})",
            p.to.offset(0, -pos.turn().forward()).map_or_else(String::new, |one| format!("`{one}` is one"))
        )),
        _ => None,
    }
}

/// Whether a piece move as written is a pawn's double step: two squares straight ahead from its
/// start rank, from the square named or, where none is, from a pawn of the mover's standing there.
fn is_double_step(pos: &Position, p: &ParsedPieceMove) -> bool {
    let us = pos.turn();
    let Some(from) = p.to.offset(0, -2 * us.forward()) else { return false };
    let start_rank = match us {
        crate::Color::White => 1,
        crate::Color::Black => pos.size().1.saturating_sub(2),
    };
    let named = match p.origin() {
        Some(origin) => origin == from,
        None => p.from_file.is_none_or(|f| f == from.file()) && p.from_rank.is_none_or(|r| r == from.rank()),
    };
    named
        && !p.capture
        && from.rank() == start_rank
        && p.role.is_none_or(|r| r == Role::Pawn)
        && pos.pieces(us, Role::Pawn).contains(from)
}

/// Why a piece move cannot be made: the room's reasons first, then the board's.
fn why_piece_move_impossible<M: Mechanic>(
    pos: &Position,
    parsed: &ParsedAction,
    p: &ParsedPieceMove,
) -> String {
    let us = pos.turn();
    let rules = pos.rules();
    // Locations as the player names them: `S4` for every cell of a quad-square, `e4` elsewhere.
    let name = |sq: Square| M::location_name(sq);
    // A location of several cells (a quad-square) has had its pieces judged by its room.
    let one_cell = |sq: Square| !pos.has_named_locations() || name(sq) == sq.to_string();
    for sq in p.origin().into_iter().chain([p.to]) {
        if !pos.board_mask().contains(sq) {
            return off_the_board(pos, sq, p.role);
        }
    }
    if pawn_takes_along_its_file(pos, p) {
        let to = p.to;
        let neighbour = Square::from_coords(if to.file() > 0 { to.file() - 1 } else { 1 }, to.rank());
        return format!(
            "a pawn takes diagonally, so `{}x{to}` takes nothing: write `{to}` for the step, or name the \
             file the pawn takes from, like `{}x{to}`",
            to.file_char(),
            neighbour.file_char()
        );
    }
    let king_lays_squares = M::kings_lay_squares()
        && (p.role == Some(Role::King)
            || p.origin().and_then(|o| pos.piece_at(o)).is_some_and(|pc| pc.role == Role::King));
    if !pos.squares().contains(p.to) && !king_lays_squares {
        return format!("there is no {} at {}", pos.square_word(), name(p.to));
    }
    if let Some(reason) = M::why_not_piece_move(pos, p) {
        return reason;
    }
    if let Some(from) = p.origin().filter(|&o| one_cell(o)) {
        match pos.piece_at(from) {
            None => return format!("there is no piece on {from}"),
            Some(piece) if piece.color != us => {
                return format!(
                    "the {} on {from} is {}'s and it is {}'s turn",
                    piece.role.name(),
                    piece.color,
                    us
                );
            }
            Some(piece) if p.role.is_some_and(|r| r != piece.role) => {
                return format!("the piece on {from} is a {}", piece.role.name());
            }
            _ => {}
        }
    }
    if one_cell(p.to) && pos.by_color(us).contains(p.to) {
        return format!("your own piece stands on {}", p.to);
    }
    let mut pseudo = Vec::new();
    pos.gen_piece_actions(&mut |a| pseudo.push(a));
    if pseudo.iter().any(|&a| action_matches(pos, parsed, a)) {
        return if pos.is_check() {
            "you are in check and it does not get you out of check".into()
        } else {
            "your king would be in check".into()
        };
    }
    // (Quad-Square's pawns may also promote on a quad that reaches the last rank: its room knows.)
    if let Some(promo) = p.promotion
        && p.to.rank() != us.last_rank(pos.size().1)
        && !pos.has_named_locations()
    {
        return format!("a pawn promotes only on the last rank, not on {} (={})", p.to, promo.upper());
    }
    // The piece that would move: on a quad-square, the first of the mover's there.
    let own_at = |origin: Square| {
        let loc = pos.location(origin);
        let mut cells = pos.by_color(us).into_iter().filter(|&c| pos.location(c) == loc);
        cells.find_map(|c| pos.piece_at(c)).map(|pc| pc.role)
    };
    let role = p.role.or_else(|| p.origin().and_then(own_at)).unwrap_or(Role::Pawn);
    if role == Role::Pawn
        && let Some(from) = p.origin()
    {
        if from.file() != p.to.file() && pos.piece_at(p.to).is_none() && rules.square_actions {
            return format!("a pawn moves diagonally only to capture a piece, and {} holds none", p.to);
        }
        let middle = Square::from_coords(from.file(), (from.rank() + p.to.rank()) / 2);
        let double = from.file() == p.to.file() && from.rank().abs_diff(p.to.rank()) == 2;
        if double && let Some(reason) = M::why_no_double_step(pos, middle) {
            return reason;
        }
    }
    // A piece that would reach the square along its line but for something in the way: name it.
    let blocked = |from: Square| {
        (M::straight_lines() && (pawn_push_line(pos, role, us, from, p.to) || slides_to(role, from, p.to)))
            .then(|| path_obstacle::<M>(pos, from, p.to))
            .flatten()
    };
    let to = name(p.to);
    match p.origin() {
        Some(from) => match blocked(from) {
            Some(obstacle) => {
                format!("the {} on {} cannot move to {to}: {obstacle}", role.name(), name(from))
            }
            None => format!("the {} on {} cannot move to {to}", role.name(), name(from)),
        },
        None => {
            // `exd5`, `R1a3`: only the pieces on the file or rank written.
            let named = |sq: &Square| {
                p.from_file.is_none_or(|f| f == sq.file()) && p.from_rank.is_none_or(|r| r == sq.rank())
            };
            let mut kind = role.name().to_string();
            if let Some(f) = p.from_file {
                kind = format!("{kind} of yours on the {}-file", (b'a' + f) as char);
            } else if let Some(r) = p.from_rank {
                kind = format!("{kind} of yours on the {} rank", ordinal(r + 1));
            } else {
                kind.push_str(" of yours");
            }
            let pieces = pos.pieces(us, role).into_iter().filter(named);
            match pieces.clone().find_map(|from| blocked(from).map(|o| (from, o))) {
                Some((from, obstacle)) => {
                    format!(
                        "no {kind} can move to {to}: for the {} on {}, {obstacle}",
                        role.name(),
                        name(from)
                    )
                }
                None => format!("no {kind} can move to {to}"),
            }
        }
    }
}

/// `1st`, `2nd`, `3rd`, `4th`… (ranks run to 8).
fn ordinal(n: u8) -> String {
    match n {
        1 => "1st".to_string(),
        2 => "2nd".to_string(),
        3 => "3rd".to_string(),
        n => format!("{n}th"),
    }
}

/// Why a move naming `sq` cannot be made when `sq` is not on the board: on a board a shrink made
/// smaller (S2), which of the player's lines are gone, the board's size now, and where the pieces
/// of the named kind stand since the renaming.
fn off_the_board(pos: &Position, sq: Square, role: Option<Role>) -> String {
    let (w, h) = pos.size();
    let rules = pos.rules();
    if (w, h) == (rules.width, 8) || !rules.shrink {
        return format!("{sq} is off this board");
    }
    let mut gone = Vec::new();
    if sq.file() >= w {
        let files: Vec<String> = (w..rules.width).map(|f| format!("{}", (b'a' + f) as char)).collect();
        gone.push(match files.len() {
            1 => format!("the {}-file is", files[0]),
            _ => format!("files {} are", join_and(&files)),
        });
    }
    if sq.rank() >= h {
        let ranks: Vec<String> = (h..8).map(|r| (r + 1).to_string()).collect();
        gone.push(match ranks.len() {
            1 => format!("the {} rank is", ordinal(h + 1)),
            _ => format!("ranks {} are", join_and(&ranks)),
        });
    }
    let count = |n: u8, line: &str| match n {
        0 => None,
        1 => Some(format!("a {line}")),
        n => Some(format!("{n} {line}s")),
    };
    let vanished: Vec<String> =
        [count(8 - h, "rank"), count(rules.width - w, "file")].into_iter().flatten().collect();
    let mut text = format!(
        "there is no {sq} any more: {} gone ({} vanished and the board closed up towards a1; it is {w}×{h} now)",
        gone.join(" and "),
        join_and(&vanished)
    );
    let us = pos.turn();
    if let Some(role) = role {
        let at: Vec<String> = pos.pieces(us, role).into_iter().map(|s| s.to_string()).collect();
        match at.len() {
            0 => text.push_str(&format!("; you have no {} left", role.name())),
            1 => text.push_str(&format!("; your {} stands on {}", role.name(), at[0])),
            2 | 3 => text.push_str(&format!("; your {}s stand on {}", role.name(), join_and(&at))),
            _ => {}
        }
    }
    text
}

/// Whether a rook, bishop or queen on `from` moves along a line that passes `to`.
fn slides_to(role: Role, from: Square, to: Square) -> bool {
    let (df, dr) = (from.file().abs_diff(to.file()), from.rank().abs_diff(to.rank()));
    let straight = (df == 0) != (dr == 0);
    let diagonal = df == dr && df > 0;
    match role {
        Role::Rook => straight,
        Role::Bishop => diagonal,
        Role::Queen => straight || diagonal,
        _ => false,
    }
}

/// Whether a pawn on `from` would push straight to `to` (one step, or two from its start rank).
fn pawn_push_line(pos: &Position, role: Role, us: crate::Color, from: Square, to: Square) -> bool {
    let steps = (to.rank() as i8 - from.rank() as i8) * us.forward();
    role == Role::Pawn
        && from.file() == to.file()
        && pos.piece_at(to).is_none()
        && (steps == 1 || (steps == 2 && pos.double_step_rank(us) == Some(from.rank())))
}

/// The first thing between `from` and `to` (both excluded) that stops a move along the line: a
/// hole, an anti-tile, or a piece; or what stands on `to` for a pawn's push.
fn path_obstacle<M: Mechanic>(pos: &Position, from: Square, to: Square) -> Option<String> {
    let step = |a: u8, b: u8| (b as i8 - a as i8).signum();
    let (sf, sr) = (step(from.file(), to.file()), step(from.rank(), to.rank()));
    let mut sq = from.offset(sf, sr)?;
    while sq != to {
        if let Some(obstacle) = M::obstacle(pos, sq) {
            return Some(obstacle);
        }
        if let Some(piece) = pos.piece_at(sq) {
            return Some(format!("the {} on {sq} is in the way", piece.role.name()));
        }
        sq = sq.offset(sf, sr)?;
    }
    None
}

/// A few legal turns, so a refusal without a sharper reason still says what would be right.
pub(crate) fn legal_examples(pos: &Position) -> String {
    let mut found = Vec::new();
    pos.for_each_turn(&mut |_, _, _| true, &mut |mv| {
        found.push(lan(pos, &mv));
        found.len() < 3
    });
    if found.is_empty() {
        String::new()
    } else {
        format!("; legal here are, for example, {}", join_or(&found))
    }
}

fn why_no_castling(pos: &Position, long: bool) -> String {
    dispatch!(pos.room, M => why_no_castling_with::<M>(pos, long))
}

fn why_no_castling_with<M: Mechanic>(pos: &Position, long: bool) -> String {
    if let Some(reason) = M::why_no_castling(pos, long) {
        return reason;
    }
    let us = pos.turn();
    let Some(king) = pos.king(us) else {
        return "you have no king".into();
    };
    let side = if long { "queen" } else { "king" };
    let has_right = pos
        .castling_rooks()
        .into_iter()
        .any(|r| pos.by_color(us).contains(r) && (r.file() < king.file()) == long);
    if !has_right {
        format!("you can no longer castle on the {side} side")
    } else if let Some(reason) = M::why_castling_blocked(pos, king, long) {
        reason
    } else if pos.is_check() {
        "you cannot castle out of check".into()
    } else {
        castling_obstacle::<M>(pos, king, long).unwrap_or_else(|| {
            let word = pos.square_word();
            format!(
                "castling needs every {word} between king and rook there and empty, and the king may not pass or \
                 land on an attacked {word}"
            )
        })
    }
}

/// What stops castling on one side, as the move generator checks it: a hole or a piece where king
/// or rook pass or land, or an attack on the king's way.
fn castling_obstacle<M: Mechanic>(pos: &Position, king: Square, long: bool) -> Option<String> {
    let us = pos.turn();
    let rook = pos
        .castling_rooks()
        .into_iter()
        .find(|r| pos.by_color(us).contains(*r) && (r.file() < king.file()) == long)?;
    if let Some(reason) = M::why_castling_closed(pos, king, rook) {
        return Some(reason);
    }
    let (king_to, rook_to) = pos.castling_targets(king, rook);
    let mut span: Vec<Square> = (crate::attacks::between(king, king_to)
        | crate::attacks::between(rook, rook_to)
        | king_to.bb()
        | rook_to.bb())
    .into_iter()
    .filter(|&sq| sq != king && sq != rook)
    .collect();
    span.sort_by_key(|sq| sq.file().abs_diff(king.file()));
    for &sq in &span {
        if let Some(piece) = pos.piece_at(sq) {
            return Some(format!("the {} on {sq} stands in the way of castling", piece.role.name()));
        }
        if !pos.squares().contains(sq) {
            return Some(format!("castling needs a {} at {sq}, and there is none", pos.square_word()));
        }
    }
    let blockers = (pos.occupied() & !king.bb() & !rook.bb()) | pos.walls();
    let mut king_path: Vec<Square> =
        (crate::attacks::between(king, king_to) | king_to.bb()).into_iter().collect();
    king_path.sort_by_key(|sq| sq.file().abs_diff(king.file()));
    for sq in king_path {
        if let Some(from) = pos.attackers(sq, us.other(), blockers).into_iter().next() {
            let attacker = pos.piece_at(from).map_or("piece", |p| p.role.name());
            let verb = if sq == king_to { "land on" } else { "pass" };
            return Some(format!("your king would {verb} {sq}, which the {attacker} on {from} attacks"));
        }
    }
    None
}

fn action_matches(pos: &Position, parsed: &ParsedAction, action: Action) -> bool {
    match (parsed, action) {
        (ParsedAction::Castle { long }, Action::Castle { king, rook }) => {
            // Quad-Square Chess has one castling, written either way (Q10).
            dispatch!(pos.room, M => M::one_castling()) || (rook.file() < king.file()) == *long
        }
        (ParsedAction::Piece(p), Action::Castle { king, rook }) => {
            // Castling written as the king's move (e1-g1, Ke1g1) or king takes own rook (e1h1).
            let (king_to, _) = pos.castling_targets(king, rook);
            let to = pos.location(p.to);
            p.role.is_none_or(|r| r == Role::King)
                && p.origin().map(|o| pos.location(o)) == Some(pos.location(king))
                && (to == king_to || to == rook)
                && p.promotion.is_none()
        }
        (ParsedAction::Piece(p), Action::Normal { role, from, to, promotion, capture }) => {
            // A missing promotion letter matches every promotion, so the player is asked which.
            piece_fields_match(pos, p, role, from, to)
                && (p.promotion == promotion || p.promotion.is_none())
                && (p.victim.is_none() || p.victim == capture)
                && !(role == Role::Pawn && pawn_takes_along_its_file(pos, p))
        }
        (ParsedAction::Piece(p), Action::EnPassant { from, to }) => {
            piece_fields_match(pos, p, Role::Pawn, from, to) && p.promotion.is_none()
        }
        (ParsedAction::Piece(p), Action::Sacrifice { from, to, victim }) => {
            // Q5: written as a capture (Bd3xM1, or BM1xM1 without moving); without x it is a share.
            p.capture
                && piece_fields_match(pos, p, Role::Bishop, from, to)
                && p.promotion.is_none()
                && p.victim.is_none_or(|v| v == victim)
        }
        (ParsedAction::Place { to }, Action::Place { to: t })
        | (ParsedAction::Chip { to }, Action::Chip { to: t })
        | (ParsedAction::DropAnti { to }, Action::DropAnti { to: t })
        | (ParsedAction::RemoveTile { at: to }, Action::RemoveTile { at: t }) => *to == t,
        (ParsedAction::Shift { from, to, promotion }, Action::Shift { from: f, to: t, promotion: pr }) => {
            *from == f && *to == t && (promotion.is_none() || *promotion == pr)
        }
        _ => false,
    }
}

fn piece_fields_match(pos: &Position, p: &ParsedPieceMove, role: Role, from: Square, to: Square) -> bool {
    // With no role letter, a full origin square (g1-f3) names whatever stands there;
    // otherwise the move is a pawn's, as in SAN.
    let role_ok = match p.role {
        Some(r) => r == role,
        None => p.origin().is_some() || role == Role::Pawn,
    };
    let origin_ok = match p.origin() {
        Some(o) => pos.location(o) == from,
        None => p.from_file.is_none_or(|f| f == from.file()) && p.from_rank.is_none_or(|r| r == from.rank()),
    };
    role_ok && pos.location(p.to) == to && origin_ok
}

/// Standard algebraic notation with check (`+`) and mate (`#`) marks; square actions as `@@f3`, `@g8-e6`.
pub fn san(pos: &Position, mv: &Move) -> String {
    if dispatch!(pos.room, M => M::long_notation_only()) {
        return lan(pos, mv);
    }
    write_turn(pos, mv, san_action)
}

/// [`san`] and [`lan`] without the check mark, for listing many turns: deciding `+` against `#`
/// means looking for an answer to the check, which for compound turns can cost milliseconds a
/// turn. Parsing accepts turns with or without the mark.
pub fn san_and_lan_unmarked(pos: &Position, mv: &Move) -> (String, String) {
    let long_only = dispatch!(pos.room, M => M::long_notation_only());
    let san = if long_only { None } else { Some(write_actions(pos, mv, san_action)) };
    let lan = write_actions(pos, mv, lan_action);
    (san.unwrap_or_else(|| lan.clone()), lan)
}

/// Writes many turns of one position as [`san_and_lan_unmarked`] does, each piece action's text
/// (and the position it is written from) worked out once for all the turns that begin the same
/// way, each square action's once for all turns. Autocomplete asks for the long form only of the
/// turns whose short form does not already match.
pub struct TurnWriter<'a> {
    pos: &'a Position,
    long_only: bool,
    texts: QuickMap<[Option<Action>; 3], (String, String)>,
    fixed: QuickMap<Action, Option<String>>,
    /// The position after each prefix of actions that a later action is written from.
    after: QuickMap<[Option<Action>; 3], Position>,
}

type QuickMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<QuickHasher>>;

impl fmt::Debug for TurnWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnWriter").field("pos", self.pos).field("texts", &self.texts.len()).finish()
    }
}

impl<'a> TurnWriter<'a> {
    pub fn new(pos: &'a Position) -> TurnWriter<'a> {
        let long_only = dispatch!(pos.room, M => M::long_notation_only());
        TurnWriter {
            pos,
            long_only,
            texts: Default::default(),
            fixed: Default::default(),
            after: Default::default(),
        }
    }

    /// The short form, without a check mark.
    pub fn san(&mut self, mv: &Move) -> String {
        self.write(mv, false)
    }

    /// The long form, without a check mark.
    pub fn lan(&mut self, mv: &Move) -> String {
        self.write(mv, true)
    }

    fn write(&mut self, mv: &Move, long: bool) -> String {
        fn prefix(actions: &[Action]) -> [Option<Action>; 3] {
            let mut key = [None; 3];
            for (slot, action) in key.iter_mut().zip(actions) {
                *slot = Some(*action);
            }
            key
        }
        let pos = self.pos;
        let mut actions = [mv.first(); 3];
        let mut n = 0;
        for action in mv.actions() {
            actions[n] = action;
            n += 1;
        }
        let actions = &actions[..n];
        let mut out = String::with_capacity(24);
        for (i, &action) in actions.iter().enumerate() {
            if i > 0 && !matches!(action, Action::Chip { .. }) {
                out.push(' ');
            }
            // Castling is written per board, so it is not among the fixed texts.
            let text = match action {
                Action::Castle { .. } => None,
                _ => self.fixed.entry(action).or_insert_with(|| square_action_text(action)).as_deref(),
            };
            if let Some(text) = text {
                out.push_str(text);
                continue;
            }
            let (after, long_only) = (&mut self.after, self.long_only);
            let (s, l) = self.texts.entry(prefix(&actions[..=i])).or_insert_with(|| {
                for j in 0..i {
                    let key = prefix(&actions[..=j]);
                    if !after.contains_key(&key) {
                        let mut at = if j == 0 { pos.clone() } else { after[&prefix(&actions[..j])].clone() };
                        at.apply_action(actions[j]);
                        after.insert(key, at);
                    }
                }
                let at = if i == 0 { pos } else { &after[&prefix(&actions[..i])] };
                let lan = lan_action(at, action);
                (if long_only { lan.clone() } else { san_action(at, action) }, lan)
            });
            out.push_str(if long { l } else { s });
        }
        out.push_str(&turn_suffix(pos, mv));
        out
    }
}

/// A multiply-and-rotate hasher (as rustc's FxHash) for the small keys of
/// [`TurnWriter`]: SipHash's resistance to chosen keys is not needed for actions
/// the engine generated, and it costs more than the lookup saves.
#[derive(Default)]
struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Long algebraic notation as the variants' authors write it (`Ng1-f3`, `e4xd5`, `e7-e8=Q`, `@g8-e6`).
pub fn lan(pos: &Position, mv: &Move) -> String {
    write_turn(pos, mv, lan_action)
}

fn write_turn(pos: &Position, mv: &Move, write: impl Fn(&Position, Action) -> String) -> String {
    let mut out = write_actions(pos, mv, write);
    out.push_str(check_suffix(pos, mv));
    out
}

fn write_actions(pos: &Position, mv: &Move, write: impl Fn(&Position, Action) -> String) -> String {
    let mut out = String::new();
    let mut at = pos.clone();
    for (i, action) in mv.actions().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if i > 0 && matches!(action, Action::Chip { .. }) {
            out.pop();
        }
        out.push_str(&write(&at, action));
        at.apply_action(action);
    }
    out.push_str(&turn_suffix(pos, mv));
    out
}

/// What a turn's text ends with beyond its actions (Shrink Chess's promotions, `[a1=B,h7=Q]`).
fn turn_suffix(pos: &Position, mv: &Move) -> String {
    dispatch!(pos.room, M => M::turn_suffix(pos, mv))
}

/// Coordinates only (`e2e4`, `e7e8q`, castling as the king's move `e1g1`), as engines write moves;
/// square actions as in long algebraic.
pub fn uci(pos: &Position, mv: &Move) -> String {
    if dispatch!(pos.room, M => M::long_notation_only()) {
        return mv.actions().map(|a| lan_action(pos, a)).collect::<Vec<_>>().join(" ");
    }
    let mut parts = Vec::new();
    for action in mv.actions() {
        parts.push(match action {
            Action::Normal { from, to, promotion, .. } => {
                let promo = promotion.map(|r| r.upper().to_ascii_lowercase().to_string()).unwrap_or_default();
                format!("{from}{to}{promo}")
            }
            Action::EnPassant { from, to } => format!("{from}{to}"),
            Action::Castle { king, rook } => format!("{king}{}", pos.castling_targets(king, rook).0),
            Action::Place { .. }
            | Action::Shift { .. }
            | Action::Sacrifice { .. }
            | Action::Chip { .. }
            | Action::DropAnti { .. }
            | Action::RemoveTile { .. } => lan_action(pos, action),
        });
    }
    // Each choice of pieces for pawns a shrink promotes is a move of its own.
    parts.join(" ") + &turn_suffix(pos, mv)
}

fn check_suffix(pos: &Position, mv: &Move) -> &'static str {
    let after = pos.played(mv);
    if !after.is_check() {
        ""
    } else if after.has_legal_moves() {
        "+"
    } else {
        "#"
    }
}

fn square_action_text(action: Action) -> Option<String> {
    match action {
        Action::Castle { king, rook } => {
            Some(if rook.file() < king.file() { "O-O-O" } else { "O-O" }.to_string())
        }
        Action::Place { to } => Some(format!("@@{to}")),
        Action::Chip { to } => Some(format!("[{to}]")),
        Action::DropAnti { to } => Some(format!("@!{to}")),
        Action::RemoveTile { at } => Some(format!("@x{at}")),
        Action::Shift { from, to, promotion } => {
            let promo = promotion.map(|r| format!("={}", r.upper())).unwrap_or_default();
            Some(format!("@{from}-{to}{promo}"))
        }
        _ => None,
    }
}

/// The moving piece's fields, for actions that move a piece by its own powers.
fn piece_fields(action: Action) -> (Role, Square, Square, bool, Option<Role>) {
    match action {
        Action::Normal { role, from, to, capture, promotion } => {
            (role, from, to, capture.is_some(), promotion)
        }
        Action::EnPassant { from, to } => (Role::Pawn, from, to, true, None),
        _ => unreachable!("castling and square actions are written by square_action_text"),
    }
}

fn lan_action(pos: &Position, action: Action) -> String {
    if let Some(text) = dispatch!(pos.room, M => M::action_text(pos, action)) {
        return text;
    }
    if let Some(text) = square_action_text(action) {
        return text;
    }
    let (role, from, to, capture, promotion) = piece_fields(action);
    // A pawn goes without its letter, unless the board says it needs one.
    let pawn_letter = dispatch!(pos.room, M => M::pawn_letter(pos, from));
    let letter = if role == Role::Pawn && !pawn_letter { String::new() } else { role.upper().to_string() };
    let sep = if capture { 'x' } else { '-' };
    // On a quad the captured piece is named, since two may stand there (Q4).
    let victim = match action {
        Action::Normal { capture: Some(victim), .. } if pos.location_name(to) != to.to_string() => {
            format!("({})", victim.upper())
        }
        _ => String::new(),
    };
    let promo = promotion.map(|r| format!("={}", r.upper())).unwrap_or_default();
    format!("{letter}{}{sep}{}{victim}{promo}", pos.location_name(from), pos.location_name(to))
}

fn san_action(pos: &Position, action: Action) -> String {
    if let Some(text) = square_action_text(action) {
        return text;
    }
    let (role, from, to, capture, promotion) = piece_fields(action);
    let mut out = String::new();
    if role == Role::Pawn {
        if capture {
            out.push(from.file_char());
        }
    } else {
        out.push(role.upper());
        // Disambiguate against other pieces of the same role that could go to the same square.
        let mut rivals = Vec::new();
        pos.gen_piece_actions(&mut |a| {
            if let Action::Normal { role: r, from: f, to: t, .. } = a
                && r == role
                && t == to
                && f != from
            {
                rivals.push(f);
            }
        });
        if pos.rules().turn == TurnRule::Single {
            // Only rivals that may legally move count (FIDE): a pinned knight needs no mention.
            rivals.retain(|&f| {
                let mv = Move::single(Action::Normal { role, from: f, to, capture: None, promotion: None });
                let mv = if pos.by_color(pos.turn().other()).contains(to) {
                    Move::single(Action::Normal {
                        role,
                        from: f,
                        to,
                        capture: pos.piece_at(to).map(|p| p.role),
                        promotion: None,
                    })
                } else {
                    mv
                };
                !pos.played(&mv).king_attacked(pos.turn())
            });
        }
        if !rivals.is_empty() {
            if rivals.iter().all(|r| r.file() != from.file()) {
                out.push(from.file_char());
            } else if rivals.iter().all(|r| r.rank() != from.rank()) {
                out.push(from.rank_char());
            } else {
                out.push_str(&from.to_string());
            }
        }
    }
    if capture {
        out.push('x');
    }
    out.push_str(&to.to_string());
    if let Some(p) = promotion {
        out.push('=');
        out.push(p.upper());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    fn pos(fen: &str) -> Position {
        Position::from_fen(Variant::CHESS, fen).unwrap()
    }

    fn play(pos: &Position, text: &str) -> Result<Move, MoveError> {
        parse_move(pos, text)
    }

    #[test]
    fn texts_written_many_at_once_equal_those_written_one_by_one() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for &variant in Variant::ALL {
            let mut at = Position::start(variant);
            for _ in 0..30 {
                let moves = at.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mut writer = TurnWriter::new(&at);
                for mv in &moves {
                    let texts = (writer.san(mv), writer.lan(mv));
                    assert_eq!(texts, san_and_lan_unmarked(&at, mv), "{variant} {}", at.fen());
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                at = at.played(&moves[seed as usize % moves.len()]);
            }
        }
    }

    #[test]
    fn all_spellings_of_a_move_agree() {
        let start = Position::start(Variant::CHESS);
        let nf3 = play(&start, "Nf3").unwrap();
        for text in ["Ng1-f3", "g1f3", "Ng1f3", "g1-f3", "Nf3+", "Nf3!?", "Ngf3", "N1f3"] {
            assert_eq!(play(&start, text).unwrap(), nf3, "{text}");
        }
        let e4 = play(&start, "e4").unwrap();
        for text in ["e2-e4", "e2e4", "Pe2-e4", "e2:e4"] {
            assert_eq!(play(&start, text), Ok(e4), "{text}");
        }
    }

    #[test]
    fn captures_with_x_or_colon() {
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let m = play(&p, "exd5").unwrap();
        assert_eq!(play(&p, "e4:d5"), Ok(m));
        assert_eq!(play(&p, "e4xd5"), Ok(m));
        assert_eq!(play(&p, "ed5"), Ok(m));
        assert_eq!(san(&p, &m), "exd5");
        assert_eq!(lan(&p, &m), "e4xd5");
    }

    #[test]
    fn castling_spellings() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let short = play(&p, "O-O").unwrap();
        for t in ["0-0", "o-o", "e1g1", "Ke1-g1", "e1h1", "O-O+"] {
            assert_eq!(play(&p, t), Ok(short), "{t}");
        }
        let long = play(&p, "O-O-O").unwrap();
        assert_eq!(play(&p, "0-0-0"), Ok(long));
        assert_eq!(play(&p, "e1c1"), Ok(long));
        assert_eq!(san(&p, &short), "O-O");
        assert_eq!(san(&p, &long), "O-O-O");
    }

    #[test]
    fn promotion_forms() {
        let p = pos("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        let q = play(&p, "e8=Q").unwrap();
        for t in ["e8Q", "e7-e8=Q", "e7e8q", "e8/Q", "e8=Q+"] {
            assert_eq!(play(&p, t), Ok(q), "{t}");
        }
        assert_ne!(play(&p, "e8=N").unwrap(), q);
        match play(&p, "e8") {
            Err(MoveError::Resolve(ResolveError::Ambiguous { candidates, .. })) => {
                assert_eq!(candidates, ["e8=Q", "e8=R", "e8=B", "e8=N"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(play(&p, "e8=K").unwrap_err().to_string().contains("promotes to Q, R, B or N"));
    }

    #[test]
    fn mate_and_check_marks_written_and_read() {
        let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let m = play(&p, "Ra8#").unwrap();
        assert_eq!(san(&p, &m), "Ra8#");
        assert_eq!(play(&p, "Ra1-a8++"), Ok(m));
        let p = pos("6k1/8/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(san(&p, &play(&p, "Ra8").unwrap()), "Ra8+");
    }

    #[test]
    fn disambiguation() {
        let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        match play(&p, "Rf1") {
            Err(MoveError::Resolve(ResolveError::Ambiguous { candidates, .. })) => {
                assert_eq!(candidates, ["Raf1", "Rhf1"])
            }
            other => panic!("{other:?}"),
        }
        let m = play(&p, "Rhf1").unwrap();
        assert_eq!(san(&p, &m), "Rhf1");
        let p = pos("4k3/8/R7/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(san(&p, &play(&p, "R1a3").unwrap()), "R1a3");
        let p = pos("8/8/8/5k2/Q2Q4/8/8/Q3K3 w - - 0 1");
        assert_eq!(san(&p, &play(&p, "Qa4-d1").unwrap()), "Qa4d1");
    }

    #[test]
    fn illegal_moves_say_why() {
        let start = Position::start(Variant::CHESS);
        let why = |p: &Position, t: &str| play(p, t).unwrap_err().to_string();
        assert!(why(&start, "e5").contains("no pawn of yours can move to e5"), "{}", why(&start, "e5"));
        assert!(why(&start, "e3-e4").contains("there is no piece on e3"));
        assert!(why(&start, "e7-e5").contains("black's"));
        assert!(why(&start, "Nd2").contains("your own piece stands on d2"));
        assert!(
            why(&start, "O-O").contains("the bishop on f1 stands in the way of castling"),
            "{}",
            why(&start, "O-O")
        );
        let attacked = pos("4k3/8/8/8/8/8/5r2/4K2R w K - 0 1");
        assert_eq!(
            why(&attacked, "O-O"),
            "O-O is illegal: your king would pass f1, which the rook on f2 attacks"
        );
        // Something in a piece's way is named.
        assert!(
            why(&start, "Bc4").contains(
                "no bishop of yours can move to c4: for the bishop on f1, the pawn on e2 is in the way"
            ),
            "{}",
            why(&start, "Bc4")
        );
        assert!(
            why(&start, "Ra1-a4").contains("the rook on a1 cannot move to a4: the pawn on a2 is in the way")
        );
        let start = Position::start(Variant::HANS38);
        let placed = start.played(&play(&start, "@@e4").unwrap());
        let hans = placed.played(&play(&placed, "@@d5").unwrap());
        let told = why(&hans, "e4");
        assert!(
            told.contains(
                "no pawn of yours can move to e4: for the pawn on e2, the hole at e3 is in the way"
            ),
            "{told}"
        );
    }

    #[test]
    fn vague_refusals_still_show_legal_turns() {
        let start = Position::start(Variant::HANS38);
        let hint = legal_examples(&start);
        assert!(hint.starts_with("; legal here are, for example, @@"), "{hint}");
        assert_eq!(hint.matches("@@").count(), 3);
        let mate = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
            .played(&parse_move(&pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), "Ra8").unwrap());
        assert_eq!(legal_examples(&mate), "", "no turn to show after mate");
    }

    #[test]
    fn unreadable_text_says_so() {
        for text in [
            "",
            "hello",
            "Nz9",
            "e9",
            "Xe4",
            "e4 e5 e6 e7",
            "++",
            "@@",
            "@e2",
            "@e2-e9",
            "@@e4=Q",
            &"e4".repeat(5000),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.to_string().starts_with("cannot read"), "{text}: {err}");
        }
        assert!(parse(&"x".repeat(10_000)).unwrap_err().to_string().len() < 300);
    }

    #[test]
    fn san_round_trips_for_every_move_of_many_positions() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
        ] {
            let p = pos(fen);
            for mv in p.legal_moves() {
                let (plain_san, plain_lan) = san_and_lan_unmarked(&p, &mv);
                assert_eq!(plain_san, san(&p, &mv).trim_end_matches(['+', '#']), "{fen}");
                assert_eq!(plain_lan, lan(&p, &mv).trim_end_matches(['+', '#']), "{fen}");
                for text in [san(&p, &mv), lan(&p, &mv), uci(&p, &mv), plain_san, plain_lan] {
                    assert_eq!(play(&p, &text), Ok(mv), "{fen}: {text}");
                }
            }
        }
    }

    #[test]
    fn check_marks_are_optional_and_the_board_decides() {
        let p = Position::start(Variant::CHESS);
        let e4 = play(&p, "e4").unwrap();
        for text in ["e4+", "e4#", "e4++", "e2-e4+"] {
            assert_eq!(play(&p, text), Ok(e4), "{text}");
        }
    }

    #[test]
    fn unmarked_turns_of_compound_variants_read_back() {
        // A Moving Occupied Squares middlegame: 73,359 turns, over 10,000 of them checks.
        let fen = "1r1r*b1*/2pN1**1/*1*1p1*1/2*1***k/*N1**1*1/P**1*1**/K1**1**1/R*2*1q1 w - - 0 61 lock:c1,c8 carried:e6,c7";
        let p = Position::from_fen(Variant::MOVING_OCCUPIED_SQUARES, fen).unwrap();
        let moves = p.legal_moves();
        assert_eq!(moves.len(), 73_359);
        for mv in moves.iter().step_by(97) {
            let (plain_san, plain_lan) = san_and_lan_unmarked(&p, mv);
            assert_eq!(plain_san, san(&p, mv).trim_end_matches(['+', '#']));
            for text in [plain_san, plain_lan] {
                assert_eq!(parse(&text).unwrap().resolve(&p).as_ref(), Ok(mv), "{text}");
            }
        }
    }
}
