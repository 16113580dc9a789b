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

/// The neutral Postal games lock both squares the opponent touched, placed or moved (L5): read
/// literally, Black would move White's one placed square away and leave White without a piece move.
const NEUTRAL_POSTAL_RULES: Rules = Rules { owned_squares: false, placement_locks: true, ..HANS38_RULES };

/// The Game of Infinite Reserves (L12), which Moving Occupied Squares extends (L13).
const INFINITE_RESERVES_RULES: Rules = Rules {
    turn: TurnRule::InfiniteReserves,
    owned_squares: false,
    reserve: Reserve::Infinite,
    removal_from_turn: Some(4),
    placement_locks: true,
    placement_resets_clock: false,
    ..HANS38_RULES
};

/// Only the 32 squares under the armies exist (L1).
const HOLES_START: &str =
    "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const HANS38_START: &str =
    "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:3/3";
const FIDE_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// One variant: everything Tessera knows and says about it. [`VARIANTS`] holds one row a variant.
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
}

/// A variant's rules for a new player, in three lines; what ends the game follows from [`Rules`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Help {
    /// The board and what is on it at the start.
    pub board: &'static str,
    /// How a turn is built.
    pub turn: &'static str,
    /// A legal first turn of the side that begins.
    pub example: &'static str,
}

// Paragraphs the limited-squares family shares (macros, so `concat!` can join them).
macro_rules! owned_board {
    () => {
        "Ranks 1, 2, 7 and 8 have squares, ranks 3–6 are holes. You own the squares your army \
        stands on and 3 more in hand. Only you move your empty squares; a piece landing on an empty square of \
        the opponent's takes it."
    };
}
macro_rules! neutral_board {
    () => {
        "Ranks 1, 2, 7 and 8 have squares, ranks 3–6 are holes; each player has 3 squares \
        in hand. Squares belong to nobody: either player may move any empty square."
    };
}
macro_rules! moving_squares {
    () => {
        "A piece must land on a square; sliders cannot cross holes, knights jump them. A \
        square moves one or two steps onto a hole (`@g1-g3`); one placed from hand goes on a hole (`@@e4`)."
    };
}
// L5: which squares the opponent's last turn locks.
macro_rules! moved_lock {
    () => {
        "The square your opponent just moved is locked for your turn."
    };
}
macro_rules! touched_lock {
    () => {
        "The squares your opponent just placed or moved are locked for your turn."
    };
}
const OWNED_BOARD: &str = concat!(owned_board!(), " ", moving_squares!(), " ", moved_lock!());
const NEUTRAL_BOARD: &str = concat!(neutral_board!(), " ", moving_squares!(), " ", moved_lock!());
const NEUTRAL_POSTAL_BOARD: &str = concat!(
    neutral_board!(),
    " ",
    moving_squares!(),
    " ",
    touched_lock!(),
    " After White's first turn `@@f3`, Black may not move f3 away."
);
const SINGLE_TURN: &str = "Turn: one action: a piece move, a square move or a placement.";
const POSTAL_TURN: &str = "Turn: a piece move, then at most one square action (a square move or a placement), \
    like `Ng1-f3 @@e4`. On your first turn no piece can move yet: one square action alone.";
const POSTAL_PLUS_TURN: &str = "Turn: a piece move first, then at most one square move and one placement, those \
    two in either order, like `Ng1-f3 @g1-g3 @@e4`. On your first turn no piece can move yet: square actions \
    alone.";

/// Every variant, one row each, in the order of the enum (checked when this compiles) and of
/// `tessera variants`. To add a variant, see `docs/adding-a-variant.md`.
const ROWS: &[VariantInfo] = &[
    VariantInfo {
        variant: Variant::Chess,
        name: "chess",
        aliases: &["fide", "standard", "orthodox"],
        title: "Chess",
        summary: "FIDE chess on the full 8x8 board",
        help: Help { board: "The FIDE game.", turn: "Turn: one move.", example: "e2-e4" },
        start_fen: FIDE_START,
        rules_page: "README.md",
        rules: CHESS_RULES,
    },
    VariantInfo {
        variant: Variant::Hans38,
        name: "hans38",
        aliases: &["hans38-chess", "limited-squares"],
        title: "Betza's Hans38",
        summary: "holes between the armies; 3 owned squares in hand; move a piece, a square, or place one",
        help: Help { board: OWNED_BOARD, turn: SINGLE_TURN, example: "@@e4" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: HANS38_RULES,
    },
    VariantInfo {
        variant: Variant::Hans38Postal,
        name: "hans38-postal",
        aliases: &["hans38-postal-rule"],
        title: "Hans38 with the Postal rule",
        summary: "Hans38 where a turn is a piece move, then a square move or placement",
        help: Help { board: OWNED_BOARD, turn: POSTAL_TURN, example: "@@f3" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: Rules { turn: TurnRule::Postal, ..HANS38_RULES },
    },
    VariantInfo {
        variant: Variant::Hans38PostalPlus,
        name: "hans38-postal-plus",
        aliases: &[],
        title: "Hans38 with the Postal Plus rule",
        summary: "Hans38 where a turn is a piece move, then a square move and/or a placement",
        help: Help { board: OWNED_BOARD, turn: POSTAL_PLUS_TURN, example: "@@f3 @f3-f4" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: Rules { turn: TurnRule::PostalPlus, ..HANS38_RULES },
    },
    VariantInfo {
        variant: Variant::Hans38Neutral,
        name: "hans38-neutral",
        aliases: &["hans38-with-neutral-squares", "neutral-squares"],
        title: "Hans38 with neutral squares (L11)",
        summary: "Hans38 without ownership: anyone moves any empty square",
        help: Help { board: NEUTRAL_BOARD, turn: SINGLE_TURN, example: "@@f3" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: Rules { owned_squares: false, ..HANS38_RULES },
    },
    VariantInfo {
        variant: Variant::Hans38NeutralPostal,
        name: "hans38-neutral-postal",
        aliases: &[],
        title: "Hans38 with neutral squares and the Postal rule",
        summary: "Hans38 with neutral squares and the Postal turn",
        help: Help { board: NEUTRAL_POSTAL_BOARD, turn: POSTAL_TURN, example: "@@f3" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: Rules { turn: TurnRule::Postal, ..NEUTRAL_POSTAL_RULES },
    },
    VariantInfo {
        variant: Variant::Hans38NeutralPostalPlus,
        name: "hans38-neutral-postal-plus",
        aliases: &[],
        title: "Hans38 with neutral squares and the Postal Plus rule",
        summary: "Hans38 with neutral squares and the Postal Plus turn",
        help: Help { board: NEUTRAL_POSTAL_BOARD, turn: POSTAL_PLUS_TURN, example: "@@f3 @f3-f4" },
        start_fen: HANS38_START,
        rules_page: "limited-squares.md",
        rules: Rules { turn: TurnRule::PostalPlus, ..NEUTRAL_POSTAL_RULES },
    },
    VariantInfo {
        variant: Variant::InfiniteReserves,
        name: "infinite-reserves",
        aliases: &["the-game-of-infinite-reserves", "game-of-infinite-reserves"],
        title: "The Game of Infinite Reserves (L12)",
        summary: "piece move + placement every turn, squares left behind vanish from the fourth turn",
        help: Help {
            board: concat!(
                "Ranks 3–6 start as holes. Squares belong to nobody and your hand never runs out. ",
                touched_lock!()
            ),
            turn: "Turn: a piece move first, then a placement (required while any hole is left) and at most one \
             square move, those two in either order, like `Ng1-f3 @@e4`; your first turn is square actions alone. \
             From your fourth turn, the square a piece leaves is taken away.",
            example: "@@e4",
        },
        start_fen: HOLES_START,
        rules_page: "limited-squares.md",
        rules: INFINITE_RESERVES_RULES,
    },
    VariantInfo {
        variant: Variant::MovingOccupiedSquares,
        name: "moving-occupied-squares",
        aliases: &["moving-occupied", "mos"],
        title: "Moving Occupied Squares, with Infinite Reserves (L13)",
        summary: "Infinite Reserves where a square may carry a friendly piece one step",
        help: Help {
            board: concat!(
                "As infinite-reserves: ranks 3–6 start as holes, squares belong to nobody, hands never run out. ",
                touched_lock!()
            ),
            turn: "Turn: as infinite-reserves, but the square move may carry one of your pieces (not the king) one \
             step onto a hole (`@b2-b3`); a carried pawn may no longer double-step.",
            example: "@@e4 @b2-b3",
        },
        start_fen: HOLES_START,
        rules_page: "limited-squares.md",
        rules: Rules { carry: true, ..INFINITE_RESERVES_RULES },
    },
    VariantInfo {
        variant: Variant::QuadSquare,
        name: "quad-square",
        aliases: &["quad-square-chess", "quad"],
        title: "David Howe's Quad-Square Chess",
        summary: "7x8 board with six double-size quad-squares that hold two pieces each",
        help: Help {
            board: "A 7×8 board with six quad-squares, S1–S4 and M1, M2 (labelled on the picture), each holding up to \
             two pieces.",
            turn: "Turn: one move, written with quad names (`c3-M1`, `M1xd6`); name the piece you take on a shared \
             quad (`Qd3xM1(N)`). A bishop may take on a quad and be lost with it (`Bd3xM1`); castling swaps king \
             and rook.",
            example: "c3-M1",
        },
        // Quad pieces stand on their quad's lower cells: the rooks on S1/S3, the knights on S2/S4.
        start_fen: "2bkq2/r4n1/ppppppp/7/7/PPPPPPP/7/R1BKQN1 w Qq - 0 1",
        rules_page: "quad-square.md",
        rules: Rules { dead_material: DeadMaterial::PlaysOn, width: 7, quad_squares: true, ..CHESS_RULES },
    },
    VariantInfo {
        variant: Variant::BlueChip,
        name: "blue-chip",
        aliases: &["blue-chip-chess", "chip"],
        title: "Neal Turner's Blue Chip Chess",
        summary: "after each move the mover places a chip on a square the opponent may not move to",
        help: Help {
            board: "The FIDE board and armies, and a blue chip.",
            turn: "Turn: Black begins by placing the chip (`[e5]`); after that every move also puts the chip on an \
             empty square where your opponent may not move next.",
            example: "e2-e4[d5]",
        },
        // Black opens by placing the chip alone (B1): no chip yet, Black to move.
        start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        rules_page: "blue-chip.md",
        rules: Rules {
            turn: TurnRule::PieceThenChip,
            chip: true,
            dead_material: DeadMaterial::BareKings,
            ..CHESS_RULES
        },
    },
    VariantInfo {
        variant: Variant::TiledSquares,
        name: "tiled-squares",
        aliases: &["tiled-squares-chess", "tiled"],
        title: "Tony Quintanilla's Tiled Squares Chess",
        summary: "empty middle: drop tiles and anti-tiles to build the board; the king lays tiles",
        help: Help {
            board: "Ranks 3–6 start as void. Pieces stand on tiles; lines cross the void but not anti-tiles.",
            turn: "Turn: one action: a piece move, dropping a tile (`@@e4`) or an anti-tile (`@!e4`), or taking an \
             empty tile of yours away (`@xe4`). The king lays a tile where it steps.",
            example: "@@e4",
        },
        // Ranks 3-6 are void (T1); the tiles under each army are its own.
        start_fen: HOLES_START,
        rules_page: "tiled-squares.md",
        rules: Rules {
            square_actions: true,
            owned_squares: true,
            reserve: Reserve::Infinite,
            dead_material: DeadMaterial::PlaysOn,
            tiles: true,
            ..CHESS_RULES
        },
    },
    VariantInfo {
        variant: Variant::Shrink,
        name: "shrink",
        aliases: &["shrink-chess"],
        title: "Shrink Chess (Pepijn van Erp's rules)",
        summary: "a rank or file a move empties disappears and the board closes up towards a1",
        help: Help {
            board: "The FIDE board and armies, on a board that shrinks.",
            turn: "Turn: one move. A rank or file the move empties vanishes and the board closes up towards a1 (the \
             reply says what was renamed); a pawn a shrink brings to its last rank promotes, as you name it \
             (`Rh1-h3[a1=N]`) or to a queen. Castling needs two or three empty squares between king and rook.",
            example: "e2-e4",
        },
        start_fen: FIDE_START,
        rules_page: "shrink.md",
        rules: Rules { shrink: true, dead_material: DeadMaterial::PlaysOn, ..CHESS_RULES },
    },
];

/// The variant table, indexed by the variant (`VARIANTS[v as usize]`, see [`Variant::info`]).
pub static VARIANTS: [VariantInfo; ROWS.len()] = {
    let mut table = [ROWS[0]; ROWS.len()];
    let mut i = 0;
    while i < ROWS.len() {
        // A row out of the enum's order stops the build here.
        assert!(ROWS[i].variant as usize == i, "the rows of ROWS must follow the order of enum Variant");
        table[i] = ROWS[i];
        i += 1;
    }
    table
};

impl Variant {
    /// Every variant `tessera variants` lists, in the order it lists them: the table's order.
    pub const ALL: &'static [Variant] = &{
        let mut all = [Variant::Chess; ROWS.len()];
        let mut i = 0;
        while i < ROWS.len() {
            all[i] = ROWS[i].variant;
            i += 1;
        }
        all
    };

    /// This variant's row of the table.
    #[inline]
    pub fn info(self) -> &'static VariantInfo {
        &VARIANTS[self as usize]
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

    /// The rule switches of this variant (a table lookup: move generation asks often).
    #[inline]
    pub fn rules(self) -> &'static Rules {
        &VARIANTS[self as usize].rules
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
        format!(
            "Ends: checkmate wins; {stalemate}; {material}; repetition and the 50-move rule as in chess \
             (`!t claim`)."
        )
    }

    /// `!t rules V`: how a turn is built, one example turn, and what ends the game, in a few lines.
    pub fn help(self) -> String {
        let Help { board, turn, example } = self.info().help;
        format!(
            "**{}**: {}\n{board}\n{turn}\nExample: `{example}`\n{}",
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
        let rules = self.rules();
        rules.removal_from_turn.is_none() && !rules.shrink
    }

    /// Which material draws by rule (G4).
    pub fn dead_material(self) -> DeadMaterial {
        self.rules().dead_material
    }
}

/// `docs/variants.md`, as the table says it: `tessera variants --markdown` prints it, and
/// `tests/tests/variants_doc.rs` fails while the file differs.
pub fn variants_markdown() -> String {
    let code = |s: &str| format!("`{s}`");
    let mut out = String::from(
        "# Variants\n\
         \n\
         <!-- Made from the variant table in rules/src/variant.rs; do not edit it here. After changing\n\
         \x20    the table, regenerate it with `cargo run -p tessera-bot -- variants --markdown > docs/variants.md`\n\
         \x20    or `TESSERA_BLESS=1 cargo test -p tessera-tests --test variants_doc`; that test fails while\n\
         \x20    this file and the table differ. -->\n\
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
    fn every_variant_has_its_row() {
        use Variant as V;
        // Every variant named once, and the `match` has no `_` arm: a variant added to the enum stops
        // this test compiling until it is named here too, and then it must have its row.
        let every = [
            V::Chess,
            V::Hans38,
            V::Hans38Postal,
            V::Hans38PostalPlus,
            V::Hans38Neutral,
            V::Hans38NeutralPostal,
            V::Hans38NeutralPostalPlus,
            V::InfiniteReserves,
            V::MovingOccupiedSquares,
            V::QuadSquare,
            V::BlueChip,
            V::TiledSquares,
            V::Shrink,
        ];
        for v in every {
            match v {
                V::Chess
                | V::Hans38
                | V::Hans38Postal
                | V::Hans38PostalPlus
                | V::Hans38Neutral
                | V::Hans38NeutralPostal
                | V::Hans38NeutralPostalPlus
                | V::InfiniteReserves
                | V::MovingOccupiedSquares
                | V::QuadSquare
                | V::BlueChip
                | V::TiledSquares
                | V::Shrink => {}
            }
            let row = VARIANTS.get(v as usize).unwrap_or_else(|| panic!("{v:?} has no row in the table"));
            assert_eq!(row.variant, v, "row {} is {:?}'s", v as usize, row.variant);
        }
        assert_eq!(VARIANTS.len(), every.len(), "one row a variant, no more");
        assert_eq!(Variant::ALL, every, "ALL lists every variant in the enum's order");
        for (i, row) in VARIANTS.iter().enumerate() {
            let v = row.variant;
            assert_eq!(v as usize, i);
            assert!(std::ptr::eq(v.info(), row) && std::ptr::eq(v.rules(), &row.rules));
            assert_eq!(v.to_string(), row.name);
            assert!(!row.title.is_empty() && !row.summary.is_empty(), "{v}");
            assert!(!row.summary.contains('|') && !row.summary.ends_with('.'), "{v}: one plain line");
            let help = &row.help;
            assert!(!help.board.is_empty(), "{v}: the board");
            assert!(help.turn.starts_with("Turn: "), "{v}: the turn");
            assert!(!help.example.is_empty(), "{v}: an example turn");
            assert!(row.rules_page.ends_with(".md"), "{v}");
            let text = v.help();
            assert!(text.starts_with(&format!("**{}**: ", row.name)) && text.contains("\nEnds: "), "{text}");
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
        assert!(Variant::Hans38NeutralPostal.rules().placement_locks);
        assert!(Variant::Hans38NeutralPostalPlus.rules().placement_locks);
        assert!(!Variant::Hans38Neutral.rules().placement_locks);
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
