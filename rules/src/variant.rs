//! The games Tessera plays, with their names and the rule switches that set them apart.
//!
//! A [`Variant`] is an id into a registry of [`VariantInfo`]s. The 13 built-ins are read from their
//! files (`data/variants/*.toml`, [`BUILT_IN_FILES`]) the first time any variant is asked about,
//! and keep the ids 0–12 in the files' order; [`Variant::register`] appends a variant defined by a
//! file of its own. An entry is never changed or removed once registered, so every lookup gives a
//! `&'static` reference, and reading one takes no lock.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{LazyLock, Mutex, OnceLock, RwLock};

use crate::types::Role;
use crate::variant_file::{BUILT_IN_FILES, VariantDef, read_built_in_file};

/// A game Tessera plays: one of the built-ins (the constants below, [`Variant::ALL`]) or one
/// registered from a variant file ([`Variant::register`]). It is an id into the registry; what
/// the variant is, [`Variant::info`] says.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant(u16);

/// The most variants one process registers, built-ins included.
pub const MAX_VARIANTS: usize = 4096;

impl Variant {
    /// FIDE chess.
    pub const CHESS: Variant = Variant(0);
    /// Betza's Hans38: holes between the armies, 3 owned squares in reserve each, one action a turn.
    pub const HANS38: Variant = Variant(1);
    pub const HANS38_POSTAL: Variant = Variant(2);
    pub const HANS38_POSTAL_PLUS: Variant = Variant(3);
    /// Hans38 without ownership of squares (L11).
    pub const HANS38_NEUTRAL: Variant = Variant(4);
    pub const HANS38_NEUTRAL_POSTAL: Variant = Variant(5);
    pub const HANS38_NEUTRAL_POSTAL_PLUS: Variant = Variant(6);
    /// The Game of Infinite Reserves (L12).
    pub const INFINITE_RESERVES: Variant = Variant(7);
    /// Moving Occupied Squares, with Infinite Reserves (L13).
    pub const MOVING_OCCUPIED_SQUARES: Variant = Variant(8);
    /// David Howe's Quad-Square Chess: 7x8 with six 2x2 quad-squares.
    pub const QUAD_SQUARE: Variant = Variant(9);
    /// Neal Turner's Blue Chip Chess.
    pub const BLUE_CHIP: Variant = Variant(10);
    /// Tony Quintanilla's Tiled Squares Chess.
    pub const TILED_SQUARES: Variant = Variant(11);
    /// Shrink Chess (Pepijn van Erp's rules).
    pub const SHRINK: Variant = Variant(12);

    /// The built-in variants, in the order `tessera variants` lists them and of their ids: the
    /// order of [`BUILT_IN_FILES`]. Variants registered later are not here; [`Variant::all`] has
    /// them too.
    pub const ALL: &'static [Variant] = &[
        Variant::CHESS,
        Variant::HANS38,
        Variant::HANS38_POSTAL,
        Variant::HANS38_POSTAL_PLUS,
        Variant::HANS38_NEUTRAL,
        Variant::HANS38_NEUTRAL_POSTAL,
        Variant::HANS38_NEUTRAL_POSTAL_PLUS,
        Variant::INFINITE_RESERVES,
        Variant::MOVING_OCCUPIED_SQUARES,
        Variant::QUAD_SQUARE,
        Variant::BLUE_CHIP,
        Variant::TILED_SQUARES,
        Variant::SHRINK,
    ];
}

/// What ends a game when the side to move has no legal turn and is not in check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StalemateRule {
    Draw,
    /// The stalemated side loses (the limited-squares family, L8).
    Loss,
}

/// How many actions make a turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TurnRule {
    /// One action: a piece move, a square move or a placement.
    Single,
    /// A piece move, then optionally one square action (L9).
    Postal,
    /// A piece move first, then optionally a square move and/or a placement, those two in either order (L9).
    PostalPlus,
    /// Postal Plus where the placement is required while a hole exists (L12).
    InfiniteReserves,
    /// A piece move, then the chip placed (Blue Chip, B1–B2); the very first turn places only the chip.
    PieceThenChip,
}

impl TurnRule {
    /// The Postal family of turns: a piece move followed by optional square actions (L9, L12).
    pub fn is_postal(self) -> bool {
        matches!(self, TurnRule::Postal | TurnRule::PostalPlus | TurnRule::InfiniteReserves)
    }
}

/// When too little material to mate ends the game as a draw (G4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeadMaterial {
    /// Never: every ending plays on (a square or tile can always change what mates).
    PlaysOn,
    /// The dead positions of FIDE chess: bare kings, a lone minor piece, same-coloured bishops.
    Fide,
    /// Only king against king: a chip can take a flight square away, so a lone minor piece can
    /// mate (Blue Chip).
    BareKings,
}

/// The pieces a pawn may promote to: a non-empty set of queen, rook, bishop and knight, as a bitmask
/// over [`Role::PROMOTIONS`] so move generation reads it once per pawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Promotions(u8);

impl Promotions {
    /// FIDE's four: queen, rook, bishop, knight.
    pub const ALL: Promotions = Promotions(0b1111);

    /// The set of these roles; `None` when it is empty or names a king or a pawn.
    pub fn of(roles: &[Role]) -> Option<Promotions> {
        let mut bits = 0u8;
        for role in roles {
            bits |= 1 << Role::PROMOTIONS.iter().position(|r| r == role)?;
        }
        (bits != 0).then_some(Promotions(bits))
    }

    #[inline]
    pub fn contains(self, role: Role) -> bool {
        Role::PROMOTIONS.iter().position(|&r| r == role).is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// The roles in the set, in [`Role::PROMOTIONS`]'s order (queen, rook, bishop, knight).
    #[inline]
    pub fn roles(self) -> impl Iterator<Item = Role> + Clone {
        Role::PROMOTIONS.into_iter().enumerate().filter(move |(i, _)| self.0 & (1 << i) != 0).map(|(_, r)| r)
    }

    /// How many pieces a pawn may become.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The set as a bitmask over [`Role::PROMOTIONS`]: bit 0 the queen, bit 3 the knight.
    #[inline]
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The pieces by name for players: "a queen or a knight".
    pub fn names(self) -> String {
        let names: Vec<String> = self.roles().map(|r| format!("a {}", r.name())).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// Squares in hand at the start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reserve {
    None,
    Finite(u8),
    Infinite,
}

/// The switches that make a variant, so move generation reads rules instead of variant names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    pub turn: TurnRule,
    /// Squares can be moved or placed at all.
    pub square_actions: bool,
    /// Squares have owners; only the owner moves an empty square; moving onto an enemy square takes it (L10).
    pub owned_squares: bool,
    pub reserve: Reserve,
    /// From this turn number on, the square a moving piece leaves is removed (L12).
    pub removal_from_turn: Option<u32>,
    /// A square holding a friendly piece may be moved one step, carrying it (L13).
    pub carry: bool,
    pub stalemate: StalemateRule,
    /// Which material draws by itself (G4).
    pub dead_material: DeadMaterial,
    /// A square placed is locked for the opponent's next turn like a moved one (L5): in every
    /// neutral game with Postal turns (Neutral Postal, Neutral Postal Plus, Infinite Reserves and
    /// Moving Occupied Squares); elsewhere only the moved square is locked.
    pub placement_locks: bool,
    /// A placement resets the move counter (G3), except where it is compulsory every turn and
    /// would keep the 50-move rule from ever applying.
    pub placement_resets_clock: bool,
    /// Board width in files.
    pub width: u8,
    /// The board has Quad-Square Chess's quad-squares.
    pub quad_squares: bool,
    /// Blue Chip Chess: a chip closes one empty square to the side to move.
    pub chip: bool,
    /// Tiled Squares Chess: pieces pass over void, anti-tiles block, kings lay tiles (T1–T7).
    pub tiles: bool,
    /// Shrink Chess: a line a move empties is removed and the board closes up towards a1 (S1–S6).
    pub shrink: bool,
    /// Castling exists at all. Without it no position of the variant has castling rights (the
    /// position reader refuses them), so move generation never meets one.
    pub castling: bool,
    /// A pawn on its start rank may step two squares (and so be taken en passant).
    pub double_step: bool,
    /// The pieces a pawn may promote to.
    pub promotions: Promotions,
    /// The move count of the 50-move rule (G3), in moves of each side: a draw to claim once the
    /// last `n` moves of each side took nothing and moved no pawn, and automatic at one and a half
    /// times that (FIDE's 50 and 75). `None`: no such rule.
    pub move_limit: Option<u16>,
}

impl Rules {
    /// Whether a piece move leaves every square and hole where it was. Move generation takes
    /// shortcuts (pins, king steps) only then.
    #[inline]
    pub fn piece_moves_keep_geometry(&self) -> bool {
        self.removal_from_turn.is_none() && !self.shrink
    }

    /// The half-moves without a capture or a pawn move after which a draw may be claimed: 100 in
    /// FIDE chess; `None` without a move-count rule.
    #[inline]
    pub fn claim_plies(&self) -> Option<u32> {
        self.move_limit.map(|n| 2 * u32::from(n))
    }

    /// The half-moves after which the game is drawn by itself: 150 in FIDE chess, three times the
    /// move count in general; `None` without a move-count rule.
    #[inline]
    pub fn automatic_plies(&self) -> Option<u32> {
        self.move_limit.map(|n| 3 * u32::from(n))
    }

    /// Whether only the pieces move, one a turn: no squares, tiles or chip change the board
    /// between them (FIDE chess, Quad-Square, Shrink, whose board shrinks only by where the pieces
    /// went).
    #[inline]
    pub fn only_pieces_move(&self) -> bool {
        !self.square_actions && !self.tiles && !self.chip && self.turn == TurnRule::Single
    }

    /// Whether the pieces move as in FIDE chess: castling, the double step, all four promotions.
    #[inline]
    pub fn fide_moves(&self) -> bool {
        self.castling && self.double_step && self.promotions == Promotions::ALL
    }
}

/// One variant: everything Tessera knows and says about it, made from its file
/// ([`crate::variant_file::VariantDef`]). [`Variant::info`] gives a variant's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VariantInfo {
    pub variant: Variant,
    /// The canonical name, used in commands, records and the CLI.
    pub name: &'static str,
    /// Other names players type for the same game.
    pub aliases: &'static [&'static str],
    /// The game's full name, for documents: "Neal Turner's Blue Chip Chess".
    pub title: &'static str,
    /// A one-line description for `tessera variants` and the help command.
    pub summary: &'static str,
    /// What `!t rules` explains; the text itself is [`Variant::help`].
    pub help: Help,
    /// The start position in Tessera's text format.
    pub start_fen: &'static str,
    /// The page under `docs/rules/` with the rules and rulings Tessera plays by.
    pub rules_page: &'static str,
    /// The rule switches: what move generation reads.
    pub rules: Rules,
    /// How a stored game names this definition: the name for a built-in, `name@hash` of the
    /// file's text for a variant registered from a file ([`Variant::key`]).
    pub key: &'static str,
    /// The text of the file a community variant was registered from; `None` for a built-in (its
    /// file is compiled in, and its rules never change under a stored game).
    pub source: Option<&'static str>,
}

/// A variant's rules for a new player, in three lines; what ends the game follows from [`Rules`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Help {
    /// The board and what is on it at the start.
    pub board: &'static str,
    /// How a turn is built.
    pub turn: &'static str,
    /// A legal first turn of the side that begins (where the opening turn is a special one, as
    /// Blue Chip's chip alone, a legal turn after it).
    pub example: &'static str,
    /// The rules in full, where the file gives them (a community variant); empty otherwise.
    pub rules: &'static str,
}

// The built-in files are the built-in constants, one for one and in order.
const _: () = assert!(Variant::ALL.len() == BUILT_IN_FILES.len(), "one constant a built-in file");

/// Every registered variant: a slot per id, each set once and never changed, so a lookup is a
/// load and no lock.
struct Registry {
    slots: Box<[OnceLock<&'static VariantInfo>]>,
    /// The variants registered, in the order of their ids: what [`Variant::all`] and the name
    /// parser read.
    listed: RwLock<Vec<Variant>>,
    /// The next free id. Held while a variant is registered, so two registrations never race.
    next: Mutex<usize>,
    /// Every registered community definition by its key ([`Variant::key`]), listed or not.
    by_key: RwLock<HashMap<&'static str, Variant>>,
}

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    let slots: Box<[OnceLock<&'static VariantInfo>]> = (0..MAX_VARIANTS).map(|_| OnceLock::new()).collect();
    for (i, (file, source)) in BUILT_IN_FILES.iter().enumerate() {
        let def = read_built_in_file(source).unwrap_or_else(|e| panic!("data/variants/{file}.toml: {e}"));
        assert_eq!(def.name, *file, "data/variants/{file}.toml names another variant");
        let id = u16::try_from(i).expect("13 built-ins");
        let key = text(def.name.clone());
        assert!(slots[i].set(leak(Variant(id), def, key, None)).is_ok(), "each slot is set once");
    }
    Registry {
        slots,
        listed: RwLock::new(Variant::ALL.to_vec()),
        next: Mutex::new(BUILT_IN_FILES.len()),
        by_key: RwLock::new(HashMap::new()),
    }
});

fn text(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A definition's texts leaked, to live as long as the process, as every registered variant does.
fn leak(
    variant: Variant,
    def: VariantDef,
    key: &'static str,
    source: Option<&'static str>,
) -> &'static VariantInfo {
    let aliases: Vec<&'static str> = def.aliases.into_iter().map(text).collect();
    Box::leak(Box::new(VariantInfo {
        variant,
        name: text(def.name),
        aliases: Box::leak(aliases.into_boxed_slice()),
        title: text(def.title),
        summary: text(def.summary),
        help: Help {
            board: text(def.help.board),
            turn: text(def.help.turn),
            example: text(def.help.example),
            rules: text(def.help.rules),
        },
        start_fen: text(def.start_fen),
        rules_page: text(def.rules_page),
        rules: def.rules,
        key,
        source,
    }))
}

/// The key a stored game keeps for a community definition: its name, `@`, and a 64-bit FNV-1a
/// hash of the file's text, so two processes reading the same file agree on it without talking,
/// and an edited file gets a key of its own.
fn definition_key(name: &str, source: &str) -> String {
    let hash = source
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{name}@{hash:016x}")
}

/// A name as the name parser compares it: letters and digits, lower case, `+` as "plus". Variant
/// files check their names with it too, so a name they accept is one the parser finds.
pub(crate) fn normalised(name: &str) -> String {
    name.replace('+', "plus")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Variant {
    /// Every registered variant, in the order of their ids: the built-ins ([`Variant::ALL`]), then
    /// those [`Variant::register`] added, in the order they were added.
    pub fn all() -> Vec<Variant> {
        REGISTRY.listed.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Adds a variant defined by a file (see [`crate::variant_file::read_variant_file`]) and gives
    /// its id. Refused, with the reason, when a registered variant already answers to its name or
    /// one of its aliases (as the name parser compares them), when its start position does not
    /// read under its own rules, or when the registry is full. Without the file's text it has no
    /// key a stored game could keep: [`Variant::register_file`] is what the bot uses.
    pub fn register(def: VariantDef) -> Result<Variant, String> {
        // The key hashes the definition itself: registering it again gives the same variant, and
        // another definition under the same name is refused, not taken for this one.
        let key = definition_key(&def.name, &format!("{def:?}"));
        Variant::add(def, key, None, true)
    }

    /// Reads a variant file and registers what it defines as a listed variant, found by its names
    /// ([`Variant::register`]), keeping the text so a game can store the definition it started
    /// with. The refusal is the reader's message (with line and field) or the registry's.
    pub fn register_file(source: &str) -> Result<Variant, String> {
        let def = crate::variant_file::read_variant_file(source).map_err(|e| e.to_string())?;
        Variant::register_read(def, source)
    }

    /// [`Variant::register_file`] for a caller that has read the file already (to look at its
    /// name, or to report its refusal with line and field): `def` must be what `source` reads as.
    pub fn register_read(def: VariantDef, source: &str) -> Result<Variant, String> {
        let key = definition_key(&def.name, source);
        Variant::add(def, key, Some(source), true)
    }

    /// The variant a stored game's definition gives: the registered one with the same key when
    /// there is one, else the text read and registered unlisted (its names stay with whatever
    /// variant is listed under them, and it is never offered for a new game), so a game goes on
    /// by the rules it started with after its file was changed or removed.
    pub fn pinned(source: &str) -> Result<Variant, String> {
        let def = crate::variant_file::read_variant_file(source).map_err(|e| e.to_string())?;
        let key = definition_key(&def.name, source);
        if let Some(v) = Variant::by_key(&key) {
            return Ok(v);
        }
        Variant::add(def, key, Some(source), false)
    }

    /// The variant a key names ([`Variant::key`]): a built-in's name, or a registered community
    /// definition's `name@hash`.
    pub fn by_key(key: &str) -> Option<Variant> {
        if let Some(v) = Variant::ALL.iter().find(|v| v.name() == key) {
            return Some(*v);
        }
        REGISTRY.by_key.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(key).copied()
    }

    /// How a stored game names this variant's definition: the name of a built-in, `name@hash` of
    /// a community variant's file (what [`Variant::by_key`] and [`Variant::pinned`] read back).
    pub fn key(self) -> &'static str {
        self.info().key
    }

    /// The text of the file a community variant was read from; `None` for a built-in.
    pub fn source(self) -> Option<&'static str> {
        self.info().source
    }

    /// One of the 13 variants compiled in.
    pub fn is_built_in(self) -> bool {
        self.index() < Variant::ALL.len()
    }

    fn add(def: VariantDef, key: String, source: Option<&str>, listed: bool) -> Result<Variant, String> {
        let registry = &*REGISTRY;
        let mut next = registry.next.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The same text registered again (a second load of a directory, a stored game's file that
        // is the listed one) is the variant registered the first time.
        let known = registry
            .by_key
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key.as_str())
            .copied();
        if let Some(v) = known
            && (!listed || Variant::all().contains(&v))
        {
            return Ok(v);
        }
        let names: Vec<&str> =
            std::iter::once(def.name.as_str()).chain(def.aliases.iter().map(String::as_str)).collect();
        let mut seen: Vec<String> = Vec::with_capacity(names.len());
        for name in &names {
            let n = normalised(name);
            if n.is_empty() {
                return Err(format!("\"{name}\" is not a name: a name needs a letter or a digit"));
            }
            if seen.contains(&n) {
                return Err(format!("\"{name}\" names this variant twice: give each name once"));
            }
            // An unlisted definition is a stored game's: its names belong to the listed variant.
            let taken = Variant::all().into_iter().find(|v| {
                std::iter::once(v.name()).chain(v.aliases().iter().copied()).any(|a| normalised(a) == n)
            });
            match taken {
                Some(v) if Some(v) != known && (listed || v.is_built_in()) => {
                    return Err(format!("\"{name}\" is already a name of the variant {v}"));
                }
                _ => {}
            }
            seen.push(n);
        }
        if let Some(v) = known {
            // Registered unlisted for a stored game, now listed by its file.
            registry.listed.write().unwrap_or_else(std::sync::PoisonError::into_inner).push(v);
            return Ok(v);
        }
        let id = match u16::try_from(*next) {
            Ok(id) if *next < MAX_VARIANTS => id,
            _ => return Err(format!("no more variants: at most {MAX_VARIANTS} are registered")),
        };
        // The id is taken even if the start is refused below: its slot is set, and a slot is set once.
        *next += 1;
        let variant = Variant(id);
        let key = text(key);
        let info = leak(variant, def, key, source.map(|s| text(s.to_string())));
        assert!(registry.slots[usize::from(id)].set(info).is_ok(), "each slot is set once");
        // Only now can the start be read as this variant's: the reader looks its rules up by id.
        if let Err(e) = crate::Position::from_fen(variant, info.start_fen) {
            return Err(format!("the start position does not read: {e}"));
        }
        registry.by_key.write().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, variant);
        if listed {
            registry.listed.write().unwrap_or_else(std::sync::PoisonError::into_inner).push(variant);
        }
        Ok(variant)
    }

    /// This variant's id: its place in the registry, 0–12 for the built-ins in [`Variant::ALL`]'s order.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// What Tessera knows and says about this variant.
    #[inline]
    pub fn info(self) -> &'static VariantInfo {
        REGISTRY.slots[usize::from(self.0)].get().expect("a variant is registered before its id is given out")
    }

    /// The canonical name, used in commands, records and the CLI.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Other names players type for the same game.
    pub fn aliases(self) -> &'static [&'static str] {
        self.info().aliases
    }

    /// The game's full name, for documents.
    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// A one-line description for `tessera variants` and the help command.
    pub fn summary(self) -> &'static str {
        self.info().summary
    }

    /// The start position in Tessera's text format.
    pub fn start_fen(self) -> &'static str {
        self.info().start_fen
    }

    /// The rule switches of this variant. A registry lookup: move generation reads the copy its
    /// [`crate::Position`] keeps instead ([`crate::Position::rules`]).
    #[inline]
    pub fn rules(self) -> &'static Rules {
        &self.info().rules
    }

    /// What ends a game, from the rule switches: one line starting `Ends: `.
    pub fn ends(self) -> String {
        let stalemate = match self.stalemate() {
            StalemateRule::Loss => "a player with no legal turn loses (stalemate too)",
            StalemateRule::Draw => "stalemate draws",
        };
        let material = match self.dead_material() {
            DeadMaterial::PlaysOn => "no ending is drawn for lack of material",
            DeadMaterial::Fide => "dead positions draw",
            DeadMaterial::BareKings => "only bare kings are a dead draw",
        };
        let count = match self.rules().move_limit {
            Some(50) => "repetition and the 50-move rule as in chess".to_string(),
            Some(n) => {
                let automatic = u32::from(n) * 3;
                let automatic = if automatic % 2 == 0 {
                    (automatic / 2).to_string()
                } else {
                    format!("{}½", automatic / 2)
                };
                format!(
                    "repetition as in chess, and a {n}-move rule in place of the 50-move rule (a draw to \
                     claim after {n} moves of each side without a capture or a pawn move, automatic after \
                     {automatic})"
                )
            }
            None => "repetition as in chess, and no 50-move rule".to_string(),
        };
        format!("Ends: checkmate wins; {stalemate}; {material}; {count} (`!t claim`).")
    }

    /// Where the pieces move otherwise than in chess (no castling, no double step, fewer
    /// promotions): one line starting `Moves: `, or `None` for FIDE's moves.
    pub fn moves_note(self) -> Option<String> {
        let rules = self.rules();
        if rules.fide_moves() {
            return None;
        }
        let mut notes = Vec::new();
        if !rules.castling {
            notes.push("there is no castling".to_string());
        }
        if !rules.double_step {
            notes.push("pawns never step two squares (so there is no en passant)".to_string());
        }
        if rules.promotions != Promotions::ALL {
            notes.push(format!("a pawn promotes only to {}", rules.promotions.names()));
        }
        Some(format!("Moves: {}.", notes.join("; ")))
    }

    /// `!t rules V`: how a turn is built, one example turn, and what ends the game, in a few lines.
    pub fn help(self) -> String {
        let Help { board, turn, example, rules } = self.info().help;
        let moves = self.moves_note().map(|m| format!("{m}\n")).unwrap_or_default();
        // A community variant's own rules text follows; a built-in's rules are on its docs page.
        let rules = if rules.is_empty() { String::new() } else { format!("\n\n{rules}") };
        format!(
            "**{}**: {}\n{board}\n{turn}\nExample: `{example}`\n{moves}{}{rules}",
            self.name(),
            self.summary(),
            self.ends()
        )
    }

    pub fn stalemate(self) -> StalemateRule {
        self.rules().stalemate
    }

    /// Whether a piece move leaves every square and hole where it was. Move generation takes
    /// shortcuts (pins, king steps) only then.
    pub fn piece_moves_keep_geometry(self) -> bool {
        self.rules().piece_moves_keep_geometry()
    }

    /// Which material draws by rule (G4).
    pub fn dead_material(self) -> DeadMaterial {
        self.rules().dead_material
    }
}

/// `docs/variants.md`, the built-ins as their files say them: `tessera variants --markdown` prints it, and
/// `tests/tests/variants_doc.rs` fails while the file differs.
pub fn variants_markdown() -> String {
    let code = |s: &str| format!("`{s}`");
    let mut out = String::from(
        "# Variants\n\
         \n\
         <!-- Made from the built-in variant files in data/variants/; do not edit it here. After changing\n\
         \x20    a file, regenerate it with `cargo run -p tessera-bot -- variants --markdown > docs/variants.md`\n\
         \x20    or `TESSERA_BLESS=1 cargo test -p tessera-tests --test variants_doc`; that test fails while\n\
         \x20    this file and the variants differ. -->\n\
         \n\
         `tessera variants` lists them; names are accepted in any case, with `-`, `_` or spaces, and `+` \
         for \"plus\". How to add one: [adding a variant](adding-a-variant.md).\n\
         \n\
         | name | also | the game |\n\
         |---|---|---|\n",
    );
    for v in Variant::ALL {
        let also: Vec<String> = v.aliases().iter().map(|a| code(a)).collect();
        let also = if also.is_empty() { " ".to_string() } else { format!(" {} ", also.join(", ")) };
        out.push_str(&format!("| [`{0}`](#{0}) |{also}| {1} |\n", v.name(), v.summary()));
    }
    out.push_str(
        "\nThe rules as Tessera plays them, with its rulings, are in [the rules](rules/README.md), one page \
         per family. Below, each variant as `!t rules` explains it, and its start position in \
         [Tessera's position text](position-format.md).\n",
    );
    for v in Variant::ALL {
        let info = v.info();
        out.push_str(&format!(
            "\n## {name}\n\n**{title}**: {summary}. Its rules and rulings: [rules/{page}](rules/{page}).\n\n\
             {board}\n\n{turn}\n\n\
             Example: `{example}`\n\n{ends}\n\nStart: `{fen}`\n",
            name = info.name,
            title = info.title,
            summary = info.summary,
            page = info.rules_page,
            board = info.help.board,
            turn = info.help.turn,
            example = info.help.example,
            ends = v.ends(),
            fen = info.start_fen,
        ));
    }
    out
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name in camel case, as the built-ins were spelled when they were an enum: `Hans38PostalPlus`.
impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for word in self.name().split('-') {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                write!(f, "{}{}", first.to_ascii_uppercase(), chars.as_str())?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::all().iter().map(|v| v.name()).collect();
        write!(f, "unknown variant \"{}\"; choose one of: {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    /// Accepts names and aliases in any case, with `-`, `_` or spaces between words; `+` reads as "plus".
    fn from_str(text: &str) -> Result<Variant, UnknownVariant> {
        let wanted = normalised(text);
        Variant::all()
            .into_iter()
            .find(|v| normalised(v.name()) == wanted || v.aliases().iter().any(|a| normalised(a) == wanted))
            .ok_or_else(|| UnknownVariant(text.chars().take(40).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-ins' ids and order are fixed: records, the store and `tessera variants` keep them.
    #[test]
    fn the_built_ins_keep_their_ids_and_order() {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(
            names,
            [
                "chess",
                "hans38",
                "hans38-postal",
                "hans38-postal-plus",
                "hans38-neutral",
                "hans38-neutral-postal",
                "hans38-neutral-postal-plus",
                "infinite-reserves",
                "moving-occupied-squares",
                "quad-square",
                "blue-chip",
                "tiled-squares",
                "shrink",
            ]
        );
        let constants = [
            (Variant::CHESS, "Chess"),
            (Variant::HANS38, "Hans38"),
            (Variant::HANS38_POSTAL, "Hans38Postal"),
            (Variant::HANS38_POSTAL_PLUS, "Hans38PostalPlus"),
            (Variant::HANS38_NEUTRAL, "Hans38Neutral"),
            (Variant::HANS38_NEUTRAL_POSTAL, "Hans38NeutralPostal"),
            (Variant::HANS38_NEUTRAL_POSTAL_PLUS, "Hans38NeutralPostalPlus"),
            (Variant::INFINITE_RESERVES, "InfiniteReserves"),
            (Variant::MOVING_OCCUPIED_SQUARES, "MovingOccupiedSquares"),
            (Variant::QUAD_SQUARE, "QuadSquare"),
            (Variant::BLUE_CHIP, "BlueChip"),
            (Variant::TILED_SQUARES, "TiledSquares"),
            (Variant::SHRINK, "Shrink"),
        ];
        for (i, (v, debug)) in constants.into_iter().enumerate() {
            assert_eq!((v.index(), Variant::ALL[i]), (i, v), "{v}");
            assert_eq!(format!("{v:?}"), debug, "Debug spells the name as the enum did");
            assert_eq!(BUILT_IN_FILES[i].0, v.name(), "the files follow the ids");
        }
        // What is registered starts with the built-ins, in order (other tests may add more after).
        assert_eq!(&Variant::all()[..Variant::ALL.len()], Variant::ALL);
    }

    /// Each built-in's info is what its file says: every text, the start and every rule switch.
    #[test]
    fn every_built_in_is_what_its_file_says() {
        for (&v, (file, text)) in Variant::ALL.iter().zip(BUILT_IN_FILES) {
            let def = crate::variant_file::read_variant_file(text).unwrap_or_else(|e| panic!("{file}: {e}"));
            let info = v.info();
            assert_eq!(info.variant, v);
            assert_eq!(def.differences(info), Vec::<&str>::new(), "{file}");
            assert_eq!(info.name, def.name);
            assert!(info.aliases.iter().copied().eq(def.aliases.iter().map(String::as_str)), "{file}");
            assert_eq!((info.title, info.summary), (def.title.as_str(), def.summary.as_str()), "{file}");
            assert_eq!(
                (info.help.board, info.help.turn, info.help.example),
                (def.help.board.as_str(), def.help.turn.as_str(), def.help.example.as_str()),
                "{file}"
            );
            assert_eq!((info.start_fen, info.rules_page), (def.start_fen.as_str(), def.rules_page.as_str()));
            assert_eq!(info.rules, def.rules, "{file}");
            assert_eq!(def.start_checked_as, Some(v), "{file}: its start reads as itself");
            assert!(std::ptr::eq(v.info(), info) && std::ptr::eq(v.rules(), &info.rules));
            assert_eq!(v.to_string(), info.name);
            assert!(!info.title.is_empty() && !info.summary.is_empty(), "{v}");
            assert!(!info.summary.contains('|') && !info.summary.ends_with('.'), "{v}: one plain line");
            assert!(info.help.turn.starts_with("Turn: "), "{v}: the turn");
            assert!(info.rules_page.ends_with(".md"), "{v}");
            let text = v.help();
            assert!(text.starts_with(&format!("**{}**: ", info.name)) && text.contains("\nEnds: "), "{text}");
        }
    }

    /// A variant defined by a file is registered after the built-ins, found by its names, and plays;
    /// a name or alias another variant has is refused, and so is a start its rules cannot read.
    #[test]
    fn a_registered_variant_is_found_and_plays() {
        let tiny = |name: &str, aliases: &str, start: &str| {
            let text = format!(
                "name = \"{name}\"\naliases = [{aliases}]\ntitle = \"T\"\nsummary = \"a test\"\nroom = \"squares\"\n\
                 [help]\nboard = \"b\"\nturn = \"Turn: t\"\nexample = \"@@e4\"\n[board]\nstart = \"{start}\"\n\
                 [turn]\nrule = \"postal-plus\"\n[squares]\nownership = \"owned\"\nreserve = 5\n"
            );
            crate::variant_file::read_variant_file(&text).unwrap_or_else(|e| panic!("{e}"))
        };
        let start =
            "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:5/5";
        let v = Variant::register(tiny("registry-test-five", "\"rt-five\"", start)).unwrap();
        assert!(v.index() >= Variant::ALL.len(), "{}", v.index());
        assert!(!Variant::ALL.contains(&v) && Variant::all().contains(&v));
        assert_eq!("Registry Test Five".parse::<Variant>(), Ok(v));
        assert_eq!("RT_FIVE".parse::<Variant>(), Ok(v));
        assert_eq!(format!("{v} {v:?}"), "registry-test-five RegistryTestFive");
        assert_eq!(v.rules().reserve, Reserve::Finite(5));
        assert_eq!(v.rules().turn, TurnRule::PostalPlus);
        // Its positions read and play by its rules: five squares in hand, and Postal Plus turns.
        let pos = crate::Position::start(v);
        assert_eq!(pos.variant(), v);
        assert_eq!(pos.fen(), start);
        assert!(std::ptr::eq(pos.rules(), v.rules()));
        let mut game = crate::Game::from_variant(v);
        game.play_text("@@e4 @e4-e5").unwrap();
        assert_eq!(game.position().turn(), crate::Color::Black);

        // Names already taken, by a built-in or by the variant just registered.
        for (name, aliases, taken) in [
            ("hans-38", "", "hans38"),
            ("registry-test-other", "\"fide\"", "chess"),
            ("registry-test-other", "\"registry-test-five\"", "registry-test-five"),
            ("rt-five", "", "registry-test-five"),
        ] {
            let e = Variant::register(tiny(name, aliases, start)).unwrap_err();
            assert!(e.contains("already a name of the variant") && e.ends_with(taken), "{name}: {e}");
        }
        // A start its own rules do not read (a hand larger than its reserve) is refused, and the
        // name stays free.
        let mut bad = tiny("registry-test-bad", "", start);
        bad.start_fen = bad.start_fen.replace("hand:5/5", "hand:9/9");
        let e = Variant::register(bad).unwrap_err();
        assert!(e.contains("start position does not read"), "{e}");
        assert!("registry-test-bad".parse::<Variant>().is_err());
    }

    /// A game stores its definition's key and text; after the file changes, the listed variant is
    /// the new one, and the stored text still gives the old rules under the same name.
    #[test]
    fn a_stored_definition_outlives_its_file() {
        let file = |reserve: u8| {
            format!(
                "name = \"pinned-test\"\ntitle = \"T\"\nsummary = \"a test\"\nroom = \"squares\"\n\
                 [help]\nboard = \"b\"\nturn = \"Turn: t\"\nexample = \"@@e4\"\n[board]\n\
                 start = \"rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 \
                 hand:{reserve}/{reserve}\"\n[squares]\nownership = \"owned\"\nreserve = {reserve}\n"
            )
        };
        let (old, new) = (file(4), file(6));
        let v_old = Variant::register_file(&old).unwrap();
        assert!(!v_old.is_built_in() && Variant::CHESS.is_built_in());
        assert_eq!(v_old.source(), Some(old.as_str()));
        assert!(v_old.key().starts_with("pinned-test@") && v_old.key().len() == "pinned-test@".len() + 16);
        assert_eq!(Variant::by_key(v_old.key()), Some(v_old));
        assert_eq!(Variant::pinned(&old), Ok(v_old), "the same text is the same variant");
        assert_eq!(Variant::by_key("chess"), Some(Variant::CHESS));
        assert_eq!(Variant::CHESS.key(), "chess");
        assert_eq!(Variant::CHESS.source(), None);

        // The file is edited: listing it again under its name is refused while the old one is
        // listed (one process lists one file a name); a stored game's text is pinned beside it.
        assert!(Variant::register_file(&new).unwrap_err().contains("already a name"));
        let v_new = Variant::pinned(&new).unwrap();
        assert_ne!(v_new, v_old);
        assert_ne!(v_new.key(), v_old.key());
        assert_eq!(v_new.name(), "pinned-test");
        assert_eq!(v_new.rules().reserve, Reserve::Finite(6));
        assert_eq!(v_old.rules().reserve, Reserve::Finite(4));
        assert_eq!("pinned-test".parse::<Variant>(), Ok(v_old), "the name finds the listed one");
        assert!(!Variant::all().contains(&v_new), "a pinned definition is not offered");
        assert_eq!(crate::Position::start(v_new).fen().rsplit(' ').next(), Some("hand:6/6"));

        // A pinned text can never take a built-in's name, and a bad text says why.
        assert!(
            Variant::pinned(&new.replace("pinned-test", "hans38")).unwrap_err().contains("already a name")
        );
        assert!(Variant::pinned("name = 3").is_err());
        assert_eq!(Variant::by_key("pinned-test@0000000000000000"), None);
    }

    /// A file's rules text is shown by `!t rules` after the three lines; one too long, or with
    /// control characters, is refused at `help.rules`.
    #[test]
    fn a_files_rules_text_follows_the_help() {
        let (_, chess) = BUILT_IN_FILES[Variant::CHESS.index()];
        // `rules` is the value as TOML writes it.
        let with = |rules: &str| {
            chess
                .replace("name = \"chess\"", "name = \"rules-text-test\"")
                .replace("example = ", &format!("rules = {rules}\nexample = "))
        };
        let text = with(r#""Chess, with its rules told in full.\n\nA second paragraph.""#);
        let file = text.lines().filter(|l| !l.starts_with("aliases")).collect::<Vec<_>>().join("\n");
        let v = Variant::register_file(&file).unwrap();
        let help = v.help();
        assert!(help.ends_with("\n\nChess, with its rules told in full.\n\nA second paragraph."), "{help}");
        assert!(Variant::CHESS.info().help.rules.is_empty() && !Variant::CHESS.help().contains("\n\n"));
        let too_long = format!("\"{}\"", "x".repeat(crate::variant_file::MAX_RULES_CHARS + 1));
        for bad in [too_long.as_str(), r#""a\u0007bell""#, r#""  ""#] {
            let e = crate::variant_file::read_variant_file(&with(bad)).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("help.rules"), "{e}");
        }
    }

    #[test]
    fn every_start_position_parses_and_fits_its_rules() {
        for &v in Variant::ALL {
            let pos = crate::Position::from_fen(v, v.start_fen())
                .unwrap_or_else(|e| panic!("{v}: {}: {e}", v.start_fen()));
            assert_eq!(crate::Position::start(v).fen(), pos.fen(), "{v}");
        }
    }

    #[test]
    fn names_and_aliases_parse() {
        for &v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            for a in v.aliases() {
                assert_eq!(a.parse::<Variant>(), Ok(v), "{a}");
            }
        }
        assert_eq!("FIDE".parse::<Variant>(), Ok(Variant::CHESS));
        assert_eq!("Hans38 Postal+".parse::<Variant>(), Ok(Variant::HANS38_POSTAL_PLUS));
        assert_eq!("hans38_neutral".parse::<Variant>(), Ok(Variant::HANS38_NEUTRAL));
        let err = "checkers".parse::<Variant>().unwrap_err();
        assert!(err.to_string().contains("chess"));
    }

    #[test]
    fn names_are_unique_after_normalising() {
        let mut seen = std::collections::HashSet::new();
        for &v in Variant::ALL {
            for name in std::iter::once(v.name()).chain(v.aliases().iter().copied()) {
                let n: String =
                    name.replace('+', "plus").chars().filter(|c| c.is_ascii_alphanumeric()).collect();
                assert!(seen.insert(n.to_lowercase()), "{name} is used twice");
            }
        }
    }

    /// `!t rules` says which squares are locked as the rules lock them (L5): both the placed and
    /// the moved square in the neutral Postal games, only the moved one elsewhere.
    #[test]
    fn the_rules_text_names_the_lock_the_rules_apply() {
        for &v in Variant::ALL.iter().filter(|v| v.rules().square_actions && !v.rules().tiles) {
            let help = v.help();
            if v.rules().placement_locks {
                assert!(help.contains("just placed or moved are locked"), "{v}: {help}");
            } else {
                assert!(
                    help.contains("just moved is locked") && !help.contains("placed or moved"),
                    "{v}: {help}"
                );
            }
        }
        assert!(Variant::HANS38_NEUTRAL_POSTAL.rules().placement_locks);
        assert!(Variant::HANS38_NEUTRAL_POSTAL_PLUS.rules().placement_locks);
        assert!(!Variant::HANS38_NEUTRAL.rules().placement_locks);
    }

    /// Each example in the limited-squares family is a legal first turn, and in the neutral
    /// Postal games the opponent cannot then move the square it placed.
    #[test]
    fn the_family_examples_are_legal_first_turns() {
        for &v in Variant::ALL.iter().filter(|v| v.rules().square_actions && !v.rules().tiles) {
            let mut game = crate::Game::from_variant(v);
            let example = v.info().help.example;
            game.play_text(example).unwrap_or_else(|e| panic!("{v}: {example}: {e}"));
            assert_eq!(game.position().turn(), crate::Color::Black, "{v}: {example} is one turn");
            if v.rules().placement_locks {
                assert!(game.position().locked().any(), "{v}: {example} locks what it placed");
            }
        }
    }

    #[test]
    fn the_markdown_has_a_line_and_a_section_per_variant() {
        let md = variants_markdown();
        for &v in Variant::ALL {
            assert!(md.contains(&format!("\n| [`{0}`](#{0}) |", v.name())), "{v}");
            assert!(md.contains(&format!("\n## {}\n", v.name())), "{v}");
            assert!(md.contains(&format!("Start: `{}`", v.start_fen())), "{v}");
        }
    }
}
