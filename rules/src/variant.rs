//! The closed set of games Tessera plays, with their names and the rule switches that set them apart.

use std::fmt;
use std::str::FromStr;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// FIDE chess.
    Chess,
    /// Betza's Hans38: holes between the armies, 3 owned squares in reserve each, one action a turn.
    Hans38,
    Hans38Postal,
    Hans38PostalPlus,
    /// Hans38 without ownership of squares (L11).
    Hans38Neutral,
    Hans38NeutralPostal,
    Hans38NeutralPostalPlus,
    /// The Game of Infinite Reserves (L12).
    InfiniteReserves,
    /// Moving Occupied Squares, with Infinite Reserves (L13).
    MovingOccupiedSquares,
    /// David Howe's Quad-Square Chess: 7x8 with six 2x2 quad-squares.
    QuadSquare,
    /// Neal Turner's Blue Chip Chess.
    BlueChip,
    /// Tony Quintanilla's Tiled Squares Chess.
    TiledSquares,
    /// Shrink Chess (Pepijn van Erp's rules).
    Shrink,
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
    /// A piece move, then optionally a square move and/or a placement, in either order (L9).
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
    /// A square placed is locked for the opponent's next turn like a moved one (L5): only where
    /// placing is compulsory (Infinite Reserves); elsewhere only the moved square is locked.
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
}

const CHESS_RULES: Rules = Rules {
    turn: TurnRule::Single,
    square_actions: false,
    owned_squares: false,
    reserve: Reserve::None,
    removal_from_turn: None,
    carry: false,
    stalemate: StalemateRule::Draw,
    dead_material: DeadMaterial::Fide,
    placement_locks: false,
    placement_resets_clock: true,
    width: 8,
    quad_squares: false,
    chip: false,
    tiles: false,
    shrink: false,
};

const HANS38_RULES: Rules = Rules {
    turn: TurnRule::Single,
    square_actions: true,
    owned_squares: true,
    reserve: Reserve::Finite(3),
    removal_from_turn: None,
    carry: false,
    stalemate: StalemateRule::Loss,
    dead_material: DeadMaterial::PlaysOn,
    placement_locks: false,
    placement_resets_clock: true,
    width: 8,
    quad_squares: false,
    chip: false,
    tiles: false,
    shrink: false,
};

/// Only the 32 squares under the armies exist (L1).
const HOLES_START: &str =
    "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const HANS38_START: &str =
    "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:3/3";

impl Variant {
    /// Every variant `tessera variants` lists, in the order it lists them.
    pub const ALL: &'static [Variant] = &[
        Variant::Chess,
        Variant::Hans38,
        Variant::Hans38Postal,
        Variant::Hans38PostalPlus,
        Variant::Hans38Neutral,
        Variant::Hans38NeutralPostal,
        Variant::Hans38NeutralPostalPlus,
        Variant::InfiniteReserves,
        Variant::MovingOccupiedSquares,
        Variant::QuadSquare,
        Variant::BlueChip,
        Variant::TiledSquares,
        Variant::Shrink,
    ];

    /// The canonical name, used in commands, records and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Hans38 => "hans38",
            Variant::Hans38Postal => "hans38-postal",
            Variant::Hans38PostalPlus => "hans38-postal-plus",
            Variant::Hans38Neutral => "hans38-neutral",
            Variant::Hans38NeutralPostal => "hans38-neutral-postal",
            Variant::Hans38NeutralPostalPlus => "hans38-neutral-postal-plus",
            Variant::InfiniteReserves => "infinite-reserves",
            Variant::MovingOccupiedSquares => "moving-occupied-squares",
            Variant::QuadSquare => "quad-square",
            Variant::BlueChip => "blue-chip",
            Variant::TiledSquares => "tiled-squares",
            Variant::Shrink => "shrink",
        }
    }

    /// Other names players type for the same game.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::Chess => &["fide", "standard", "orthodox"],
            Variant::Hans38 => &["hans38-chess", "limited-squares"],
            Variant::Hans38Postal => &["hans38-postal-rule"],
            Variant::Hans38PostalPlus => &[],
            Variant::Hans38Neutral => &["hans38-with-neutral-squares", "neutral-squares"],
            Variant::Hans38NeutralPostal => &[],
            Variant::Hans38NeutralPostalPlus => &[],
            Variant::InfiniteReserves => &["the-game-of-infinite-reserves", "game-of-infinite-reserves"],
            Variant::MovingOccupiedSquares => &["moving-occupied", "mos"],
            Variant::QuadSquare => &["quad-square-chess", "quad"],
            Variant::BlueChip => &["blue-chip-chess", "chip"],
            Variant::TiledSquares => &["tiled-squares-chess", "tiled"],
            Variant::Shrink => &["shrink-chess"],
        }
    }

    /// A one-line description for `tessera variants` and the help command.
    pub fn summary(self) -> &'static str {
        match self {
            Variant::Chess => "FIDE chess on the full 8x8 board",
            Variant::Hans38 => {
                "holes between the armies; 3 owned squares in hand; move a piece, a square, or place one"
            }
            Variant::Hans38Postal => "Hans38 where a turn is a piece move, then a square move or placement",
            Variant::Hans38PostalPlus => {
                "Hans38 where a turn is a piece move, then a square move and/or a placement"
            }
            Variant::Hans38Neutral => "Hans38 without ownership: anyone moves any empty square",
            Variant::Hans38NeutralPostal => "Hans38 with neutral squares and the Postal turn",
            Variant::Hans38NeutralPostalPlus => "Hans38 with neutral squares and the Postal Plus turn",
            Variant::InfiniteReserves => {
                "piece move + placement every turn, squares left behind vanish from the fourth turn"
            }
            Variant::MovingOccupiedSquares => {
                "Infinite Reserves where a square may carry a friendly piece one step"
            }
            Variant::QuadSquare => "7x8 board with six double-size quad-squares that hold two pieces each",
            Variant::Shrink => "a rank or file a move empties disappears and the board closes up towards a1",
            Variant::TiledSquares => {
                "empty middle: drop tiles and anti-tiles to build the board; the king lays tiles"
            }
            Variant::BlueChip => {
                "after each move the mover places a chip on a square the opponent may not move to"
            }
        }
    }

    /// The start position in Tessera's text format.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::Chess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::InfiniteReserves | Variant::MovingOccupiedSquares => HOLES_START,
            // Quad pieces stand on their quad's lower cells: the rooks on S1/S3, the knights on S2/S4.
            Variant::QuadSquare => "2bkq2/r4n1/ppppppp/7/7/PPPPPPP/7/R1BKQN1 w Qq - 0 1",
            // Black opens by placing the chip alone (B1): no chip yet, Black to move.
            Variant::BlueChip => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            // Ranks 3-6 are void (T1); the tiles under each army are its own.
            Variant::TiledSquares => HOLES_START,
            Variant::Shrink => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::Hans38
            | Variant::Hans38Postal
            | Variant::Hans38PostalPlus
            | Variant::Hans38Neutral
            | Variant::Hans38NeutralPostal
            | Variant::Hans38NeutralPostalPlus => HANS38_START,
        }
    }

    /// The rule switches of this variant (a table lookup: move generation asks often).
    #[inline]
    pub fn rules(self) -> &'static Rules {
        &RULES[self as usize]
    }

    pub fn stalemate(self) -> StalemateRule {
        self.rules().stalemate
    }

    /// Whether a piece move leaves every square and hole where it was. Move generation takes
    /// shortcuts (pins, king steps) only then.
    pub fn piece_moves_keep_geometry(self) -> bool {
        let rules = self.rules();
        rules.removal_from_turn.is_none() && !rules.shrink
    }

    /// Which material draws by rule (G4).
    pub fn dead_material(self) -> DeadMaterial {
        self.rules().dead_material
    }
}

/// Every variant's rules, indexed by the variant.
static RULES: [Rules; Variant::ALL.len()] = {
    let mut table = [CHESS_RULES; Variant::ALL.len()];
    let mut i = 0;
    while i < Variant::ALL.len() {
        table[Variant::ALL[i] as usize] = rules_of(Variant::ALL[i]);
        i += 1;
    }
    table
};

const fn rules_of(variant: Variant) -> Rules {
    match variant {
        Variant::Chess => CHESS_RULES,
        Variant::Hans38 => HANS38_RULES,
        Variant::Hans38Postal => Rules { turn: TurnRule::Postal, ..HANS38_RULES },
        Variant::Hans38PostalPlus => Rules { turn: TurnRule::PostalPlus, ..HANS38_RULES },
        Variant::Hans38Neutral => Rules { owned_squares: false, ..HANS38_RULES },
        Variant::Hans38NeutralPostal => {
            Rules { owned_squares: false, turn: TurnRule::Postal, ..HANS38_RULES }
        }
        Variant::Hans38NeutralPostalPlus => {
            Rules { owned_squares: false, turn: TurnRule::PostalPlus, ..HANS38_RULES }
        }
        Variant::InfiniteReserves => Rules {
            turn: TurnRule::InfiniteReserves,
            owned_squares: false,
            reserve: Reserve::Infinite,
            removal_from_turn: Some(4),
            placement_locks: true,
            placement_resets_clock: false,
            ..HANS38_RULES
        },
        Variant::MovingOccupiedSquares => Rules { carry: true, ..rules_of(Variant::InfiniteReserves) },
        Variant::QuadSquare => {
            Rules { dead_material: DeadMaterial::PlaysOn, width: 7, quad_squares: true, ..CHESS_RULES }
        }
        Variant::BlueChip => Rules {
            turn: TurnRule::PieceThenChip,
            chip: true,
            dead_material: DeadMaterial::BareKings,
            ..CHESS_RULES
        },
        Variant::Shrink => Rules { shrink: true, dead_material: DeadMaterial::PlaysOn, ..CHESS_RULES },
        Variant::TiledSquares => Rules {
            square_actions: true,
            owned_squares: true,
            reserve: Reserve::Infinite,
            dead_material: DeadMaterial::PlaysOn,
            tiles: true,
            ..CHESS_RULES
        },
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        write!(f, "unknown variant \"{}\"; choose one of: {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    /// Accepts names and aliases in any case, with `-`, `_` or spaces between words; `+` reads as "plus".
    fn from_str(text: &str) -> Result<Variant, UnknownVariant> {
        let norm = |s: &str| -> String {
            s.replace('+', "plus")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let wanted = norm(text);
        Variant::ALL
            .iter()
            .copied()
            .find(|v| norm(v.name()) == wanted || v.aliases().iter().any(|a| norm(a) == wanted))
            .ok_or_else(|| UnknownVariant(text.chars().take(40).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse() {
        for &v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            for a in v.aliases() {
                assert_eq!(a.parse::<Variant>(), Ok(v), "{a}");
            }
        }
        assert_eq!("FIDE".parse::<Variant>(), Ok(Variant::Chess));
        assert_eq!("Hans38 Postal+".parse::<Variant>(), Ok(Variant::Hans38PostalPlus));
        assert_eq!("hans38_neutral".parse::<Variant>(), Ok(Variant::Hans38Neutral));
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
}
