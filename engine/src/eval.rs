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

use tessera_rules::variant::{Reserve, TurnRule};
use tessera_rules::{Bitboard, Color, Position, Role, Square, attacks};

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
    let own = match pos.turn() {
        Color::White => score + tempo,
        Color::Black => -score + tempo,
    };
    own - hanging(pos)
}

/// What the side to move stands to lose to the threats against it. The quiescence search takes
/// what the side to move can capture; what it is threatened with it can only answer with one
/// turn: it saves the piece most at risk, and the next one is lost (a fork, two pieces hanging),
/// and even the saved piece has cost it the turn. A piece is at risk when it is attacked and not
/// defended, or attacked by a cheaper piece; on the quad board, whose pieces do not attack by
/// lines, nothing is counted.
pub(crate) fn hanging(pos: &Position) -> i32 {
    if pos.has_named_locations() {
        return 0;
    }
    let us = pos.turn();
    let them = us.other();
    let blockers = pos.occupied() | pos.walls();
    let (mut worst, mut second) = (0, 0);
    for sq in pos.by_color(us) & !pos.by_role(Role::King) & !pos.by_role(Role::Pawn) {
        let attackers = pos.attackers(sq, them, blockers);
        if attackers.is_empty() {
            continue;
        }
        let Some(piece) = pos.piece_at(sq) else { continue };
        let worth = value(pos, piece.role);
        let cheapest = attackers
            .into_iter()
            .filter_map(|a| pos.piece_at(a))
            .map(|p| exchange_value(pos, p.role))
            .min()
            .unwrap_or(exchange_value(pos, Role::King));
        let defended = pos.attackers(sq, us, blockers).any();
        let at_risk = if !defended {
            // A king alone can take only what is not defended: it is.
            worth
        } else if cheapest < worth {
            worth - cheapest
        } else {
            0
        };
        if at_risk > worst {
            second = worst;
            worst = at_risk;
        } else if at_risk > second {
            second = at_risk;
        }
    }
    second * 3 / 4 + worst / 8
}

/// Whether anyone moves any empty square, one action a turn (Hans38 Neutral). There the squares
/// around a king change hands every turn: one side takes one away, the other puts it back, each
/// turn good on its own; counted, they make a tug of war of every game, so they are not counted
/// for the king's own safety (its flight squares, the holes beside it).
pub(crate) fn squares_change_hands(pos: &Position) -> bool {
    let rules = pos.rules();
    rules.square_actions && !rules.owned_squares && rules.turn == TurnRule::Single
}

/// A piece's worth where it may be taken in an exchange: a king more than anything, since it may
/// take only what nothing defends.
pub(crate) fn exchange_value(pos: &Position, role: Role) -> i32 {
    if role == Role::King { 10_000 } else { value(pos, role) }
}

/// What the enemy's pieces (pawns and king aside) at most may be worth for an endgame: the
/// passed pawns count half again, the king leaves its shelter.
const ENDGAME_PIECES: i32 = 1300;

/// Material of one side's pieces, pawns and king aside.
fn piece_material(pos: &Position, color: Color) -> i32 {
    material(pos, color) - PAWN * pos.pieces(color, Role::Pawn).count() as i32
}

/// How far a location stands from the board's centre, in half-steps: the larger of its file's
/// and its rank's distance (1 on the four central squares of an 8×8 board, 7 on its edge).
fn from_centre(pos: &Position, sq: Square) -> i32 {
    let (width, height) = pos.size();
    let df = (2 * i32::from(sq.file()) - i32::from(width) + 1).abs();
    let dr = (2 * i32::from(sq.rank()) - i32::from(height) + 1).abs();
    df.max(dr)
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

    // Pawns: progress towards the last rank of the board as it is now; a passed pawn (no enemy
    // pawn ahead of it on its file or the next) the more, the nearer it is and the fewer enemy
    // pieces there are to stop it.
    let last = us.last_rank(height);
    let enemy_pawns = pos.pieces(them, Role::Pawn);
    let endgame = piece_material(pos, them) <= ENDGAME_PIECES;
    for sq in pos.pieces(us, Role::Pawn) {
        let to_go = i32::from(last.abs_diff(sq.rank()));
        let advanced = (i32::from(height) - 2 - to_go).max(0);
        score += 4 * advanced + if to_go <= 2 { 20 * (3 - to_go) } else { 0 };
        let passed = !enemy_pawns
            .into_iter()
            .any(|p| p.file().abs_diff(sq.file()) <= 1 && last.abs_diff(p.rank()) < last.abs_diff(sq.rank()));
        if passed {
            let bonus = [0, 90, 60, 40, 25, 15][to_go.clamp(0, 5) as usize].max(10);
            score += if endgame { bonus * 3 / 2 } else { bonus };
        }
        // Central pawns a little more.
        let df = (2 * i32::from(sq.file()) - i32::from(width) + 1).abs();
        score += (4 - df).max(0);
    }

    // Reach of the pieces, and pressure on the enemy king's neighbourhood.
    let enemy_zone = pos.king(them).map_or(Bitboard::EMPTY, |k| attacks::king(k) | k.bb());
    let mut pressure = 0;
    let mut attackers = 0;
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
                let near = |at: Square| 7 - i32::from(at.distance(enemy_king)).min(7);
                score += tropism * near(sq);
                // Where the board is built turn by turn, the nearest place the piece can go next
                // too: a square brought beside a piece is the next step of its walk towards the
                // king, worth something before the piece stands on it.
                if rules.square_actions && !rules.tiles {
                    let empty = reach & pos.squares() & !pos.occupied();
                    let next = empty.into_iter().map(near).max().unwrap_or(0);
                    score += 3 * (next - near(sq)).max(0);
                }
            }
            // Where holes keep the armies apart, a piece bearing on an enemy piece is contact, the
            // only way a game there is ever decided: the other side has to answer it.
            if rules.square_actions && !rules.tiles {
                score += 6 * (reach & pos.by_color(them) & !pos.by_role(Role::King)).count() as i32;
            }
            pressure += (reach & enemy_zone).count() as i32 * if role == Role::Queen { 2 } else { 1 };
            attackers += usize::from((reach & enemy_zone).any());
        }
    }
    score += 6 * pressure.min(12);
    // Several pieces bearing on the enemy king's neighbourhood together are an attack, counted
    // more than their sum; one alone is none. While queens are on (the rest of the king's
    // danger is in `king_danger`).
    if pos.by_role(Role::Queen).any() {
        score += [0, 0, 15, 35, 60, 90][attackers.min(5)];
    }

    // The own king: flight squares, and a shelter while queens are about.
    if let Some(king) = pos.king(us) {
        let flights = (attacks::king(king) & pos.squares() & !ours).count() as i32;
        let queens = pos.by_role(Role::Queen).any();
        if squares_change_hands(pos) {
            // Its flight squares are the opponent's to take and its own to bring back.
        } else if flights == 0 {
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
            score -= king_danger(pos, us, king);
        }
        // The right to castle is a safe home still to come: a king that steps aside and back
        // for nothing has thrown it away.
        let rights = (pos.castling_rooks() & ours).count() as i32;
        score += 12 * rights.min(2);
    }

    if straight_lines && rules.only_pieces_move() {
        score += structure_terms(pos, us);
        if !rules.shrink && (width, height) == (8, 8) {
            score += placement(pos, us);
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

/// Where the board stays whole (FIDE chess, Shrink): what chess players weigh beyond material
/// and reach. Pawns doubled on a file or with no pawn of their own on the files beside them (they
/// cannot be defended by a pawn) are weak; two bishops cover both colours; a rook on a file no pawn
/// of its own blocks bears down it; and once the queens are off the king comes to the centre, where
/// an endgame's pawns are won and stopped.
fn structure_terms(pos: &Position, us: Color) -> i32 {
    let them = us.other();
    let width = usize::from(pos.size().0);
    let count_files = |color: Color| {
        let mut files = [0i32; 16];
        for p in pos.pieces(color, Role::Pawn) {
            files[usize::from(p.file())] += 1;
        }
        files
    };
    let (own, theirs) = (count_files(us), count_files(them));
    let mut score = 0;
    for file in 0..width {
        let n = own[file];
        if n == 0 {
            continue;
        }
        score -= 12 * (n - 1);
        let left = file > 0 && own[file - 1] > 0;
        let right = file + 1 < width && own[file + 1] > 0;
        if !left && !right {
            score -= 10 * n;
        }
    }
    if pos.pieces(us, Role::Bishop).count() >= 2 {
        score += 30;
    }
    for rook in pos.pieces(us, Role::Rook) {
        let file = usize::from(rook.file());
        if own[file] == 0 {
            score += if theirs[file] == 0 { 20 } else { 10 };
        }
    }
    if !pos.by_role(Role::Queen).any()
        && let Some(king) = pos.king(us)
    {
        score += 3 * (8 - from_centre(pos, king)).max(0);
    }
    score
}

/// Where each piece stands best on a whole 8×8 board, as chess players place them: pawns in
/// the centre and advanced, knights and bishops off the rim, rooks on the seventh, the king
/// castled behind its pawns while there is material to attack it and central once there is not
/// (tables after Michniewski's simplified evaluation; rank 8 first, as White sees the board).
fn placement(pos: &Position, us: Color) -> i32 {
    #[rustfmt::skip]
    const TABLES: [[i8; 64]; 5] = [
        [0, 0, 0, 0, 0, 0, 0, 0, 50, 50, 50, 50, 50, 50, 50, 50, 10, 10, 20, 30, 30, 20, 10, 10,
         5, 5, 10, 25, 25, 10, 5, 5, 0, 0, 0, 20, 20, 0, 0, 0, 5, -5, -10, 0, 0, -10, -5, 5,
         5, 10, 10, -20, -20, 10, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0],
        [-50, -40, -30, -30, -30, -30, -40, -50, -40, -20, 0, 0, 0, 0, -20, -40,
         -30, 0, 10, 15, 15, 10, 0, -30, -30, 5, 15, 20, 20, 15, 5, -30,
         -30, 0, 15, 20, 20, 15, 0, -30, -30, 5, 10, 15, 15, 10, 5, -30,
         -40, -20, 0, 5, 5, 0, -20, -40, -50, -40, -30, -30, -30, -30, -40, -50],
        [-20, -10, -10, -10, -10, -10, -10, -20, -10, 0, 0, 0, 0, 0, 0, -10,
         -10, 0, 5, 10, 10, 5, 0, -10, -10, 5, 5, 10, 10, 5, 5, -10,
         -10, 0, 10, 10, 10, 10, 0, -10, -10, 10, 10, 10, 10, 10, 10, -10,
         -10, 5, 0, 0, 0, 0, 5, -10, -20, -10, -10, -10, -10, -10, -10, -20],
        [0, 0, 0, 0, 0, 0, 0, 0, 5, 10, 10, 10, 10, 10, 10, 5, -5, 0, 0, 0, 0, 0, 0, -5,
         -5, 0, 0, 0, 0, 0, 0, -5, -5, 0, 0, 0, 0, 0, 0, -5, -5, 0, 0, 0, 0, 0, 0, -5,
         -5, 0, 0, 0, 0, 0, 0, -5, 0, 0, 0, 5, 5, 0, 0, 0],
        [-20, -10, -10, -5, -5, -10, -10, -20, -10, 0, 0, 0, 0, 0, 0, -10,
         -10, 0, 5, 5, 5, 5, 0, -10, -5, 0, 5, 5, 5, 5, 0, -5, 0, 0, 5, 5, 5, 5, 0, -5,
         -10, 5, 5, 5, 5, 5, 0, -10, -10, 0, 5, 0, 0, 0, 0, -10, -20, -10, -10, -5, -5, -10, -10, -20],
    ];
    #[rustfmt::skip]
    const KING_SHELTERED: [i8; 64] = [
        -30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40, -40, -30,
        -20, -30, -30, -40, -40, -30, -30, -20, -10, -20, -20, -20, -20, -20, -20, -10,
        20, 20, 0, 0, 0, 0, 20, 20, 20, 30, 10, 0, 0, 10, 30, 20,
    ];
    // Where White's table reads a square: rank 8 first, each rank from the a-file.
    let index = |sq: Square| {
        let rank = if us == Color::White { 7 - usize::from(sq.rank()) } else { usize::from(sq.rank()) };
        rank * 8 + usize::from(sq.file())
    };
    let mut score = 0;
    for (table, role) in TABLES.iter().zip([Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen])
    {
        score += pos.pieces(us, role).into_iter().map(|sq| i32::from(table[index(sq)])).sum::<i32>();
    }
    // The king's shelter while the enemy has material to attack with; the centre (in
    // `structure_terms`) once the queens are off.
    if let Some(king) = pos.king(us)
        && piece_material(pos, us.other()) > ENDGAME_PIECES
    {
        score += i32::from(KING_SHELTERED[index(king)]);
    }
    // At half the tables' scale: `side` already counts reach, a pawn's progress and the centre.
    score / 2
}

/// What threatens `us`'s king while queens are on, besides the enemy pieces bearing on it
/// (counted with the enemy's reach in `side`): files with no pawn of its own beside it that an
/// enemy rook or queen may use, and, where the board changes, the locations next to the king that
/// a square could be moved or placed on, roads in for the enemy's pieces when it has a square to
/// bring.
fn king_danger(pos: &Position, us: Color, king: Square) -> i32 {
    let them = us.other();
    let mut danger = 0;
    let straight_lines = !pos.has_named_locations();
    let heavy = pos.pieces(them, Role::Rook) | pos.pieces(them, Role::Queen);
    if straight_lines && heavy.any() {
        let (width, _) = pos.size();
        let own_pawns = pos.pieces(us, Role::Pawn);
        for file in king.file().saturating_sub(1)..=(king.file() + 1).min(width - 1) {
            let on_file = own_pawns.into_iter().any(|p| p.file() == file);
            if !on_file {
                danger += if file == king.file() { 20 } else { 10 };
            }
        }
    }
    let rules = pos.rules();
    if rules.square_actions {
        let can_bring = pos.reserve(them).is_some_and(|h| h > 0) || rules.reserve == Reserve::Infinite;
        if can_bring && !squares_change_hands(pos) {
            danger += 4 * (attacks::king(king) & pos.holes() & pos.board_mask()).count() as i32;
        }
    }
    danger
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
    if let Some(king) = pos.king(us)
        && !squares_change_hands(pos)
    {
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

/// Tiled Squares: tiles are room for one's own pieces, and one's own tiles around the enemy king
/// are lines into its home that it cannot close: an anti-tile goes only on void, and only the
/// owner takes a tile away. (Anti-tiles by the enemy king are no cage: the king steps onto
/// them, and they shield it from every line but the knight's.)
fn tiles_terms(pos: &Position, us: Color) -> i32 {
    let mut score = 4 * pos.owned_by(us).count().min(24) as i32;
    if let Some(king) = pos.king(us.other()) {
        let near = attacks::king(king);
        let around = near.into_iter().fold(near, |acc, sq| acc | attacks::king(sq));
        score += 6 * (pos.owned_by(us) & around & !pos.occupied()).count() as i32;
    }
    score
}

/// With a clear lead, herd the enemy king: the locations it can still reach without stepping
/// where the winner attacks (its box) fewer, its safe flight squares fewer, the edge nearer and
/// the winner's king closer. Counting only what the king itself blocks would reward nothing the
/// winner's pieces do; the box is what a mating attack shrinks turn by turn, where the edge and the
/// kings' distance alone say little on a board of holes and void.
fn mop_up(pos: &Position) -> i32 {
    let lead = material(pos, Color::White) - material(pos, Color::Black);
    if lead.abs() < 250 {
        return 0;
    }
    let (strong, weak) = if lead > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    let (Some(strong_king), Some(weak_king)) = (pos.king(strong), pos.king(weak)) else { return 0 };
    let edge = from_centre(pos, weak_king);
    let closeness = 14 - i32::from(strong_king.distance(weak_king));
    let herd = if pos.has_named_locations() {
        let flights = (attacks::king(weak_king) & pos.squares() & !pos.by_color(weak)).count() as i32;
        6 * edge + 6 * closeness + 12 * (8 - flights)
    } else {
        // Where the weak king may step: any location in Tiled Squares (it lays a tile on void and
        // lifts an anti-tile) and in Hans38 Neutral (a hole beside it is a square the next turn:
        // either player moves any empty square), a square elsewhere; never onto its own pieces or
        // where attacked (a hole at the end of a line counts as attacked: a square brought there
        // would be).
        let anywhere = pos.rules().tiles || squares_change_hands(pos);
        let ground = if anywhere { pos.board_mask() } else { pos.squares() & pos.board_mask() };
        let safe = ground & !pos.by_color(weak) & !attacked_by(pos, strong, weak_king);
        let flights = (attacks::king(weak_king) & safe).count() as i32;
        // The box is walked over empty locations: taking a piece on the way is the search's.
        let open = safe & !pos.by_color(strong);
        let mut area = weak_king.bb();
        let mut frontier = area;
        while frontier.any() {
            let mut next = Bitboard::EMPTY;
            for sq in frontier {
                next |= attacks::king(sq);
            }
            frontier = next & open & !area;
            area |= frontier;
        }
        let box_size = area.count() as i32 - 1;
        4 * edge + 4 * closeness + 14 * (8 - flights) + 4 * (24 - box_size.min(24))
    };
    if strong == Color::White { herd } else { -herd }
}

/// Every location `by`'s pieces attack, seen through the enemy king `through` (it cannot step back
/// along a line that checks it).
fn attacked_by(pos: &Position, by: Color, through: Square) -> Bitboard {
    let blockers = (pos.occupied() | pos.walls()) & !through.bb();
    let mut seen = Bitboard::EMPTY;
    for sq in pos.by_color(by) {
        let Some(piece) = pos.piece_at(sq) else { continue };
        seen |= match piece.role {
            Role::Pawn => attacks::pawn(by, sq),
            Role::Knight => attacks::knight(sq),
            Role::Bishop => attacks::bishop(sq, blockers),
            Role::Rook => attacks::rook(sq, blockers),
            Role::Queen => attacks::queen(sq, blockers),
            Role::King => attacks::king(sq),
        };
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::Variant;

    /// Hans38 Neutral: the empty square beside White's king (d1) is a flight and one hole fewer
    /// beside it, but either player may carry it away or back on any turn; counting it made the
    /// games a tug of war over the squares by the kings (`@d3-e1`, `@e1-d3`, ...). It changes
    /// nothing there now; in Hans38, where only its owner moves it, it still counts.
    #[test]
    fn a_square_by_the_king_counts_only_where_it_is_not_everyones() {
        let with =
            "****k***/********/********/********/********/********/********/***1K*** w - - 0 1 hand:0/0";
        let without =
            "****k***/********/********/********/********/********/********/****K*** w - - 0 1 hand:0/0";
        let score = |variant, fen| evaluate(&Position::from_fen(variant, fen).unwrap());
        assert_eq!(score(Variant::HANS38_NEUTRAL, with), score(Variant::HANS38_NEUTRAL, without));
        assert!(score(Variant::HANS38, with) >= score(Variant::HANS38, without) + 25);
    }

    /// Hans38 Neutral: the lone king on a8 has holes all round it, and either player may bring a
    /// square to any of them next turn, so they are its flights; a knight on c5 covers b7, one of
    /// them, and the winner's herding counts one flight fewer (14 cp) than with the knight on h4.
    /// In Hans38, where only the owner moves a square, the holes are no flights either way.
    #[test]
    fn holes_by_a_lone_king_are_its_flights_where_squares_are_everyones() {
        let covered =
            "k*******/********/********/**N*****/********/********/********/****K**R w - - 0 1 hand:0/0";
        let away =
            "k*******/********/********/********/*******N/********/********/****K**R w - - 0 1 hand:0/0";
        let herd = |variant, fen| mop_up(&Position::from_fen(variant, fen).unwrap());
        assert_eq!(herd(Variant::HANS38_NEUTRAL, covered) - herd(Variant::HANS38_NEUTRAL, away), 14);
        assert_eq!(herd(Variant::HANS38, covered), herd(Variant::HANS38, away));
    }

    /// Pawn structure, bishops, rooks and the king counted by hand (White's terms): two pawns
    /// side by side cost nothing; doubled on a file with no neighbour, 12 for the second and 10
    /// each for being isolated; a rook on a file with no pawn at all 20, with only an enemy pawn
    /// 10; two bishops 30; with the queens off, 3 cp for each step the king stands nearer the
    /// centre than the edge allows (e1: 3, e4: 21), and nothing while queens are on.
    #[test]
    fn structure_counted_by_hand() {
        let terms =
            |fen: &str| structure_terms(&Position::from_fen(Variant::CHESS, fen).unwrap(), Color::White);
        let king_e1 = 3;
        assert_eq!(terms("4k3/8/8/8/8/8/1PP5/4K3 w - - 0 1"), king_e1);
        assert_eq!(terms("4k3/8/8/8/8/1P6/1P6/4K3 w - - 0 1"), king_e1 - 12 - 20);
        assert_eq!(terms("4k3/8/8/8/8/8/1PP5/R3K3 w - - 0 1"), king_e1 + 20);
        assert_eq!(terms("4k3/p7/8/8/8/8/1PP5/R3K3 w - - 0 1"), king_e1 + 10);
        assert_eq!(terms("4k3/8/8/8/8/8/1PP5/2B1KB2 w - - 0 1"), king_e1 + 30);
        assert_eq!(terms("4k3/8/8/8/4K3/8/1PP5/8 w - - 0 1"), 3 * 7);
        // With queens on, the king's place is `placement`'s shelter, not the centre.
        assert_eq!(terms("3qk3/8/8/8/4K3/8/1PP5/3Q4 w - - 0 1"), 0);
    }

    /// The placement tables, at half their scale: a knight in the corner counts 35 cp less than
    /// on d4; for Black the table is read from its own side of the board.
    #[test]
    fn placement_read_from_each_side() {
        let at = |fen: &str, color| placement(&Position::from_fen(Variant::CHESS, fen).unwrap(), color);
        let corner = at("4k3/8/8/8/8/8/8/N3K3 w - - 0 1", Color::White);
        let centre = at("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(centre - corner, (20 - -50) / 2);
        assert_eq!(at("n3k3/8/8/8/8/8/8/4K3 w - - 0 1", Color::Black), corner);
    }

    /// A rook up: with the rook on the seventh rank the bare king is shut in on the eighth (two
    /// safe flight squares, six locations in its box); with the rook on the second it has the
    /// board. Herding counts the difference, in chess and in Tiled Squares, where the king may
    /// also step onto void; before, it counted only flight squares its own pieces or holes took
    /// away, the same five in both.
    #[test]
    fn herding_counts_the_box_the_winner_attacks() {
        let cases = [
            (Variant::CHESS, "4k3/R7/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/R7/4K3 w - - 0 1"),
            (
                Variant::TILED_SQUARES,
                "----k---/R-------/********/********/********/********/++++++++/++++K+++ w - - 0 1",
                "----k---/--------/********/********/********/********/R+++++++/++++K+++ w - - 0 1",
            ),
        ];
        for (variant, cut, open) in cases {
            let cut = Position::from_fen(variant, cut).unwrap();
            let open = Position::from_fen(variant, open).unwrap();
            let (shut, free) = (mop_up(&cut), mop_up(&open));
            assert!(shut >= free + 50, "{variant:?}: rook on the seventh {shut}, on the second {free}");
        }
    }
}
