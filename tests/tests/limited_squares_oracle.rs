//! An independent, deliberately slow implementation of the limited-supply-of-squares rules
//! (L1–L13), written from the rules texts with a plain 64-cell array and no bitboards, checked
//! against the engine: the same set of legal turns in every position of many random games, and
//! the same perft counts.
//!
//! Only the position text is shared with the engine (it is round-trip tested on its own).

use std::collections::BTreeSet;
use tessera_tests::XorShift;

use tessera_rules::variant::{Reserve, Rules, TurnRule};
use tessera_rules::{Action, Color, Game, Move, Position, Role, Square, Variant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell {
    square: bool,
    owner: Option<Color>,
    piece: Option<(Color, Role)>,
}

#[derive(Clone, Debug)]
struct Oracle {
    rules: Rules,
    cells: [Cell; 64],
    turn: Color,
    castle_rooks: Vec<usize>,
    ep: Option<usize>,
    fullmoves: u32,
    reserves: [u8; 2],
    locked: Vec<usize>,
    carried: Vec<usize>,
    /// Squares placed or moved this turn, and the location a double step passed.
    touched: Vec<usize>,
    double: Option<usize>,
}

fn idx(file: i32, rank: i32) -> Option<usize> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then_some((rank * 8 + file) as usize)
}

fn name(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1)
}

fn forward(c: Color) -> i32 {
    if c == Color::White { 1 } else { -1 }
}

const KNIGHT: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// One action in a canonical text both implementations can produce.
#[derive(Clone, Debug)]
enum Act {
    Piece { from: usize, to: usize, promo: Option<Role>, ep: bool },
    Castle { king: usize, rook: usize },
    Place(usize),
    Shift { from: usize, to: usize, promo: Option<Role> },
}

fn promo_text(p: Option<Role>) -> String {
    p.map(|r| r.upper().to_ascii_lowercase().to_string()).unwrap_or_default()
}

impl Act {
    fn text(&self) -> String {
        match self {
            Act::Piece { from, to, promo, .. } => {
                format!("{}{}{}", name(*from), name(*to), promo_text(*promo))
            }
            Act::Castle { king, rook } => if rook < king { "O-O-O" } else { "O-O" }.to_string(),
            Act::Place(to) => format!("@@{}", name(*to)),
            Act::Shift { from, to, promo } => format!("@{}-{}{}", name(*from), name(*to), promo_text(*promo)),
        }
    }

    fn is_piece(&self) -> bool {
        matches!(self, Act::Piece { .. } | Act::Castle { .. })
    }
}

impl Oracle {
    fn from_position(pos: &Position) -> Oracle {
        let mut cells = [Cell { square: false, owner: None, piece: None }; 64];
        for (i, cell) in cells.iter_mut().enumerate() {
            let sq = Square::new(i as u8);
            cell.square = pos.squares().contains(sq);
            cell.owner = pos.owner(sq);
            cell.piece = pos.piece_at(sq).map(|p| (p.color, p.role));
        }
        Oracle {
            rules: *pos.rules(),
            cells,
            turn: pos.turn(),
            castle_rooks: pos.castling_rooks().into_iter().map(|s| s.index()).collect(),
            ep: pos.ep_square().map(|s| s.index()),
            fullmoves: pos.fullmoves(),
            reserves: [pos.reserve(Color::White).unwrap_or(0), pos.reserve(Color::Black).unwrap_or(0)],
            locked: pos.locked().into_iter().map(|s| s.index()).collect(),
            carried: pos.carried_pawns().into_iter().map(|s| s.index()).collect(),
            touched: Vec::new(),
            double: None,
        }
    }

    /// Whether any piece of `by` could capture on `target` (holes block sliders, knights leap).
    fn attacked(&self, target: usize, by: Color) -> bool {
        let (tf, tr) = ((target % 8) as i32, (target / 8) as i32);
        for (i, cell) in self.cells.iter().enumerate() {
            let Some((color, role)) = cell.piece else { continue };
            if color != by {
                continue;
            }
            let (f, r) = ((i % 8) as i32, (i / 8) as i32);
            let (df, dr) = (tf - f, tr - r);
            let hit = match role {
                Role::Pawn => dr == forward(by) && df.abs() == 1,
                Role::Knight => KNIGHT.contains(&(df, dr)),
                Role::King => KING.contains(&(df, dr)),
                Role::Rook => self.ray_reaches(i, target, &ROOK_DIRS),
                Role::Bishop => self.ray_reaches(i, target, &BISHOP_DIRS),
                Role::Queen => {
                    self.ray_reaches(i, target, &ROOK_DIRS) || self.ray_reaches(i, target, &BISHOP_DIRS)
                }
            };
            if hit {
                return true;
            }
        }
        false
    }

    fn ray_reaches(&self, from: usize, target: usize, dirs: &[(i32, i32)]) -> bool {
        for &(df, dr) in dirs {
            let (mut f, mut r) = ((from % 8) as i32, (from / 8) as i32);
            loop {
                f += df;
                r += dr;
                let Some(i) = idx(f, r) else { break };
                if i == target {
                    return true;
                }
                if !self.cells[i].square || self.cells[i].piece.is_some() {
                    break;
                }
            }
        }
        false
    }

    fn king_attacked(&self, color: Color) -> bool {
        let king = self.cells.iter().position(|c| c.piece == Some((color, Role::King)));
        king.is_some_and(|k| self.attacked(k, color.other()))
    }

    fn piece_acts(&self) -> Vec<Act> {
        let us = self.turn;
        let mut acts = Vec::new();
        let free = |i: usize| self.cells[i].square && self.cells[i].piece.is_none();
        let enterable = |i: usize| self.cells[i].square && self.cells[i].piece.is_none_or(|(c, _)| c != us);
        for (i, cell) in self.cells.iter().enumerate() {
            let Some((color, role)) = cell.piece else { continue };
            if color != us {
                continue;
            }
            let (f, r) = ((i % 8) as i32, (i / 8) as i32);
            let add = |to: usize, acts: &mut Vec<Act>| {
                let last = if us == Color::White { 7 } else { 0 };
                if role == Role::Pawn && to / 8 == last {
                    for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        acts.push(Act::Piece { from: i, to, promo: Some(p), ep: false });
                    }
                } else {
                    acts.push(Act::Piece { from: i, to, promo: None, ep: false });
                }
            };
            match role {
                Role::Pawn => {
                    let fw = forward(us);
                    if let Some(one) = idx(f, r + fw)
                        && free(one)
                    {
                        add(one, &mut acts);
                        let start_rank = if us == Color::White { 1 } else { 6 };
                        if r == start_rank
                            && !self.carried.contains(&i)
                            && let Some(two) = idx(f, r + 2 * fw)
                            && free(two)
                        {
                            add(two, &mut acts);
                        }
                    }
                    for df in [-1, 1] {
                        if let Some(t) = idx(f + df, r + fw) {
                            if self.cells[t].piece.is_some_and(|(c, _)| c != us) {
                                add(t, &mut acts);
                            } else if self.ep == Some(t) && self.cells[t].square {
                                acts.push(Act::Piece { from: i, to: t, promo: None, ep: true });
                            }
                        }
                    }
                }
                Role::Knight | Role::King => {
                    let deltas = if role == Role::Knight { &KNIGHT } else { &KING };
                    for &(df, dr) in deltas {
                        if let Some(t) = idx(f + df, r + dr)
                            && enterable(t)
                        {
                            add(t, &mut acts);
                        }
                    }
                }
                _ => {
                    let mut dirs = Vec::new();
                    if role != Role::Bishop {
                        dirs.extend(ROOK_DIRS);
                    }
                    if role != Role::Rook {
                        dirs.extend(BISHOP_DIRS);
                    }
                    for (df, dr) in dirs {
                        let (mut ff, mut rr) = (f, r);
                        loop {
                            ff += df;
                            rr += dr;
                            let Some(t) = idx(ff, rr) else { break };
                            if !self.cells[t].square {
                                break;
                            }
                            match self.cells[t].piece {
                                None => add(t, &mut acts),
                                Some((c, _)) => {
                                    if c != us {
                                        add(t, &mut acts);
                                    }
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        // Castling (L4): every location between king and rook an empty square, king not passing attack.
        let back = if us == Color::White { 0 } else { 7 };
        if let Some(king) = self.cells.iter().position(|c| c.piece == Some((us, Role::King)))
            && king / 8 == back
            && !self.attacked(king, us.other())
        {
            for &rook in &self.castle_rooks {
                if rook / 8 != back || self.cells[rook].piece != Some((us, Role::Rook)) {
                    continue;
                }
                let (kt, rt) =
                    if rook > king { (back * 8 + 6, back * 8 + 5) } else { (back * 8 + 2, back * 8 + 3) };
                let lo = *[king, rook, kt, rt].iter().min().unwrap();
                let hi = *[king, rook, kt, rt].iter().max().unwrap();
                let clear = (lo..=hi).filter(|&i| i != king && i != rook).all(free);
                let mut without_king = self.clone();
                without_king.cells[king].piece = None;
                let (a, b) = (king.min(kt), king.max(kt));
                let safe = (a..=b).filter(|&i| i != king).all(|i| !without_king.attacked(i, us.other()));
                if clear && safe {
                    acts.push(Act::Castle { king, rook });
                }
            }
        }
        acts
    }

    fn square_acts(&self) -> Vec<Act> {
        let us = self.turn;
        let mut acts = Vec::new();
        if !self.rules.square_actions {
            return acts;
        }
        for from in 0..64 {
            let c = self.cells[from];
            if !c.square || self.locked.contains(&from) {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            if c.piece.is_none() && (!self.rules.owned_squares || c.owner == Some(us)) {
                for df in -2..=2 {
                    for dr in -2..=2 {
                        if let Some(to) = idx(f + df, r + dr)
                            && !self.cells[to].square
                        {
                            acts.push(Act::Shift { from, to, promo: None });
                        }
                    }
                }
            }
            if self.rules.carry
                && let Some((color, role)) = c.piece
                && color == us
                && role != Role::King
            {
                for (df, dr) in KING {
                    if let Some(to) = idx(f + df, r + dr)
                        && !self.cells[to].square
                    {
                        let last = if us == Color::White { 7 } else { 0 };
                        if role == Role::Pawn && to / 8 == last {
                            for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                                acts.push(Act::Shift { from, to, promo: Some(p) });
                            }
                        } else {
                            acts.push(Act::Shift { from, to, promo: None });
                        }
                    }
                }
            }
        }
        let can_place = match self.rules.reserve {
            Reserve::None => false,
            Reserve::Finite(_) => self.reserves[us.index()] > 0,
            Reserve::Infinite => true,
        };
        if can_place {
            for to in 0..64 {
                if !self.cells[to].square {
                    acts.push(Act::Place(to));
                }
            }
        }
        acts
    }

    fn apply(&mut self, act: &Act) {
        let us = self.turn;
        let removing = self.rules.removal_from_turn.is_some_and(|n| self.fullmoves >= n);
        let take = |o: &mut Oracle, to: usize| {
            if o.rules.owned_squares {
                o.cells[to].owner = Some(us);
            }
        };
        match *act {
            Act::Piece { from, to, promo, ep } => {
                let (color, role) = self.cells[from].piece.unwrap();
                if ep {
                    let behind = (from / 8) * 8 + to % 8;
                    self.cells[behind].piece = None;
                }
                self.cells[to].piece = Some((color, promo.unwrap_or(role)));
                self.cells[from].piece = None;
                take(self, to);
                if role == Role::Pawn && from.abs_diff(to) == 16 {
                    self.double = Some((from + to) / 2);
                }
                if role == Role::King {
                    let back = if us == Color::White { 0..8 } else { 56..64 };
                    self.castle_rooks.retain(|r| !back.contains(r));
                }
                self.castle_rooks.retain(|&r| r != from && r != to);
                self.carried.retain(|&c| c != from && c != to);
                if removing {
                    self.cells[from].square = false;
                    self.cells[from].owner = None;
                }
            }
            Act::Castle { king, rook } => {
                let back = king / 8 * 8;
                let (kt, rt) = if rook > king { (back + 6, back + 5) } else { (back + 2, back + 3) };
                self.cells[king].piece = None;
                self.cells[rook].piece = None;
                self.cells[kt].piece = Some((us, Role::King));
                self.cells[rt].piece = Some((us, Role::Rook));
                take(self, kt);
                take(self, rt);
                let back_rank = back..back + 8;
                self.castle_rooks.retain(|r| !back_rank.contains(r));
                if removing && self.cells[king].piece.is_none() {
                    self.cells[king].square = false;
                    self.cells[king].owner = None;
                }
            }
            Act::Place(to) => {
                // L5: a placed square is locked for the opponent too in every neutral game with
                // Postal or Postal Plus turns (Neutral Postal, Neutral Postal Plus, Infinite
                // Reserves, Moving Occupied Squares); in the owned games and in plain Neutral only a
                // moved square is.
                let postal = matches!(
                    self.rules.turn,
                    TurnRule::Postal | TurnRule::PostalPlus | TurnRule::InfiniteReserves
                );
                if postal && !self.rules.owned_squares {
                    self.touched.push(to);
                }
                self.cells[to].square = true;
                if self.rules.owned_squares {
                    self.cells[to].owner = Some(us);
                }
                if let Reserve::Finite(_) = self.rules.reserve {
                    self.reserves[us.index()] -= 1;
                }
            }
            Act::Shift { from, to, promo } => {
                self.touched.push(to);
                let moved = self.cells[from];
                self.cells[from] = Cell { square: false, owner: None, piece: None };
                self.cells[to] = moved;
                if let Some((color, role)) = moved.piece {
                    self.cells[to].piece = Some((color, promo.unwrap_or(role)));
                    self.castle_rooks.retain(|&r| r != from);
                    self.carried.retain(|&c| c != from);
                    if role == Role::Pawn && promo.is_none() {
                        self.carried.push(to);
                    }
                }
            }
        }
    }

    /// Every legal turn as text, by brute force over the turn shapes of L9, L12 and the basic game.
    fn turns(&self) -> BTreeSet<String> {
        self.turns_full().into_iter().map(|(t, _)| t).collect()
    }

    /// Closes a turn: side to move, turn number, locks, en passant.
    fn finish(mut self) -> Oracle {
        if self.turn == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = self.turn.other();
        // A square that moved on after being touched is locked only where it now stands.
        self.locked = std::mem::take(&mut self.touched);
        self.locked.retain(|&l| self.cells[l].square);
        self.ep = self.double.take().filter(|&e| self.cells[e].square);
        self
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.turns_full().into_iter().map(|(_, next)| next.finish().perft(depth - 1)).sum()
    }

    fn turns_full(&self) -> Vec<(String, Oracle)> {
        let mut out = Vec::new();
        let us = self.turn;
        match self.rules.turn {
            TurnRule::Single => {
                for act in self.piece_acts().into_iter().chain(self.square_acts()) {
                    let mut next = self.clone();
                    next.apply(&act);
                    if !next.king_attacked(us) {
                        out.push((act.text(), next));
                    }
                }
            }
            _ => {
                for act in self.piece_acts() {
                    let mut next = self.clone();
                    next.apply(&act);
                    next.extend(vec![act], &mut out);
                }
                let first_turn = self.fullmoves == 1;
                if first_turn && out.is_empty() {
                    self.extend(Vec::new(), &mut out);
                }
            }
        }
        out
    }

    fn extend(&self, done: Vec<Act>, out: &mut Vec<(String, Oracle)>) {
        let placed = done.iter().any(|a| matches!(a, Act::Place(_)));
        let shifted = done.iter().any(|a| matches!(a, Act::Shift { .. }));
        let holes = self.cells.iter().any(|c| !c.square);
        if !done.is_empty()
            && !self.king_attacked(self.turn)
            && (self.rules.turn != TurnRule::InfiniteReserves || placed || !holes)
        {
            out.push((done.iter().map(Act::text).collect::<Vec<_>>().join(" "), self.clone()));
        }
        let square_done = done.iter().filter(|a| !a.is_piece()).count();
        let (may_shift, may_place) = match self.rules.turn {
            TurnRule::Postal => (square_done == 0, square_done == 0),
            _ => (!shifted, !placed),
        };
        for act in self.square_acts() {
            let is_place = matches!(act, Act::Place(_));
            if (is_place && may_place) || (!is_place && may_shift) {
                let mut next = self.clone();
                next.apply(&act);
                let mut longer = done.clone();
                longer.push(act);
                next.extend(longer, out);
            }
        }
    }
}

fn engine_text(mv: &Move) -> String {
    let mut parts = Vec::new();
    for a in mv.actions() {
        parts.push(match a {
            Action::Normal { from, to, promotion, .. } => format!("{from}{to}{}", promo_text(promotion)),
            Action::EnPassant { from, to } => format!("{from}{to}"),
            Action::Castle { king, rook } => if rook < king { "O-O-O" } else { "O-O" }.to_string(),
            Action::Place { to } => format!("@@{to}"),
            Action::Shift { from, to, promotion } => format!("@{from}-{to}{}", promo_text(promotion)),
            Action::Sacrifice { .. }
            | Action::Chip { .. }
            | Action::DropAnti { .. }
            | Action::RemoveTile { .. } => {
                unreachable!("not in the squares family")
            }
        });
    }
    parts.join(" ")
}

/// Plays random games; in every position the engine's legal turns must equal the oracle's.
fn agree_on_random_games(variant: Variant, games: usize, plies: usize, seed: u64) -> usize {
    let mut rng = XorShift(seed);
    let mut checked = 0;
    for game_no in 0..games {
        let mut game = Game::from_variant(variant);
        for ply in 0..plies {
            let pos = game.position().clone();
            let ours: Vec<Move> = pos.legal_moves();
            let ours_text: BTreeSet<String> = ours.iter().map(engine_text).collect();
            assert_eq!(
                ours_text.len(),
                ours.len(),
                "{variant}: the engine lists a turn twice at {}",
                pos.fen()
            );
            let theirs = Oracle::from_position(&pos).turns();
            if ours_text != theirs {
                let extra: Vec<_> = ours_text.difference(&theirs).take(5).collect();
                let missing: Vec<_> = theirs.difference(&ours_text).take(5).collect();
                panic!(
                    "{variant} game {game_no} ply {ply} at {}:\n engine only: {extra:?}\n oracle only: {missing:?}",
                    pos.fen()
                );
            }
            checked += 1;
            if std::env::var_os("ORACLE_TRACE").is_some() {
                eprintln!("{variant} {game_no}/{ply}: {} turns", ours.len());
            }
            if ours.is_empty() || game.outcome().is_some() {
                break;
            }
            // Favour piece moves, and turns that do not end the game at once, so games get somewhere.
            let piece_turns: Vec<&Move> = ours.iter().filter(|m| m.piece_action().is_some()).collect();
            let mut pick = ours[0];
            for _ in 0..10 {
                pick = if !piece_turns.is_empty() && !rng.next_index().is_multiple_of(3) {
                    *piece_turns[rng.next_index() % piece_turns.len()]
                } else {
                    ours[rng.next_index() % ours.len()]
                };
                if pos.played(&pick).has_legal_moves() {
                    break;
                }
            }
            game.play(pick).unwrap();
        }
    }
    checked
}

#[test]
fn hans38_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::HANS38, 60, 60, 1) > 1000);
}

#[test]
fn hans38_neutral_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::HANS38_NEUTRAL, 60, 60, 2) > 1000);
}

#[test]
fn hans38_postal_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::HANS38_POSTAL, 12, 24, 3) > 100);
    assert!(agree_on_random_games(Variant::HANS38_NEUTRAL_POSTAL, 12, 24, 4) > 100);
}

#[test]
fn hans38_postal_plus_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::HANS38_POSTAL_PLUS, 4, 16, 5) > 30);
    assert!(agree_on_random_games(Variant::HANS38_NEUTRAL_POSTAL_PLUS, 4, 16, 6) > 30);
}

#[test]
fn infinite_reserves_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::INFINITE_RESERVES, 8, 24, 7) > 100);
}

#[test]
fn moving_occupied_squares_agrees_with_the_oracle() {
    assert!(agree_on_random_games(Variant::MOVING_OCCUPIED_SQUARES, 8, 24, 8) > 100);
}

/// The perft files of the squares family, checked against the oracle up to a node limit.
#[test]
fn perft_files_agree_with_the_oracle() {
    const LIMIT: u64 = 300_000;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let variant: Variant = stem.parse().unwrap();
        if !variant.rules().square_actions || variant.rules().tiles {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut fen = String::new();
        for line in text.lines() {
            if let Some(f) = line.strip_prefix("epd ") {
                fen = f.to_string();
            } else if let Some(rest) = line.strip_prefix("perft ") {
                let (depth, nodes) = rest.split_once(' ').unwrap();
                let (depth, nodes): (u32, u64) = (depth.parse().unwrap(), nodes.parse().unwrap());
                if nodes > oracle_node_limit(LIMIT) {
                    continue;
                }
                let oracle = Oracle::from_position(&Position::from_fen(variant, &fen).unwrap());
                assert_eq!(oracle.perft(depth), nodes, "{stem} {fen} depth {depth}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} perft lines checked");
}

/// The largest perft line the slow oracle counts: `default`, or `TESSERA_ORACLE_LIMIT` to check
/// recounted files further by hand.
fn oracle_node_limit(default: u64) -> u64 {
    std::env::var("TESSERA_ORACLE_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Prints the oracle's own count for every line of the perft files named in `TESSERA_RECOUNT`
/// (comma-separated stems, e.g. `hans38-neutral-postal`) whose recorded count is within
/// `TESSERA_ORACLE_LIMIT` (default 300 000): how a file's numbers are recounted when a ruling
/// changes, never copied from the engine's own perft.
/// `TESSERA_RECOUNT=hans38-neutral-postal cargo test -p tessera-tests --test limited_squares_oracle
/// -- --ignored --nocapture recount`
#[test]
#[ignore]
fn recount_perft_files_with_the_oracle() {
    let wanted = std::env::var("TESSERA_RECOUNT").unwrap_or_default();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft");
    for stem in wanted.split(',').filter(|s| !s.is_empty()) {
        let variant: Variant = stem.parse().unwrap();
        let text = std::fs::read_to_string(dir.join(format!("{stem}.perft"))).unwrap();
        let mut fen = String::new();
        println!("# {stem}");
        for line in text.lines() {
            if let Some(f) = line.strip_prefix("epd ") {
                fen = f.to_string();
                println!("{line}");
            } else if let Some(rest) = line.strip_prefix("perft ") {
                let (depth, nodes) = rest.split_once(' ').unwrap();
                let (depth, nodes): (u32, u64) = (depth.parse().unwrap(), nodes.parse().unwrap());
                if nodes > oracle_node_limit(300_000) {
                    println!("perft {depth} {nodes} (over the limit: not recounted)");
                    continue;
                }
                let oracle = Oracle::from_position(&Position::from_fen(variant, &fen).unwrap());
                let started = std::time::Instant::now();
                println!("perft {depth} {} ({:?})", oracle.perft(depth), started.elapsed());
            }
        }
    }
}
