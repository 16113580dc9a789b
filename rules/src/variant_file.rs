//! Variant files: one TOML file defines one variant (its names, texts, board, start and rule
//! switches). `docs/variant-files.md` describes the format field by field; this module reads it.
//!
//! Reading takes the file's text (the caller reads it from disk: this crate does no I/O) and gives
//! a [`VariantDef`], which holds what a [`VariantInfo`] holds, or a [`VariantFileError`]
//! naming the line and the field and saying what would be right. Any bytes give one or the other,
//! never a panic.
//!
//! The 13 built-in variants are such files too, `data/variants/NAME.toml`, compiled in
//! ([`BUILT_IN_FILES`]): the registry of variants ([`Variant`]) is made from them, and
//! [`Variant::register`] adds a variant read from another file.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use toml::Spanned;

use crate::types::{Color, Role};
use crate::variant::{
    DeadMaterial, Promotions, Reserve, Rules, StalemateRule, TurnRule, Variant, VariantInfo, normalised,
};

/// The longest variant file read, in bytes: a real one is about 2 KiB.
pub const MAX_FILE_BYTES: usize = 64 * 1024;

/// The longest rules text (`help.rules`): with the help's three lines it fits one reply.
pub const MAX_RULES_CHARS: usize = 2500;

/// The longest name or alias.
const MAX_NAME_CHARS: usize = 40;

/// The files of the built-in variants, compiled in: `(name, text)`, in the order of their ids
/// ([`Variant::ALL`]).
pub const BUILT_IN_FILES: &[(&str, &str)] = &[
    ("chess", include_str!("../../data/variants/chess.toml")),
    ("hans38", include_str!("../../data/variants/hans38.toml")),
    ("hans38-postal", include_str!("../../data/variants/hans38-postal.toml")),
    ("hans38-postal-plus", include_str!("../../data/variants/hans38-postal-plus.toml")),
    ("hans38-neutral", include_str!("../../data/variants/hans38-neutral.toml")),
    ("hans38-neutral-postal", include_str!("../../data/variants/hans38-neutral-postal.toml")),
    ("hans38-neutral-postal-plus", include_str!("../../data/variants/hans38-neutral-postal-plus.toml")),
    ("infinite-reserves", include_str!("../../data/variants/infinite-reserves.toml")),
    ("moving-occupied-squares", include_str!("../../data/variants/moving-occupied-squares.toml")),
    ("quad-square", include_str!("../../data/variants/quad-square.toml")),
    ("blue-chip", include_str!("../../data/variants/blue-chip.toml")),
    ("tiled-squares", include_str!("../../data/variants/tiled-squares.toml")),
    ("shrink", include_str!("../../data/variants/shrink.toml")),
];

/// The FIDE start, the default of `board.start`.
pub const FIDE_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A variant as a file defines it: what a [`VariantInfo`] holds, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantDef {
    pub name: String,
    pub aliases: Vec<String>,
    pub title: String,
    pub summary: String,
    pub help: HelpText,
    pub start_fen: String,
    pub rules_page: String,
    pub rules: Rules,
    /// The built-in variant whose position reader checked the start in full (the one with the same
    /// rules, or one that reads positions the same way). `None`: no built-in reads positions as
    /// these rules do, so only the checks of this module were made (the ranks, their widths, one
    /// king a side, no pawn on its promotion rank); [`Variant::register`] reads the start by the
    /// variant's own rules before it accepts it.
    pub start_checked_as: Option<Variant>,
}

/// `!t rules`'s three lines, owned (see [`crate::variant::Help`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelpText {
    pub board: String,
    pub turn: String,
    pub example: String,
    /// The rules page's text, for a variant whose rules have no page under docs/rules/ (a
    /// community variant); empty when the file gives none.
    pub rules: String,
}

impl VariantDef {
    /// The fields in which this definition and a registered variant's info differ, by their file names
    /// (`turn.rule`, `help.board`); empty when they are the same.
    pub fn differences(&self, row: &VariantInfo) -> Vec<&'static str> {
        let r = &self.rules;
        let o = &row.rules;
        let checks: [(&'static str, bool); 28] = [
            ("name", self.name == row.name),
            ("aliases", self.aliases.iter().map(String::as_str).eq(row.aliases.iter().copied())),
            ("title", self.title == row.title),
            ("summary", self.summary == row.summary),
            ("rules-page", self.rules_page == row.rules_page),
            ("help.board", self.help.board == row.help.board),
            ("help.turn", self.help.turn == row.help.turn),
            ("help.example", self.help.example == row.help.example),
            ("help.rules", self.help.rules == row.help.rules),
            ("board.start", self.start_fen == row.start_fen),
            ("board.files", r.width == o.width),
            ("room", room_of(r) == room_of(o) && r.square_actions == o.square_actions),
            ("turn.rule", r.turn == o.turn),
            ("squares.ownership", r.owned_squares == o.owned_squares),
            ("squares.reserve", r.reserve == o.reserve),
            ("squares.removal-from-turn", r.removal_from_turn == o.removal_from_turn),
            ("squares.carry", r.carry == o.carry),
            ("squares.lock", r.placement_locks == o.placement_locks),
            ("squares.placement-resets-count", r.placement_resets_clock == o.placement_resets_clock),
            ("ending.stalemate", r.stalemate == o.stalemate),
            ("ending.dead-material", r.dead_material == o.dead_material),
            ("room (quad-squares)", r.quad_squares == o.quad_squares),
            ("room (chip, tiles)", r.chip == o.chip && r.tiles == o.tiles),
            ("room (shrink)", r.shrink == o.shrink),
            ("moves.castling", r.castling == o.castling),
            ("moves.double-step", r.double_step == o.double_step),
            ("moves.promotions", r.promotions == o.promotions),
            ("ending.move-limit", r.move_limit == o.move_limit),
        ];
        checks.iter().filter(|(_, same)| !same).map(|(field, _)| *field).collect()
    }
}

/// Why a variant file was refused: where, which field, and what would be right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantFileError {
    /// 1-based line of the file, when the error has a place.
    pub line: Option<usize>,
    /// The field, as the file names it (`board.start`, `squares.reserve`), when known.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for VariantFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.field) {
            (Some(line), Some(field)) => write!(f, "line {line}, {field}: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            (None, Some(field)) => write!(f, "{field}: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for VariantFileError {}

// ---------------------------------------------------------------------------------------------
// The file as serde reads it. Every table denies unknown fields; every field but the names and
// texts has a default, and the defaults are FIDE chess.

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct FileToml {
    name: Spanned<String>,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
    title: Spanned<String>,
    summary: Spanned<String>,
    #[serde(default)]
    rules_page: Option<Spanned<String>>,
    #[serde(default)]
    room: Option<Spanned<RoomName>>,
    help: HelpToml,
    #[serde(default)]
    board: BoardToml,
    #[serde(default)]
    turn: TurnToml,
    #[serde(default)]
    squares: Option<Spanned<SquaresToml>>,
    #[serde(default)]
    moves: MovesToml,
    #[serde(default)]
    ending: EndingToml,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct HelpToml {
    board: Spanned<String>,
    turn: Spanned<String>,
    example: Spanned<String>,
    #[serde(default)]
    rules: Option<Spanned<String>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct BoardToml {
    #[serde(default)]
    files: Option<Spanned<u8>>,
    #[serde(default)]
    ranks: Option<Spanned<u8>>,
    #[serde(default)]
    start: Option<Spanned<String>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct TurnToml {
    #[serde(default)]
    rule: Option<Spanned<TurnName>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct SquaresToml {
    #[serde(default)]
    ownership: Option<Spanned<Ownership>>,
    #[serde(default)]
    reserve: Option<Spanned<ReserveValue>>,
    #[serde(default)]
    removal_from_turn: Option<Spanned<u32>>,
    #[serde(default)]
    carry: Option<Spanned<bool>>,
    #[serde(default)]
    lock: Option<Spanned<LockName>>,
    #[serde(default)]
    placement_resets_count: Option<Spanned<bool>>,
}

/// The FIDE switches of the pieces' moves.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct MovesToml {
    #[serde(default)]
    castling: Option<Spanned<bool>>,
    #[serde(default)]
    double_step: Option<Spanned<bool>>,
    #[serde(default)]
    promotions: Option<Spanned<Vec<Spanned<PromotionName>>>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct EndingToml {
    #[serde(default)]
    stalemate: Option<Spanned<StalemateName>>,
    #[serde(default)]
    dead_material: Option<Spanned<DeadMaterialName>>,
    #[serde(default)]
    move_limit: Option<Spanned<MoveLimitValue>>,
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PromotionName {
    Queen,
    Rook,
    Bishop,
    Knight,
}

impl PromotionName {
    fn role(self) -> Role {
        match self {
            PromotionName::Queen => Role::Queen,
            PromotionName::Rook => Role::Rook,
            PromotionName::Bishop => Role::Bishop,
            PromotionName::Knight => Role::Knight,
        }
    }
}

/// The most moves a move-count rule may count: a draw is claimable after 2 × this many plies.
pub const MAX_MOVE_LIMIT: u16 = 1000;

/// `move-limit = 50` or `move-limit = "none"`.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct MoveLimitValue(Option<u16>);

impl<'de> Deserialize<'de> for MoveLimitValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MoveLimitValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MoveLimitValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a number of moves from 1 to {MAX_MOVE_LIMIT}, or \"none\"")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<MoveLimitValue, E> {
                match u16::try_from(n) {
                    Ok(n @ 1..=MAX_MOVE_LIMIT) => Ok(MoveLimitValue(Some(n))),
                    _ => Err(E::custom(format!(
                        "a move count of {n}: give 1 to {MAX_MOVE_LIMIT} moves (chess has 50), or \"none\""
                    ))),
                }
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<MoveLimitValue, E> {
                self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<MoveLimitValue, E> {
                match s {
                    "none" => Ok(MoveLimitValue(None)),
                    _ => Err(E::custom(format!(
                        "unknown move count \"{}\": give a number of moves, like 50, or \"none\"",
                        s.chars().take(20).collect::<String>()
                    ))),
                }
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The mechanic room a variant's board lives in (`docs/engine.md`): one per variant.
#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RoomName {
    Plain,
    Squares,
    QuadSquares,
    Chip,
    Tiles,
    Shrink,
}

impl RoomName {
    fn text(self) -> &'static str {
        match self {
            RoomName::Plain => "plain",
            RoomName::Squares => "squares",
            RoomName::QuadSquares => "quad-squares",
            RoomName::Chip => "chip",
            RoomName::Tiles => "tiles",
            RoomName::Shrink => "shrink",
        }
    }
}

/// The room a set of switches picks, as `Room::of` picks it.
fn room_of(r: &Rules) -> RoomName {
    if r.quad_squares {
        RoomName::QuadSquares
    } else if r.chip {
        RoomName::Chip
    } else if r.tiles {
        RoomName::Tiles
    } else if r.shrink {
        RoomName::Shrink
    } else if r.square_actions {
        RoomName::Squares
    } else {
        RoomName::Plain
    }
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TurnName {
    Single,
    Postal,
    PostalPlus,
    InfiniteReserves,
    PieceThenChip,
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Ownership {
    Owned,
    Neutral,
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LockName {
    Moved,
    MovedAndPlaced,
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StalemateName {
    Draw,
    Loss,
}

#[derive(Deserialize, Debug, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum DeadMaterialName {
    Fide,
    BareKings,
    PlaysOn,
}

/// `reserve = 3`, `reserve = "none"` or `reserve = "unlimited"`.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct ReserveValue(Reserve);

impl<'de> Deserialize<'de> for ReserveValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ReserveValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ReserveValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of squares from 1 to 64, \"none\" or \"unlimited\"")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<ReserveValue, E> {
                match u8::try_from(n) {
                    Ok(0) => Ok(ReserveValue(Reserve::None)),
                    Ok(n @ 1..=64) => Ok(ReserveValue(Reserve::Finite(n))),
                    _ => Err(E::custom(format!(
                        "{n} squares in reserve: give 1 to 64, \"none\" or \"unlimited\""
                    ))),
                }
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<ReserveValue, E> {
                self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ReserveValue, E> {
                match s {
                    "none" => Ok(ReserveValue(Reserve::None)),
                    "unlimited" => Ok(ReserveValue(Reserve::Infinite)),
                    _ => Err(E::custom(format!(
                        "unknown reserve \"{}\": give a number of squares, \"none\" or \"unlimited\"",
                        s.chars().take(20).collect::<String>()
                    ))),
                }
            }
        }
        deserializer.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Reading.

/// Reads a variant file's text into a definition, or says what is wrong with it.
pub fn read_variant_file(text: &str) -> Result<VariantDef, VariantFileError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(VariantFileError {
            line: None,
            field: None,
            message: format!(
                "the file has {} bytes; a variant file has at most {MAX_FILE_BYTES}",
                text.len()
            ),
        });
    }
    let file: FileToml = toml::from_str(text).map_err(|e| parse_error(text, &e))?;
    Checker { text, read_start: true }.definition(file)
}

/// Reads a built-in variant's file as [`read_variant_file`] does but for the start, which it does
/// not have a position reader read: the registry reads the built-ins with this before any
/// variant's reader exists. A test checks each built-in's start reads as its own.
pub(crate) fn read_built_in_file(text: &str) -> Result<VariantDef, VariantFileError> {
    let file: FileToml = toml::from_str(text).map_err(|e| parse_error(text, &e))?;
    Checker { text, read_start: false }.definition(file)
}

/// A toml or serde error as ours: the line from its span, the field from the key on that line
/// (under its table's header) or from the message.
fn parse_error(text: &str, e: &toml::de::Error) -> VariantFileError {
    let message = e.message().trim().to_string();
    let offset = e.span().map(|span| span.start);
    let line = offset.map(|o| line_of(text, o));
    let field = match message.strip_prefix("missing field `") {
        // The span is the table the field is missing from (or the whole file).
        Some(rest) => {
            let name = rest.split('`').next().unwrap_or_default();
            match offset.and_then(|o| table_header_at(text, o)) {
                Some(table) => Some(format!("{table}.{name}")),
                None => Some(name.to_string()),
            }
        }
        None => offset.and_then(|o| field_at(text, o)),
    };
    let message = if message.starts_with("missing field") {
        format!("{message}: every file gives name, title, summary, and board, turn and example under [help]")
    } else {
        message
    };
    let message = match field.as_deref().and_then(expected_value) {
        // serde says "invalid type: ..."; toml, for a table field given a bare value, "wanted ...".
        Some(right)
            if message.starts_with("invalid type")
                || message.starts_with("invalid value")
                || message.starts_with("wanted") =>
        {
            format!("{message}; give {right}")
        }
        _ => message,
    };
    VariantFileError { line, field, message }
}

/// What a field takes, said to someone who gave it the wrong kind of value.
fn expected_value(field: &str) -> Option<&'static str> {
    Some(match field {
        "name" => "a quoted name, like \"hans38-tiny\"",
        "aliases" => "a list of quoted names, like [\"tiny\"]",
        "title" | "summary" | "rules-page" | "help.board" | "help.turn" | "help.example" | "help.rules" => {
            "quoted text"
        }
        "room" => "one of \"plain\", \"squares\", \"quad-squares\", \"chip\", \"tiles\", \"shrink\"",
        "board.files" | "board.ranks" => "a whole number, like 8",
        "board.start" => "a quoted position text (docs/position-format.md)",
        "turn.rule" => {
            "one of \"single\", \"postal\", \"postal-plus\", \"infinite-reserves\", \"piece-then-chip\""
        }
        "squares.ownership" => "\"owned\" or \"neutral\"",
        "squares.reserve" => "a number of squares, \"none\" or \"unlimited\"",
        "squares.removal-from-turn" => "a turn number, like 4",
        "squares.carry" | "squares.placement-resets-count" => "true or false",
        "squares.lock" => "\"moved\" or \"moved-and-placed\"",
        "ending.stalemate" => "\"draw\" or \"loss\"",
        "ending.dead-material" => "\"fide\", \"bare-kings\" or \"plays-on\"",
        "ending.move-limit" => "a number of moves, like 50, or \"none\"",
        "moves.castling" | "moves.double-step" => "true or false",
        "moves.promotions" => "a list of pieces, like [\"queen\", \"knight\"]",
        _ => return None,
    })
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The table whose `[header]` is on the line holding `offset`.
fn table_header_at(text: &str, offset: usize) -> Option<String> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(start..)?.lines().next()?.trim();
    let inner = line.strip_prefix('[')?.split(']').next()?.trim();
    (!inner.is_empty()).then(|| inner.to_string())
}

/// The `table.key` written on the line holding `offset`, if that line is `key = value`.
fn field_at(text: &str, offset: usize) -> Option<String> {
    if !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text.get(start..end)?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '[') {
        return None;
    }
    let table = text.get(..start)?.lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('[') && l.ends_with(']')).then(|| l.trim_matches(['[', ']']).trim().to_string())
    });
    Some(match table {
        Some(table) if !table.is_empty() => format!("{table}.{key}"),
        _ => key.to_string(),
    })
}

struct Checker<'a> {
    text: &'a str,
    /// Whether a built-in's position reader checks the start (see [`read_built_in_file`]).
    read_start: bool,
}

impl Checker<'_> {
    fn error<T>(
        &self,
        span: Range<usize>,
        field: &str,
        message: impl Into<String>,
    ) -> Result<T, VariantFileError> {
        Err(VariantFileError {
            line: Some(line_of(self.text, span.start)),
            field: Some(field.to_string()),
            message: message.into(),
        })
    }

    fn definition(&self, file: FileToml) -> Result<VariantDef, VariantFileError> {
        let name = self.name(&file.name, "name")?;
        let mut aliases = Vec::with_capacity(file.aliases.len());
        let mut seen = vec![normalised(&name)];
        for alias in &file.aliases {
            let a = self.name(alias, "aliases")?;
            let n = normalised(&a);
            if seen.contains(&n) {
                return self.error(
                    alias.span(),
                    "aliases",
                    format!("\"{a}\" names this variant twice: give each name once"),
                );
            }
            seen.push(n);
            aliases.push(a);
        }
        let title = self.line_text(&file.title, "title")?;
        let summary = self.line_text(&file.summary, "summary")?;
        if summary.contains('|') || summary.ends_with('.') {
            return self.error(
                file.summary.span(),
                "summary",
                "one plain line: no '|', no full stop at the end (it is shown in lists)",
            );
        }
        let rules_page = match &file.rules_page {
            None => "README.md".to_string(),
            Some(page) => {
                let p = page.get_ref();
                let plain = p.ends_with(".md")
                    && p.len() <= 60
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
                    && !p.starts_with('.');
                if !plain {
                    return self.error(
                        page.span(),
                        "rules-page",
                        "the name of a page under docs/rules/, like \"limited-squares.md\" (no folders)",
                    );
                }
                p.clone()
            }
        };
        let help = HelpText {
            board: self.long_text(&file.help.board, "help.board")?,
            turn: self.long_text(&file.help.turn, "help.turn")?,
            example: self.line_text(&file.help.example, "help.example")?,
            rules: match &file.help.rules {
                None => String::new(),
                Some(text) => self.rules_text(text)?,
            },
        };
        if !help.turn.starts_with("Turn: ") {
            return self.error(
                file.help.turn.span(),
                "help.turn",
                "starts with \"Turn: \", like \"Turn: one move.\"",
            );
        }
        let rules = self.rules(&file)?;
        let (start_fen, start_checked_as) = self.start(&file.board, &rules)?;
        Ok(VariantDef { name, aliases, title, summary, help, start_fen, rules_page, rules, start_checked_as })
    }

    /// A name or alias: lower-case letters, digits and single `-` between words.
    fn name(&self, name: &Spanned<String>, field: &str) -> Result<String, VariantFileError> {
        let n = name.get_ref();
        let good = !n.is_empty()
            && n.chars().count() <= MAX_NAME_CHARS
            && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !n.starts_with('-')
            && !n.ends_with('-')
            && !n.contains("--");
        if !good {
            return self.error(
                name.span(),
                field,
                format!(
                    "a name is 1 to {MAX_NAME_CHARS} lower-case letters and digits, words joined by '-', \
                     like \"hans38-postal\""
                ),
            );
        }
        Ok(n.clone())
    }

    /// A short text on one line.
    fn line_text(&self, text: &Spanned<String>, field: &str) -> Result<String, VariantFileError> {
        let t = text.get_ref();
        if t.trim().is_empty() || t.contains(['\n', '\r']) || t.chars().count() > 200 {
            return self.error(text.span(), field, "one line of 1 to 200 characters");
        }
        Ok(t.clone())
    }

    /// A paragraph.
    /// The rules page's text: paragraphs, up to what one chat message holds with the help above it.
    fn rules_text(&self, text: &Spanned<String>) -> Result<String, VariantFileError> {
        let t = text.get_ref();
        if t.trim().is_empty()
            || t.chars().count() > MAX_RULES_CHARS
            || t.chars().any(|c| c.is_control() && c != '\n')
        {
            return self.error(
                text.span(),
                "help.rules",
                format!("the rules in paragraphs of plain text, 1 to {MAX_RULES_CHARS} characters"),
            );
        }
        Ok(t.trim().to_string())
    }

    fn long_text(&self, text: &Spanned<String>, field: &str) -> Result<String, VariantFileError> {
        let t = text.get_ref();
        if t.trim().is_empty() || t.chars().count() > 1000 || t.chars().any(|c| c.is_control() && c != '\n') {
            return self.error(text.span(), field, "a paragraph of 1 to 1000 characters");
        }
        Ok(t.clone())
    }

    /// The rule switches, and whether one room supports them together.
    fn rules(&self, file: &FileToml) -> Result<Rules, VariantFileError> {
        let room = file.room.as_ref().map_or(RoomName::Plain, |r| *r.get_ref());
        let room_span = file.room.as_ref().map_or(0..0, |r| r.span());
        let has_squares = matches!(room, RoomName::Squares | RoomName::Tiles);
        let mut rules = Rules {
            turn: TurnRule::Single,
            square_actions: has_squares,
            owned_squares: false,
            reserve: Reserve::None,
            removal_from_turn: None,
            carry: false,
            stalemate: StalemateRule::Draw,
            dead_material: DeadMaterial::Fide,
            placement_locks: false,
            placement_resets_clock: true,
            width: 8,
            quad_squares: room == RoomName::QuadSquares,
            chip: room == RoomName::Chip,
            tiles: room == RoomName::Tiles,
            shrink: room == RoomName::Shrink,
            castling: true,
            double_step: true,
            promotions: Promotions::ALL,
            move_limit: Some(50),
        };

        // The board's size: every room has 8 ranks; the quad-squares board is 7 files wide, the
        // squares room's 7 or 8 (its holes, square moves and placements stop at the board's edge
        // on either: `examples_tests`), the others 8 (the only widths the rooms are proven on).
        let widths: &[u8] = match room {
            RoomName::QuadSquares => &[7],
            RoomName::Squares => &[7, 8],
            _ => &[8],
        };
        let width = file.board.files.as_ref().map_or(widths[widths.len() - 1], |f| *f.get_ref());
        if let Some(files) = &file.board.files
            && !widths.contains(&width)
        {
            let said = match widths {
                [one] => one.to_string(),
                _ => "7 or 8".to_string(),
            };
            return self.error(
                files.span(),
                "board.files",
                format!("the {} room plays on {said} files; other widths are not supported yet", room.text()),
            );
        }
        rules.width = width;
        if let Some(ranks) = &file.board.ranks
            && *ranks.get_ref() != 8
        {
            return self.error(
                ranks.span(),
                "board.ranks",
                "every board has 8 ranks; other heights are not supported yet",
            );
        }

        let chip = room == RoomName::Chip;
        if let Some(turn) = &file.turn.rule {
            rules.turn = match turn.get_ref() {
                TurnName::Single => TurnRule::Single,
                TurnName::Postal => TurnRule::Postal,
                TurnName::PostalPlus => TurnRule::PostalPlus,
                TurnName::InfiniteReserves => TurnRule::InfiniteReserves,
                TurnName::PieceThenChip => TurnRule::PieceThenChip,
            };
            let fits = match rules.turn {
                TurnRule::Single => !chip,
                TurnRule::Postal | TurnRule::PostalPlus | TurnRule::InfiniteReserves => {
                    room == RoomName::Squares
                }
                TurnRule::PieceThenChip => chip,
            };
            if !fits {
                let right = match room {
                    RoomName::Chip => "the chip room's turn is \"piece-then-chip\"",
                    RoomName::Squares => {
                        "the squares room takes \"single\", \"postal\", \"postal-plus\" or \"infinite-reserves\""
                    }
                    _ => "this room's turn is \"single\" (the Postal turns need room = \"squares\")",
                };
                return self.error(
                    turn.span(),
                    "turn.rule",
                    format!("not a turn of the {} room: {right}", room.text()),
                );
            }
        } else if chip {
            rules.turn = TurnRule::PieceThenChip;
        }

        if let Some(squares) = &file.squares {
            if !has_squares {
                return self.error(
                    squares.span(),
                    "squares",
                    format!(
                        "the {} room has no squares to move or place: the [squares] table needs room = \"squares\" \
                         or \"tiles\"",
                        room.text()
                    ),
                );
            }
            let s = squares.get_ref();
            if let Some(o) = &s.ownership {
                rules.owned_squares = *o.get_ref() == Ownership::Owned;
            }
            if let Some(r) = &s.reserve {
                rules.reserve = r.get_ref().0;
            }
            if let Some(n) = &s.removal_from_turn {
                if *n.get_ref() == 0 {
                    return self.error(
                        n.span(),
                        "squares.removal-from-turn",
                        "a turn number, 1 or more (turns count from 1)",
                    );
                }
                rules.removal_from_turn = Some(*n.get_ref());
            }
            if let Some(c) = &s.carry {
                rules.carry = *c.get_ref();
            }
            if let Some(l) = &s.lock {
                rules.placement_locks = *l.get_ref() == LockName::MovedAndPlaced;
                if rules.placement_locks && rules.reserve == Reserve::None {
                    return self.error(
                        l.span(),
                        "squares.lock",
                        "nothing is ever placed without a reserve: \"moved\"",
                    );
                }
            }
            if let Some(p) = &s.placement_resets_count {
                rules.placement_resets_clock = *p.get_ref();
            }
            if room == RoomName::Tiles {
                // The tiles room borrows owners and unlimited placements from the squares room and
                // nothing else (T1-T7).
                // Each refusal points at the field when the file gives it, else at the table.
                let at = |span: Option<Range<usize>>| span.unwrap_or_else(|| squares.span());
                let only = |right: &str| format!("the tiles room supports only {right}");
                if !rules.owned_squares {
                    return self.error(
                        at(s.ownership.as_ref().map(|o| o.span())),
                        "squares.ownership",
                        only("owned tiles: ownership = \"owned\""),
                    );
                }
                if rules.reserve != Reserve::Infinite {
                    return self.error(
                        at(s.reserve.as_ref().map(|r| r.span())),
                        "squares.reserve",
                        only("an unlimited supply of tiles: reserve = \"unlimited\""),
                    );
                }
                let extra = [
                    ("squares.removal-from-turn", s.removal_from_turn.as_ref().map(|n| n.span())),
                    ("squares.carry", s.carry.as_ref().filter(|c| *c.get_ref()).map(|c| c.span())),
                    ("squares.lock", s.lock.as_ref().filter(|_| rules.placement_locks).map(|l| l.span())),
                ];
                if let Some((field, Some(span))) = extra.into_iter().find(|(_, span)| span.is_some()) {
                    return self.error(
                        span,
                        field,
                        only("ownership, reserve and placement-resets-count: no removal, carrying or placement locks"),
                    );
                }
            }
        } else if room == RoomName::Tiles {
            return self.error(
                room_span,
                "squares",
                "the tiles room needs [squares] with ownership = \"owned\" and reserve = \"unlimited\"",
            );
        }
        if rules.turn == TurnRule::InfiniteReserves && rules.reserve != Reserve::Infinite {
            return self.error(
                file.turn.rule.as_ref().map_or(0..0, |t| t.span()),
                "turn.rule",
                "the infinite-reserves turn requires a placement while a hole is left: it needs \
                 squares.reserve = \"unlimited\"",
            );
        }

        if let Some(s) = &file.ending.stalemate {
            rules.stalemate = match s.get_ref() {
                StalemateName::Draw => StalemateRule::Draw,
                StalemateName::Loss => StalemateRule::Loss,
            };
        }
        if let Some(d) = &file.ending.dead_material {
            rules.dead_material = match d.get_ref() {
                DeadMaterialName::Fide => DeadMaterial::Fide,
                DeadMaterialName::BareKings => DeadMaterial::BareKings,
                DeadMaterialName::PlaysOn => DeadMaterial::PlaysOn,
            };
        }
        if let Some(limit) = &file.ending.move_limit {
            rules.move_limit = limit.get_ref().0;
        }
        self.moves(&file.moves, room, &mut rules)?;
        Ok(rules)
    }

    /// The FIDE switches of the pieces' moves: castling, the double step, the promotions.
    fn moves(&self, moves: &MovesToml, room: RoomName, rules: &mut Rules) -> Result<(), VariantFileError> {
        if let Some(c) = &moves.castling {
            rules.castling = *c.get_ref();
        }
        // Quad-Square Chess's pawns have their own steps and promotions (Q9), on the quad room's
        // own generator: it has no double step to switch off, and its promotions are not a switch.
        let quad_only = |field: &str| {
            format!(
                "the quad-squares room's pawns move by Quad-Square Chess's own rules (no double step, their \
                 own promotions): {field} is not a switch there"
            )
        };
        if let Some(d) = &moves.double_step {
            if room == RoomName::QuadSquares {
                return self.error(d.span(), "moves.double-step", quad_only("double-step"));
            }
            rules.double_step = *d.get_ref();
        }
        if let Some(p) = &moves.promotions {
            if room == RoomName::QuadSquares {
                return self.error(p.span(), "moves.promotions", quad_only("promotions"));
            }
            let mut roles: Vec<Role> = Vec::new();
            for name in p.get_ref() {
                let role = name.get_ref().role();
                if roles.contains(&role) {
                    return self.error(
                        name.span(),
                        "moves.promotions",
                        format!("the {} is named twice: name each piece once", role.name()),
                    );
                }
                roles.push(role);
            }
            rules.promotions = match Promotions::of(&roles) {
                Some(set) => set,
                None => {
                    return self.error(
                        p.span(),
                        "moves.promotions",
                        "a pawn must be able to promote to something: name at least one of \"queen\", \"rook\", \
                         \"bishop\", \"knight\"",
                    );
                }
            };
        }
        Ok(())
    }

    /// The start position: read by the built-in reader that reads positions as these rules do,
    /// after this module's own checks.
    fn start(&self, board: &BoardToml, rules: &Rules) -> Result<(String, Option<Variant>), VariantFileError> {
        let (fen, span) = match &board.start {
            Some(s) => (s.get_ref().clone(), s.span()),
            None => (FIDE_START.to_string(), 0..0),
        };
        let fail = |message: String| self.error(span.clone(), "board.start", message);
        if let Err(message) = check_placement(&fen, rules.width) {
            return fail(message);
        }
        if let Reserve::Finite(n) = rules.reserve
            && let Err(message) = check_hand(&fen, n)
        {
            return fail(message);
        }
        if !rules.castling && fen.split_whitespace().nth(2).is_some_and(|c| c != "-") {
            return fail(
                "moves.castling = false: a game without castling starts without castling rights; write '-' \
                 in the start's castling field"
                    .into(),
            );
        }
        if !rules.double_step && fen.split_whitespace().nth(3).is_some_and(|c| c != "-") {
            return fail(
                "moves.double-step = false: no pawn double-steps, so the start has no en passant square; write \
                 '-' in its en passant field"
                    .into(),
            );
        }
        if !self.read_start {
            return Ok((fen, None));
        }
        let reader = Variant::ALL
            .iter()
            .copied()
            .find(|v| v.rules() == rules)
            .or_else(|| Variant::ALL.iter().copied().find(|v| reads_positions_alike(v.rules(), rules)));
        if let Some(v) = reader
            && let Err(e) = crate::Position::from_fen(v, &fen)
        {
            return fail(format!("does not read: {e}"));
        }
        Ok((fen, reader))
    }
}

/// Whether two sets of rules read and check position texts alike: the same room and width, and
/// the same switches the text reader asks (owners, the reserve's count, carried pawns, how many
/// squares may be locked).
fn reads_positions_alike(a: &Rules, b: &Rules) -> bool {
    room_of(a) == room_of(b)
        && a.width == b.width
        && a.owned_squares == b.owned_squares
        && a.reserve == b.reserve
        && a.carry == b.carry
        && a.placement_locks == b.placement_locks
        && (a.turn == TurnRule::PieceThenChip) == (b.turn == TurnRule::PieceThenChip)
}

/// The checks every start gets whatever its room: 8 ranks of `width` locations, one king a side,
/// no pawn on the rank it would promote on.
fn check_placement(fen: &str, width: u8) -> Result<(), String> {
    if fen.len() > 1024 {
        return Err("a position text is at most 1024 characters".into());
    }
    let placement = fen.split_whitespace().next().ok_or("the position text is empty")?;
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(format!("the placement has {} ranks separated by '/'; the board has 8", ranks.len()));
    }
    let mut kings = [0u32; 2];
    for (i, rank) in ranks.iter().enumerate() {
        let rank_number = 8 - i;
        let mut locations: u32 = 0;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                locations += d;
            } else if let Some(role) = Role::from_char(c.to_ascii_lowercase()) {
                locations += 1;
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                if role == Role::King {
                    kings[color.index()] += 1;
                }
                let promotion_rank = if color == Color::White { 8 } else { 1 };
                if role == Role::Pawn && rank_number == promotion_rank {
                    return Err(format!(
                        "a {color:?} pawn stands on rank {rank_number}, where it would promote"
                    )
                    .to_lowercase());
                }
            } else {
                locations += 1;
            }
        }
        if locations != u32::from(width) {
            return Err(format!("rank {rank_number} has {locations} locations; board.files says {width}"));
        }
    }
    for (color, count) in [("White", kings[0]), ("Black", kings[1])] {
        if count != 1 {
            return Err(format!("{color} has {count} kings; a start has exactly one king a side"));
        }
    }
    Ok(())
}

/// With a finite reserve of `n`, the start says each side's squares in hand, at most `n`.
fn check_hand(fen: &str, n: u8) -> Result<(), String> {
    let hand = fen.split_whitespace().skip(1).find_map(|field| field.strip_prefix("hand:"));
    let Some(hand) = hand else {
        return Err(format!(
            "with squares.reserve = {n} the start gives the squares in hand: add hand:{n}/{n}"
        ));
    };
    let counts = hand.split_once('/').and_then(|(w, b)| Some([w.parse::<u8>().ok()?, b.parse::<u8>().ok()?]));
    match counts {
        Some(counts) if counts.iter().all(|&c| c <= n) => Ok(()),
        _ => Err(format!(
            "hand:{hand} should give White's and Black's squares in hand, each at most {n}, like hand:{n}/{n}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> VariantDef {
        read_variant_file(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn refused(text: &str) -> VariantFileError {
        match read_variant_file(text) {
            Ok(def) => panic!("accepted: {def:?}\n{text}"),
            Err(e) => e,
        }
    }

    /// The smallest file: FIDE chess under another name.
    const MINIMAL: &str = "name = \"mini\"\ntitle = \"Mini\"\nsummary = \"a test\"\n\n[help]\nboard = \"The FIDE game.\"\n\
                           turn = \"Turn: one move.\"\nexample = \"e2-e4\"\n";

    /// `differences` sees a change in any one field: the test that each built-in is what its file
    /// says (in `variant.rs`) can fail.
    #[test]
    fn a_changed_file_differs_from_its_variant() {
        let hans = Variant::HANS38.info();
        let text = BUILT_IN_FILES[1].1;
        for (from, to, field) in [
            ("reserve = 3", "reserve = 4", "squares.reserve"),
            ("ownership = \"owned\"", "ownership = \"neutral\"", "squares.ownership"),
            ("stalemate = \"loss\"", "stalemate = \"draw\"", "ending.stalemate"),
            ("example = \"@@e4\"", "example = \"@@e3\"", "help.example"),
            ("hand:3/3", "hand:3/2", "board.start"),
            ("\"limited-squares\"]", "\"limited\"]", "aliases"),
        ] {
            assert!(text.contains(from), "{from}");
            let def = read(&text.replace(from, to));
            assert_eq!(def.differences(hans), vec![field], "{from} -> {to}");
        }
    }

    #[test]
    fn defaults_are_fide_chess() {
        let def = read(MINIMAL);
        assert_eq!(def.rules, *Variant::CHESS.rules());
        assert_eq!(def.start_fen, FIDE_START);
        assert_eq!(def.rules_page, "README.md");
        assert!(def.aliases.is_empty());
        assert_eq!(def.start_checked_as, Some(Variant::CHESS));
    }

    /// A file that differs from every built-in still reads, with its own switches, and its start is
    /// checked by the built-in that reads positions alike.
    #[test]
    fn a_new_combination_reads() {
        let text = format!(
            "{MINIMAL}[board]\nstart = \"rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:3/3\"\n\
             room = \"squares\"\n"
        );
        // `room` under [board] is not a board field.
        let e = refused(&text);
        assert_eq!((e.line, e.field.as_deref()), (Some(11), Some("board.room")), "{e}");
        let text = format!(
            "room = \"squares\"\n{MINIMAL}[board]\nstart = \"rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:3/3\"\n\
             [turn]\nrule = \"postal-plus\"\n[squares]\nownership = \"owned\"\nreserve = 3\nremoval-from-turn = 6\n\
             [ending]\nstalemate = \"loss\"\n"
        );
        let def = read(&text);
        let r = def.rules;
        assert_eq!(r.turn, TurnRule::PostalPlus);
        assert!(r.square_actions && r.owned_squares && r.placement_resets_clock);
        assert_eq!((r.reserve, r.removal_from_turn), (Reserve::Finite(3), Some(6)));
        assert_eq!((r.stalemate, r.dead_material), (StalemateRule::Loss, DeadMaterial::Fide));
        assert!(Variant::ALL.iter().all(|v| *v.rules() != r), "a combination no built-in has");
        assert_eq!(def.start_checked_as, Some(Variant::HANS38), "read as Hans38 reads positions");
        // Five squares in reserve: no built-in reads `hand:5/5`, so only the module's checks apply.
        let five = text.replace("reserve = 3", "reserve = 5").replace("hand:3/3", "hand:5/5");
        let def = read(&five);
        assert_eq!((def.rules.reserve, def.start_checked_as), (Reserve::Finite(5), None));
        // Even then the hand is checked against the reserve.
        for (hand, says) in [("hand:6/5", "at most 5"), ("hand:5", "at most 5"), ("", "add hand:5/5")] {
            let e = refused(&five.replace("hand:5/5", hand));
            assert_eq!(e.field.as_deref(), Some("board.start"), "{e}");
            assert!(e.message.contains(says), "{hand}: {e}");
        }
    }

    /// The line and the field of every refusal, and a word of what would be right.
    #[test]
    fn refusals_name_the_line_the_field_and_the_remedy() {
        let cases: &[(&str, usize, &str, &str)] = &[
            // Unknown fields, at any level.
            ("colour = \"blue\"\n", 1, "colour", "unknown field"),
            ("[ending]\nstalemate = \"win\"\n", 2, "ending.stalemate", "draw"),
            ("[board]\nfile = 8\n", 2, "board.file", "unknown field"),
            // Values of the wrong kind.
            ("[board]\nfiles = \"eight\"\n", 2, "board.files", "give a whole number"),
            ("[squares]\ncarry = \"yes\"\n", 2, "squares.carry", "give true or false"),
            ("[board]\nfiles = 9\n", 2, "board.files", "8 files"),
            ("[board]\nfiles = 7\n", 2, "board.files", "plain room plays on 8 files"),
            (
                "room = \"squares\"\n[board]\nfiles = 6\n",
                3,
                "board.files",
                "squares room plays on 7 or 8 files",
            ),
            ("[board]\nfiles = 300\n", 2, "board.files", "give a whole number"),
            ("[board]\nranks = 10\n", 2, "board.ranks", "8 ranks"),
            ("room = \"hexagons\"\n", 1, "room", "squares"),
            ("room = 3\n", 1, "room", "give one of \"plain\", \"squares\""),
            ("room = \"squares\"\n[squares]\nreserve = \"lots\"\n", 3, "squares.reserve", "unlimited"),
            ("room = \"squares\"\n[squares]\nreserve = 65\n", 3, "squares.reserve", "1 to 64"),
            ("room = \"squares\"\n[squares]\nreserve = -1\n", 3, "squares.reserve", "1 to 64"),
            (
                "room = \"squares\"\n[squares]\nremoval-from-turn = 0\n",
                3,
                "squares.removal-from-turn",
                "1 or more",
            ),
            // Combinations no room supports.
            ("[squares]\nreserve = 3\n", 1, "squares", "room = \"squares\""),
            (
                "room = \"quad-squares\"\n[board]\nfiles = 7\n[squares]\nreserve = 3\n",
                4,
                "squares",
                "quad-squares",
            ),
            ("[turn]\nrule = \"postal\"\n", 2, "turn.rule", "room = \"squares\""),
            ("room = \"chip\"\n[turn]\nrule = \"single\"\n", 3, "turn.rule", "piece-then-chip"),
            ("[turn]\nrule = \"piece-then-chip\"\n", 2, "turn.rule", "single"),
            ("room = \"tiles\"\n", 1, "squares", "owned"),
            (
                "room = \"tiles\"\n[squares]\nownership = \"neutral\"\nreserve = \"unlimited\"\n",
                3,
                "squares.ownership",
                "owned",
            ),
            (
                "room = \"tiles\"\n[squares]\nownership = \"owned\"\nreserve = 3\n",
                4,
                "squares.reserve",
                "unlimited",
            ),
            ("room = \"tiles\"\n[squares]\nreserve = \"unlimited\"\n", 2, "squares.ownership", "owned"),
            (
                "room = \"tiles\"\n[squares]\nownership = \"owned\"\nreserve = \"unlimited\"\ncarry = true\n",
                5,
                "squares.carry",
                "no removal, carrying",
            ),
            ("room = \"squares\"\n[squares]\nlock = \"moved-and-placed\"\n", 3, "squares.lock", "\"moved\""),
            (
                "room = \"squares\"\n[turn]\nrule = \"infinite-reserves\"\n[squares]\nreserve = 3\n",
                3,
                "turn.rule",
                "unlimited",
            ),
            ("room = \"quad-squares\"\n", 0, "board.start", "board.files says 7"),
            // The FIDE switches.
            ("[moves]\npromotions = []\n", 2, "moves.promotions", "at least one"),
            ("[moves]\npromotions = [\"king\"]\n", 2, "moves.promotions", "knight"),
            (
                "[moves]\npromotions = [\"queen\", \"knight\", \"queen\"]\n",
                2,
                "moves.promotions",
                "named twice",
            ),
            ("[moves]\npromotions = \"queen\"\n", 2, "moves.promotions", "a list of pieces"),
            ("[moves]\ncastling = \"no\"\n", 2, "moves.castling", "give true or false"),
            ("[moves]\ndouble-step = 0\n", 2, "moves.double-step", "give true or false"),
            ("[moves]\nen-passant = false\n", 2, "moves.en-passant", "unknown field"),
            ("[ending]\nmove-limit = 0\n", 2, "ending.move-limit", "1 to 1000"),
            ("[ending]\nmove-limit = 1001\n", 2, "ending.move-limit", "1 to 1000"),
            ("[ending]\nmove-limit = \"never\"\n", 2, "ending.move-limit", "\"none\""),
            (
                "room = \"quad-squares\"\n[board]\nfiles = 7\n[moves]\ndouble-step = false\n",
                5,
                "moves.double-step",
                "not a switch there",
            ),
            (
                "room = \"quad-squares\"\n[board]\nfiles = 7\n[moves]\npromotions = [\"queen\"]\n",
                5,
                "moves.promotions",
                "not a switch there",
            ),
            (
                "[board]\nstart = \"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3\"\n[moves]\n\
                 double-step = false\n",
                2,
                "board.start",
                "en passant field",
            ),
            // Names and texts.
            ("name = \"Hans 38\"\n", 1, "name", "lower-case"),
            ("aliases = [\"mini\"]\n", 1, "aliases", "twice"),
            ("rules-page = \"../../etc/passwd\"\n", 1, "rules-page", "docs/rules/"),
            // A field missing from a table, and a file that is not TOML.
            ("[board]\nstart = \"8/8\n", 2, "board.start", "invalid basic string"),
        ];
        for &(extra, line, field, remedy) in cases {
            // A case's first line goes first when it is a top-level key (its line 1 is the file's),
            // the rest after MINIMAL's tables (its line n is the file's n + MINIMAL's lines).
            let (top, tables) = match extra.split_once('\n') {
                Some((top, rest)) if !top.starts_with('[') => (format!("{top}\n"), rest),
                _ => (String::new(), extra),
            };
            let minimal = if top.starts_with("name") {
                MINIMAL.replacen("name = \"mini\"\n", "", 1)
            } else {
                MINIMAL.into()
            };
            let text = format!("{top}{minimal}{tables}");
            let line = match line {
                0 => 0,
                1 if !top.is_empty() => 1,
                n => n + MINIMAL.lines().count(),
            };
            let e = refused(&text);
            assert_eq!(e.field.as_deref(), Some(field), "{extra}: {e}");
            // Line 0: the error is about a default, written nowhere; it points at the file's top.
            assert_eq!(e.line, Some(line.max(1)), "{extra}: {e}");
            assert!(e.message.contains(remedy), "{extra}: {e} (wanted '{remedy}')");
        }
    }

    /// Starts that are not positions of the variant.
    #[test]
    fn bad_starts_are_refused() {
        let start = |fen: &str| format!("{MINIMAL}[board]\nstart = \"{fen}\"\n");
        for (fen, says) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "White has 0 kings"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "White has 2 kings"),
            ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "rank 8, where it would promote"),
            ("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNp w KQkq - 0 1", "rank 1, where it would promote"),
            ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks"),
            ("rnbqkbnr/pppppppp/8/8/7/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 4 has 7 locations"),
            ("rnbqkbnr/pppppppp/********/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "does not read"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "does not read"),
            ("", "empty"),
        ] {
            let e = refused(&start(fen));
            assert_eq!((e.line, e.field.as_deref()), (Some(10), Some("board.start")), "{fen}: {e}");
            assert!(e.to_string().contains(says), "{fen}: {e} (wanted '{says}')");
        }
    }

    #[test]
    fn a_missing_field_is_named_with_its_table() {
        let e = refused(&MINIMAL.replace("turn = \"Turn: one move.\"\n", ""));
        assert_eq!((e.line, e.field.as_deref()), (Some(5), Some("help.turn")), "{e}");
        assert!(e.message.contains("under [help]"), "{e}");
        let e = refused(&MINIMAL.replace("title = \"Mini\"\n", ""));
        assert_eq!(e.field.as_deref(), Some("title"), "{e}");
    }

    #[test]
    fn a_huge_file_is_refused_before_it_is_read() {
        let huge = format!("{MINIMAL}# {}\n", "x".repeat(MAX_FILE_BYTES));
        let e = refused(&huge);
        assert_eq!((e.line, e.field.as_deref()), (None, None));
        assert!(e.message.contains("at most 65536"), "{e}");
        // Just under the cap, the same file reads.
        let padded = format!("{MINIMAL}# {}\n", "x".repeat(MAX_FILE_BYTES - MINIMAL.len() - 3));
        assert_eq!(padded.len(), MAX_FILE_BYTES);
        read(&padded);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{MINIMAL}x = {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
        refused(&deep);
        let deep = format!("{MINIMAL}x = {}1{}\n", "{a=".repeat(20_000), "}".repeat(20_000));
        refused(&deep);
    }

    mod hostile {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            /// Any bytes read as text give a definition or an error, never a panic.
            #[test]
            fn any_text_reads_or_is_refused(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
                let text = String::from_utf8_lossy(&bytes);
                let _ = read_variant_file(&text);
            }

            /// A built-in file with a stretch replaced by arbitrary text: close to valid, so the
            /// checks past the parser are reached too. Whatever it gives, an error has a line
            /// inside the file.
            #[test]
            fn mangled_built_in_files_never_panic(
                file in 0..BUILT_IN_FILES.len(),
                at in 0usize..4000,
                len in 0usize..40,
                junk in "[ -~\n\u{e9}\u{2013}]{0,30}",
            ) {
                let text = BUILT_IN_FILES[file].1;
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) { at -= 1; }
                let mut end = (at + len).min(text.len());
                while !text.is_char_boundary(end) { end -= 1; }
                let mangled = format!("{}{}{}", &text[..at], junk, &text[end.max(at)..]);
                if let Err(e) = read_variant_file(&mangled) {
                    let lines = mangled.lines().count().max(1) + 1;
                    prop_assert!(e.line.is_none_or(|l| l >= 1 && l <= lines), "{e}");
                    prop_assert!(!e.message.is_empty());
                }
            }

            /// Any value in any field of a real file: refused or read, never a panic.
            #[test]
            fn any_value_in_any_field(
                file in 0..BUILT_IN_FILES.len(),
                line in 0usize..40,
                value in prop_oneof![
                    Just("\"\"".to_string()),
                    Just("0".to_string()),
                    Just("-1".to_string()),
                    Just("255".to_string()),
                    Just("99999999999999999999".to_string()),
                    Just("true".to_string()),
                    Just("[]".to_string()),
                    Just("{}".to_string()),
                    "\"[a-z*+!/0-9 -]{0,80}\"",
                    "-?[0-9]{1,12}",
                ],
            ) {
                let text = BUILT_IN_FILES[file].1;
                let lines: Vec<&str> = text.lines().collect();
                let Some(target) = lines.iter().enumerate().filter(|(_, l)| l.contains(" = ")).map(|(i, _)| i).nth(line % 12) else {
                    return Ok(());
                };
                let mut out = String::new();
                for (i, l) in lines.iter().enumerate() {
                    if i == target {
                        let key = l.split(" = ").next().unwrap_or_default();
                        out.push_str(&format!("{key} = {value}\n"));
                    } else {
                        out.push_str(l);
                        out.push('\n');
                    }
                }
                let _ = read_variant_file(&out);
            }
        }
    }

    /// The fields one serde struct accepts, as serde names them: a deserializer that records the
    /// list `deserialize_struct` is given, then stops.
    fn fields_of<'de, T: Deserialize<'de>>() -> Vec<&'static str> {
        #[derive(Debug)]
        struct Stop;
        impl fmt::Display for Stop {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("stop")
            }
        }
        impl std::error::Error for Stop {}
        impl de::Error for Stop {
            fn custom<M: fmt::Display>(_: M) -> Stop {
                Stop
            }
        }
        struct Recorder<'a>(&'a mut Vec<&'static str>);
        impl<'de> Deserializer<'de> for Recorder<'_> {
            type Error = Stop;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
                Err(Stop)
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Stop> {
                self.0.extend_from_slice(fields);
                Err(Stop)
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
                option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
                ignored_any
            }
        }
        let mut fields = Vec::new();
        assert!(T::deserialize(Recorder(&mut fields)).is_err());
        assert!(!fields.is_empty(), "{} is not a struct", std::any::type_name::<T>());
        fields
    }

    const DOC: &str = include_str!("../../docs/variant-files.md");

    /// The fields the doc's table lists, in its order: the first cell of each row under `## Fields`.
    fn documented_fields() -> Vec<String> {
        let section = DOC.split("\n## Fields\n").nth(1).expect("docs/variant-files.md has a Fields section");
        let section = section.split("\n## ").next().unwrap_or_default();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .map(|rest| rest.split('`').next().unwrap_or_default().to_string())
            .collect()
    }

    /// Every field the file format accepts is in docs/variant-files.md's table, and every field
    /// there is accepted: the two cannot drift apart.
    #[test]
    fn the_doc_lists_exactly_the_accepted_fields() {
        let tables: [(&str, Vec<&str>); 6] = [
            ("help", fields_of::<HelpToml>()),
            ("board", fields_of::<BoardToml>()),
            ("turn", fields_of::<TurnToml>()),
            ("squares", fields_of::<SquaresToml>()),
            ("moves", fields_of::<MovesToml>()),
            ("ending", fields_of::<EndingToml>()),
        ];
        let mut accepted = Vec::new();
        for top in fields_of::<FileToml>() {
            match tables.iter().find(|(table, _)| *table == top) {
                Some((table, fields)) => accepted.extend(fields.iter().map(|f| format!("{table}.{f}"))),
                None => accepted.push(top.to_string()),
            }
        }
        assert!(accepted.len() >= 20, "{accepted:?}");
        let documented = documented_fields();
        let mut sorted = documented.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), documented.len(), "a field documented twice: {documented:?}");
        for field in &accepted {
            assert!(documented.contains(field), "`{field}` is accepted but not in docs/variant-files.md");
        }
        for field in &documented {
            assert!(accepted.contains(field), "`{field}` is documented but not accepted");
        }
    }

    /// The full example in docs/variant-files.md reads, with the switches the doc says it has.
    #[test]
    fn the_doc_example_reads() {
        let example = DOC
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("docs/variant-files.md has a toml example");
        let def = read(example);
        assert_eq!(def.name, "hans38-wearing");
        assert_eq!(
            def.rules,
            Rules { turn: TurnRule::PostalPlus, removal_from_turn: Some(6), ..*Variant::HANS38.rules() }
        );
        assert!(Variant::ALL.iter().all(|v| *v.rules() != def.rules), "a combination no built-in has");
        assert_eq!(def.start_checked_as, Some(Variant::HANS38));
        // The refusal the doc quotes is the one given.
        let quad = "room = \"quad-squares\"\nname = \"q\"\ntitle = \"Q\"\nsummary = \"q\"\n[squares]\nreserve = 3\n\
                    [help]\nboard = \"b\"\nturn = \"Turn: t\"\nexample = \"e\"\n";
        let e = refused(quad);
        let quoted = "line 5, squares: the quad-squares room has no squares to move or place: the [squares] table needs\nroom = \"squares\" or \"tiles\"";
        assert!(DOC.contains(&format!("`{quoted}`")), "the doc quotes the refusal");
        assert_eq!(e.to_string(), quoted.replace('\n', " "));
    }
}
