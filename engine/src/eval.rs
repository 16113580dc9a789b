//! The static evaluation: centipawns for the side to move.
//!
//! Shared by every variant: material, pawn progress, piece reach (mobility) and king safety
//! (attackers near the king, flight squares). Each board mechanic adds what it makes matter:
//! - the Betza family: squares in hand, owned empty squares (room to move and to build), and a
//!   king hemmed in by holes;
//! - Quad-Square: pieces sharing a quad with an enemy (they block each other and the bishop's
//!   sacrifice threatens), pieces on the central quads;
//! - Blue Chip: the chip on the mover's flight squares or where its pieces wanted to go;
//! - Tiled Squares: tiles owned (a tile is room for one's own pieces), anti-tiles near the kings;
//! - Shrink: pawns measured against the board as it is now, which shrinks towards them.
//!
//! With a clear material lead the winner is also drawn to herd the lone king (fewer flight
//! squares, kings closer), which is what ends games against a weaker side.

use tessera_rules::{Bitboard, Color, Position, Role, attacks};

pub(crate) const PAWN: i32 = 100;

/// A piece's worth in centipawns.
pub(crate) fn value(pos: &Position, role: Role) -> i32 {
    let rules = pos.rules();
    match role {
        Role::Pawn => PAWN,
        Role::Knight => {
            // Knights jump holes and void: worth more where lines are broken.
            if rules.square_actions || rules.tiles { 340 } else { 320 }
        }
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// The evaluation from the side to move's point of view.
pub(crate) fn evaluate(pos: &Position) -> i32 {
    let white = side(pos, Color::White) - side(pos, Color::Black);
    let score = white + mop_up(pos);
    let tempo = 10;
    match pos.turn() {
        Color::White => score + tempo,
        Color::Black => -score + tempo,
    }
}

/// Material of one side, kings aside.
pub(crate) fn material(pos: &Position, color: Color) -> i32 {
    Role::ALL.into_iter().map(|r| pos.pieces(color, r).count() as i32 * value(pos, r)).sum()
}

fn side(pos: &Position, us: Color) -> i32 {
    let rules = pos.rules();
    let them = us.other();
    let ours = pos.by_color(us);
    let (width, height) = pos.size();
    let blockers = pos.occupied() | pos.walls();
    let standable = pos.squares() & !ours;
    let straight_lines = !pos.has_named_locations();
    let mut score = material(pos, us);

    // Pawns: progress towards the last rank of the board as it is now.
    let last = us.last_rank(height);
    for sq in pos.pieces(us, Role::Pawn) {
        let to_go = i32::from(last.abs_diff(sq.rank()));
        let advanced = (i32::from(height) - 2 - to_go).max(0);
        score += 4 * advanced + if to_go <= 2 { 20 * (3 - to_go) } else { 0 };
        // Central pawns a little more.
        let df = (2 * i32::from(sq.file()) - i32::from(width) + 1).abs();
        score += (4 - df).max(0);
    }

    // Reach of the pieces, and pressure on the enemy king's neighbourhood.
    let enemy_zone = pos.king(them).map_or(Bitboard::EMPTY, |k| attacks::king(k) | k.bb());
    let mut pressure = 0;
    let tropism = if rules.square_actions || rules.tiles { 5 } else { 1 };
    for (role, weight) in [(Role::Knight, 4), (Role::Bishop, 4), (Role::Rook, 2), (Role::Queen, 1)] {
        for sq in pos.pieces(us, role) {
            let reach = match role {
                Role::Knight => attacks::knight(sq),
                _ if !straight_lines => Bitboard::EMPTY,
                Role::Bishop => attacks::bishop(sq, blockers),
                Role::Rook => attacks::rook(sq, blockers),
                _ => attacks::queen(sq, blockers),
            };
            score += weight * (reach & standable).count() as i32;
            // Closer to the enemy king: where holes cut the board, the pull that makes a player
            // build the bridge of squares an attack needs, step by step.
            if let Some(enemy_king) = pos.king(them) {
                score += tropism * (7 - i32::from(sq.distance(enemy_king)).min(7));
            }
            pressure += (reach & enemy_zone).count() as i32 * if role == Role::Queen { 2 } else { 1 };
        }
    }
    score += 6 * pressure.min(12);

    // The own king: flight squares, and a shelter while queens are about.
    if let Some(king) = pos.king(us) {
        let flights = (attacks::king(king) & pos.squares() & !ours).count() as i32;
        let queens = pos.by_role(Role::Queen).any();
        if flights == 0 {
            score -= 40;
        } else if flights == 1 {
            score -= 15;
        }
        if queens {
            let shelter = (attacks::king(king) & pos.pieces(us, Role::Pawn)).count() as i32;
            score += 8 * shelter.min(3);
            // Out in the middle of the board while queens are on.
            let home = us.first_rank(height);
            score -= 6 * i32::from(home.abs_diff(king.rank())).min(4);
        }
    }

    if rules.square_actions {
        score += squares_terms(pos, us);
    }
    if rules.quad_squares {
        score += quad_terms(pos, us);
    }
    if rules.tiles {
        score += tiles_terms(pos, us);
    }
    score
}

/// The Betza family: what a player has to build with.
fn squares_terms(pos: &Position, us: Color) -> i32 {
    let mut score = 0;
    if let Some(hand) = pos.reserve(us) {
        score += 30 * i32::from(hand);
    }
    if pos.rules().owned_squares {
        let empty_owned = pos.owned_by(us) & !pos.occupied();
        score += 6 * empty_owned.count().min(12) as i32;
    }
    // Squares next to one's pieces are room to move; holes around the own king are a cage.
    if let Some(king) = pos.king(us) {
        let holes_near = (attacks::king(king) & pos.holes()).count() as i32;
        score -= 5 * holes_near;
    }
    score
}

/// Quad-Square: sharing a quad ties both pieces down; the central quads are strong posts.
fn quad_terms(pos: &Position, us: Color) -> i32 {
    use tessera_rules::quad;
    let mut score = 0;
    for q in quad::QUADS.iter() {
        let occupants = quad::occupants(pos, q.cells[0]);
        let ours = occupants.iter().filter(|(_, p)| p.color == us).count() as i32;
        let theirs = occupants.len() as i32 - ours;
        if ours > 0 && q.central {
            score += 15 * ours;
        }
        // A bishop sharing with a lone enemy piece threatens to sacrifice itself for it.
        let bishop = occupants.iter().any(|(_, p)| p.color == us && p.role == Role::Bishop);
        if bishop && theirs == 1 {
            let victim = occupants.iter().find(|(_, p)| p.color != us).map(|(_, p)| p.role);
            score += victim.map_or(0, |r| ((value(pos, r) - 330) / 4).max(0));
        }
    }
    score
}

/// Tiled Squares: tiles are room for one's own pieces; anti-tiles by the enemy king are a cage.
fn tiles_terms(pos: &Position, us: Color) -> i32 {
    let mut score = 4 * pos.owned_by(us).count().min(24) as i32;
    if let Some(king) = pos.king(us.other()) {
        score += 8 * (attacks::king(king) & pos.anti_tiles()).count() as i32;
    }
    score
}

/// With a clear lead, herd the enemy king: fewer flight squares, own king closer, edge nearer.
fn mop_up(pos: &Position) -> i32 {
    let lead = material(pos, Color::White) - material(pos, Color::Black);
    if lead.abs() < 250 {
        return 0;
    }
    let (strong, weak) = if lead > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    let (Some(strong_king), Some(weak_king)) = (pos.king(strong), pos.king(weak)) else { return 0 };
    let (width, height) = pos.size();
    let df = (2 * i32::from(weak_king.file()) - i32::from(width) + 1).abs();
    let dr = (2 * i32::from(weak_king.rank()) - i32::from(height) + 1).abs();
    let edge = df.max(dr);
    let closeness = 14 - i32::from(strong_king.distance(weak_king));
    let flights = (attacks::king(weak_king) & pos.squares() & !pos.by_color(weak)).count() as i32;
    let herd = 6 * edge + 6 * closeness + 12 * (8 - flights);
    if strong == Color::White { herd } else { -herd }
}
