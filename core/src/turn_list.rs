//! `!t moves`: a position's legal turns, grouped by what begins them (a piece where it stands, the
//! pawns, a square, tile or chip action), within one screen, and narrowed by how they begin.
//!
//! Groups and hints speak the way the player writes: a piece on a quad-square is under its quad
//! (`NS2`), tile drops are tile drops, and only the forms the variant has are offered.

use tessera_rules::{Action, Move, Position, Role, notation};

/// One screen: a few hundred turns are listed by group; more are counted by how they begin.
const ONE_SCREEN: usize = 1500;

/// The reply to `!t moves` in game `game`: every legal turn of `pos`, or those beginning like
/// `start`; an error when none does.
pub(crate) fn legal_turns(pos: &Position, game: i64, start: Option<&str>) -> Result<String, String> {
    let wanted = start.map(move_key).unwrap_or_default();
    let moves = pos.legal_moves();
    let mut writer = notation::TurnWriter::new(pos);
    let mut turns: Vec<(Group, String)> = Vec::new();
    for mv in &moves {
        let (san, lan) = (writer.san(mv), writer.lan(mv));
        if begins_like(&san, &lan, &wanted) {
            turns.push((Group::of(pos, mv.first()), san));
        }
    }
    let narrowed = start.map_or(String::new(), |s| format!(" beginning {}", s.trim()));
    if turns.is_empty() {
        return Err(format!("no legal turn in game #{game}{narrowed}; `!t moves` lists them all"));
    }
    turns.sort();
    let n = turns.len();
    let mut out = format!(
        "{n} legal turn{} for {} in game #{game}{narrowed}:",
        if n == 1 { "" } else { "s" },
        pos.turn()
    );
    let mut lines: Vec<String> = Vec::new();
    for same in turns.chunk_by(|a, b| a.0 == b.0) {
        let texts: Vec<&str> = same.iter().map(|t| t.1.as_str()).collect();
        // Whole turns of several actions are told apart by a dot.
        let gap = if texts.iter().any(|t| t.contains(' ')) { " · " } else { " " };
        lines.push(format!("{}: {}", same[0].0.label, texts.join(gap)));
    }
    let counted = lines.iter().map(|l| l.len() + 1).sum::<usize>() > ONE_SCREEN;
    if counted {
        out.push_str(" how they begin, with how many turns begin so in brackets");
        lines = counted_by_beginning(pos, &moves, &wanted);
    }
    let mut shown = 0;
    for line in &lines {
        if out.len() + line.len() > ONE_SCREEN {
            break;
        }
        out.push('\n');
        out.push_str(line);
        shown += 1;
    }
    if counted && let Some((_, example)) = turns.iter().find(|t| t.1.contains(' ')) {
        out.push_str(&format!("\nA whole turn, for example: `{example}`"));
    }
    let like = narrowing_examples(&turns);
    if shown < lines.len() {
        out.push_str(&format!("\n… and {} more; narrow them, like {like}", lines.len() - shown));
    } else if lines.len() > 1 && start.is_none() && n > 40 {
        out.push_str(&format!("\nNarrow them by how they begin, like {like}."));
    }
    Ok(out)
}

/// What a turn is listed under: its kind, in listing order, and the heading players read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Group {
    kind: Kind,
    label: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Piece,
    Pawns,
    Place,
    Shift,
    Chip,
    AntiTile,
    RemoveTile,
}

impl Group {
    /// The group of a turn that begins with `first`: a piece and its location as players name it
    /// (`Ng1`, `NS2`), or the kind of action.
    fn of(pos: &Position, first: Action) -> Group {
        let tiles = pos.variant().rules().tiles;
        let (kind, label) = match first {
            Action::Normal { role: Role::Pawn, .. } | Action::EnPassant { .. } => {
                (Kind::Pawns, "pawns".into())
            }
            Action::Normal { role, from, .. } | Action::Sacrifice { from, victim: role, .. } => {
                let role = pos.piece_at(from).map_or(role, |p| p.role);
                (Kind::Piece, format!("{}{}", role.upper(), pos.location_name(from)))
            }
            Action::Castle { king, .. } => (Kind::Piece, format!("K{}", pos.location_name(king))),
            Action::Place { .. } if tiles => (Kind::Place, "dropping a tile".into()),
            Action::Place { .. } => (Kind::Place, "placing a square".into()),
            Action::Shift { .. } => (Kind::Shift, "moving a square".into()),
            Action::Chip { .. } => (Kind::Chip, "the chip".into()),
            Action::DropAnti { .. } => (Kind::AntiTile, "dropping an anti-tile".into()),
            Action::RemoveTile { .. } => (Kind::RemoveTile, "removing a tile".into()),
        };
        Group { kind, label }
    }
}

/// How to narrow the turns listed, in forms this position has: a piece where it stands
/// (`!t moves Ng1`), `@` where squares or tiles are acted on, `[` where the chip begins a turn.
fn narrowing_examples(turns: &[(Group, String)]) -> String {
    let mut examples: Vec<String> = Vec::new();
    if let Some((group, _)) = turns.iter().find(|t| t.0.kind == Kind::Piece) {
        examples.push(group.label.clone());
    }
    let square_action = |k: Kind| matches!(k, Kind::Place | Kind::Shift | Kind::AntiTile | Kind::RemoveTile);
    if turns.iter().any(|t| square_action(t.0.kind)) {
        examples.push("@".into());
    }
    if turns.iter().any(|t| t.0.kind == Kind::Chip) {
        examples.push("[".into());
    }
    if examples.is_empty() {
        // Only pawns: the first turn's first two characters.
        examples.push(turns[0].1.chars().take(2).collect());
    }
    examples.iter().map(|e| format!("`!t moves {e}`")).collect::<Vec<_>>().join(" or ")
}

/// Too many turns for one screen: each way a turn begins, with how many turns begin so.
fn counted_by_beginning(pos: &Position, moves: &[Move], wanted: &str) -> Vec<String> {
    let mut counts: std::collections::BTreeMap<Group, std::collections::BTreeMap<String, usize>> =
        Default::default();
    let mut writer = notation::TurnWriter::new(pos);
    for mv in moves {
        let (san, lan) = (writer.san(mv), writer.lan(mv));
        if !begins_like(&san, &lan, wanted) {
            continue;
        }
        let first = writer.san(&Move::single(mv.first()));
        *counts.entry(Group::of(pos, mv.first())).or_default().entry(first).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(group, firsts)| {
            let items: Vec<String> = firsts.into_iter().map(|(first, n)| format!("{first} ({n})")).collect();
            format!("{}: {}", group.label, items.join(" "))
        })
        .collect()
}

/// The characters of move text compared loosely: no capture or check marks, dashes or spaces, any
/// case. The `x` of a tile removal (`@xe4`) is kept: it says what the action is, not a capture.
fn key_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut after_at = false;
    s.chars()
        .filter(move |&c| {
            let keep = match c {
                'x' | 'X' => after_at,
                '-' | '+' | '#' | ' ' => false,
                _ => true,
            };
            after_at = c == '@';
            keep
        })
        .flat_map(char::to_lowercase)
}

/// Move text compared loosely (see [`key_chars`]).
pub(crate) fn move_key(s: &str) -> String {
    key_chars(s).collect()
}

/// Whether `written`, read as a [`move_key`], begins with `wanted` (one), without allocating:
/// a compound-turn position has tens of thousands of turns to compare.
pub(crate) fn key_begins(written: &str, wanted: &str) -> bool {
    let mut key = key_chars(written);
    wanted.chars().all(|w| key.next() == Some(w))
}

/// Whether a turn's long form begins like `wanted` (a [`move_key`]), also without its piece
/// letter (`g1` finds Ng1-f3).
pub(crate) fn long_begins_like(lan: &str, wanted: &str) -> bool {
    key_begins(lan, wanted)
        || (lan.starts_with(|c: char| c.is_ascii_uppercase()) && key_begins(&lan[1..], wanted))
}

/// Whether a turn, written short or long, begins like `wanted` (a [`move_key`]); `@e4` (a
/// location) also finds what is placed, dropped or removed there (`@@e4`, `@!e4`, `@xe4`).
fn begins_like(san: &str, lan: &str, wanted: &str) -> bool {
    key_begins(san, wanted) || long_begins_like(lan, wanted) || location_begins_like(san, wanted)
}

/// Whether a turn beginning with a placement, drop or removal (`@@e4`, `@!e4`, `@xe4`) is at the
/// location `wanted` names after its `@` (`@e4`, or `@e` for a file).
fn location_begins_like(san: &str, wanted: &str) -> bool {
    let Some(location) = wanted.strip_prefix('@') else { return false };
    let action = ["@@", "@!", "@x"].iter().any(|marker| san.starts_with(marker));
    action
        && location.starts_with(|c: char| c.is_ascii_lowercase() && c != 'x')
        && key_begins(&san[2..], location)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::Variant;

    fn played(variant: Variant, turns: &[&str]) -> Position {
        let mut pos = Position::start(variant);
        for text in turns {
            let mv = notation::parse_move(&pos, text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            pos = pos.played(&mv);
        }
        pos
    }

    #[test]
    fn keys_keep_the_removal_mark_only() {
        assert_eq!(move_key("Nxe4+"), "ne4");
        assert_eq!(move_key("@xe4"), "@xe4");
        assert_eq!(move_key("@X e4"), "@xe4");
        assert_eq!(move_key("exd5 @e4-d5"), "ed5@e4d5");
        assert!(key_begins("@xe4", "@x") && !key_begins("@@e4", "@x") && !key_begins("@xe4", "@e4"));
    }

    #[test]
    fn quad_square_groups_by_the_location_players_name() {
        let listed = legal_turns(&Position::start(Variant::QUAD_SQUARE), 1, None).unwrap();
        assert!(listed.contains("\nNS2: NS2-M2 NS2-d2 NS2-g4\n"), "{listed}");
        assert!(listed.contains("\nRS1: RS1-S2 RS1-c2 RS1-d2 RS1-e2\n"), "{listed}");
        assert!(!listed.contains("Nf1") && !listed.contains("Ra1"), "{listed}");
        // Narrowed by the piece and its quad, as the heading says.
        let narrowed = legal_turns(&Position::start(Variant::QUAD_SQUARE), 1, Some("NS2")).unwrap();
        assert_eq!(narrowed, "3 legal turns for white in game #1 beginning NS2:\nNS2: NS2-M2 NS2-d2 NS2-g4");
    }

    #[test]
    fn hints_offer_only_the_forms_the_variant_has() {
        // Quad-Square with the pawns gone: more than 40 turns, no square actions.
        let pos = Position::from_fen(Variant::QUAD_SQUARE, "3k3/7/6R/7/Q6/7/7/R1BKQN1 w - - 0 1").unwrap();
        let listed = legal_turns(&pos, 1, None).unwrap();
        assert!(listed.ends_with("\nNarrow them by how they begin, like `!t moves Bc1`."), "{listed}");
        assert!(!listed.contains("`!t moves @`"), "{listed}");
        let example = listed.rsplit("like `!t moves ").next().unwrap().split('`').next().unwrap();
        let narrowed = legal_turns(&pos, 1, Some(example)).unwrap();
        assert!(narrowed.lines().count() == 2, "the example narrows to one group: {narrowed}");
        // Blue Chip: every turn is a piece move and the chip, too many for one screen.
        let pos = played(Variant::BLUE_CHIP, &["[e5]"]);
        let listed = legal_turns(&pos, 1, None).unwrap();
        assert!(listed.ends_with("\nNarrow them by how they begin, like `!t moves Nb1`."), "{listed}");
        assert!(!listed.contains("`!t moves @`"), "{listed}");
        // Hans38 has square actions: `@` is offered.
        let pos = played(Variant::MOVING_OCCUPIED_SQUARES, &[]);
        assert!(legal_turns(&pos, 1, None).unwrap().contains("`!t moves @`"));
    }

    #[test]
    fn tiled_squares_names_tile_actions_and_filters_by_location() {
        let pos = Position::start(Variant::TILED_SQUARES);
        let listed = legal_turns(&pos, 1, None).unwrap();
        assert!(listed.contains("\ndropping a tile: @@a3 @@a4 "), "{listed}");
        assert!(listed.contains("\ndropping an anti-tile: @!a3 @!a4 "), "{listed}");
        assert!(!listed.contains("placing a square") && !listed.contains("\ntiles:"), "{listed}");
        // By location: both drops there.
        assert_eq!(
            legal_turns(&pos, 1, Some("@e4")).unwrap(),
            "2 legal turns for white in game #1 beginning @e4:\ndropping a tile: @@e4\ndropping an anti-tile: @!e4"
        );
        assert!(legal_turns(&pos, 1, Some("@e")).unwrap().starts_with("8 legal turns"), "a file");
        // By action: anti-tiles only; no tile of White's is empty yet, so none to remove.
        assert!(legal_turns(&pos, 1, Some("@!")).unwrap().starts_with("32 legal turns"));
        assert!(
            legal_turns(&pos, 1, Some("@x")).unwrap_err().contains("no legal turn in game #1 beginning @x")
        );
        // After Nb1-a3 (on a dropped tile), White's b1 tile is empty: it can be removed, and is
        // found by `@x`, by `@xb1` and by its location `@b1`.
        let pos = played(Variant::TILED_SQUARES, &["@@a3", "@@a6", "Nb1-a3", "@!h6"]);
        let removals = legal_turns(&pos, 1, Some("@x")).unwrap();
        assert!(removals.contains("\nremoving a tile: @xb1"), "{removals}");
        assert!(removals.lines().skip(1).all(|l| l.starts_with("removing a tile: ")), "{removals}");
        let at_b1 = legal_turns(&pos, 1, Some("@b1")).unwrap();
        assert_eq!(at_b1, "1 legal turn for white in game #1 beginning @b1:\nremoving a tile: @xb1");
        assert_eq!(legal_turns(&pos, 1, Some("@xb1")).unwrap(), at_b1.replace("@b1:", "@xb1:"));
    }
}
