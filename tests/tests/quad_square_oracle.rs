//! An independent, slow implementation of Quad-Square Chess (Q1–Q12 and the R-Q rulings), built
//! on a list of 38 locations rather than the engine's bitboards, checked against the engine: the
//! same legal moves in every position of many random games, and the same perft counts.

use std::collections::BTreeSet;
use tessera_tests::XorShift;

use tessera_rules::quad;
use tessera_rules::{Action, Color, Game, Move, Position, Role, Square, Variant};

const QUADS: [(&str, u8, u8, bool); 6] = [
    ("S1", 0, 0, false),
    ("S2", 5, 0, false),
    ("S3", 0, 6, false),
    ("S4", 5, 6, false),
    ("M1", 1, 3, true),
    ("M2", 4, 3, true),
];

/// A location: a quad (by index) or a plain square (file, rank).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Loc {
    Quad(usize),
    Sq(u8, u8),
}

fn loc_of(file: u8, rank: u8) -> Loc {
    for (i, &(_, f, r, _)) in QUADS.iter().enumerate() {
        if (f..f + 2).contains(&file) && (r..r + 2).contains(&rank) {
            return Loc::Quad(i);
        }
    }
    Loc::Sq(file, rank)
}

fn cells(l: Loc) -> Vec<(u8, u8)> {
    match l {
        Loc::Quad(i) => {
            let (_, f, r, _) = QUADS[i];
            vec![(f, r), (f + 1, r), (f, r + 1), (f + 1, r + 1)]
        }
        Loc::Sq(f, r) => vec![(f, r)],
    }
}

fn name(l: Loc) -> String {
    match l {
        Loc::Quad(i) => QUADS[i].0.to_string(),
        Loc::Sq(f, r) => format!("{}{}", (b'a' + f) as char, r + 1),
    }
}

/// Q8 as the ruling words it, location by location: from any cell of `from`, one cell up, down,
/// left or right must enter a location other than `from`; from there one cell diagonally, carrying
/// on the way the first step went (up-left or up-right after a step up, and so on), must enter a
/// third location, neither `from` nor the one stepped through. The knight lands on that third
/// location, whatever stands on the way.
fn knight_landings(from: Loc) -> BTreeSet<Loc> {
    type Step = (i8, i8);
    let inside = |f: i8, r: i8| (0..7).contains(&f) && (0..8).contains(&r);
    let mut out = BTreeSet::new();
    for (cf, cr) in cells(from) {
        let (cf, cr) = (cf as i8, cr as i8);
        // (first step, the two diagonals that continue it)
        let ways: [(Step, [Step; 2]); 4] = [
            ((0, 1), [(-1, 1), (1, 1)]),
            ((0, -1), [(-1, -1), (1, -1)]),
            ((-1, 0), [(-1, 1), (-1, -1)]),
            ((1, 0), [(1, 1), (1, -1)]),
        ];
        for ((sf, sr), diagonals) in ways {
            let (mf, mr) = (cf + sf, cr + sr);
            if !inside(mf, mr) {
                continue;
            }
            let middle = loc_of(mf as u8, mr as u8);
            if middle == from {
                continue;
            }
            for (df, dr) in diagonals {
                let (lf, lr) = (mf + df, mr + dr);
                if !inside(lf, lr) {
                    continue;
                }
                let landing = loc_of(lf as u8, lr as u8);
                if landing != from && landing != middle {
                    out.insert(landing);
                }
            }
        }
    }
    out
}

type P = (Color, Role);

#[derive(Clone, Debug)]
struct Oracle {
    at: Vec<(Loc, Vec<P>)>,
    turn: Color,
    rights: [bool; 2],
}

#[derive(Clone, Debug)]
enum Mv {
    Go { role: Role, from: Loc, to: Loc, victim: Option<Role>, promo: Option<Role> },
    Sac { from: Loc, to: Loc, victim: Role },
    Castle,
}

fn text(m: &Mv) -> String {
    let letter = |r: Role| r.upper();
    let promo = |p: Option<Role>| p.map(|r| format!("={}", r.upper())).unwrap_or_default();
    match m {
        Mv::Go { role, from, to, victim, promo: p } => {
            let v = victim.map(|v| format!("x({})", v.upper())).unwrap_or_else(|| "-".into());
            format!("{}{}{}{}{}", letter(*role), name(*from), v, name(*to), promo(*p))
        }
        Mv::Sac { from, to, victim } => format!("sac {} {} {}", name(*from), name(*to), victim.upper()),
        Mv::Castle => "O-O".into(),
    }
}

fn engine_text(pos: &Position, mv: &Move) -> String {
    let l = |sq: Square| {
        let s = pos.location(sq);
        loc_of(s.file(), s.rank())
    };
    let promo = |p: Option<Role>| p.map(|r| format!("={}", r.upper())).unwrap_or_default();
    match mv.first() {
        Action::Normal { role, from, to, capture, promotion } => {
            let v = capture.map(|v| format!("x({})", v.upper())).unwrap_or_else(|| "-".into());
            format!("{}{}{}{}{}", role.upper(), name(l(from)), v, name(l(to)), promo(promotion))
        }
        Action::Sacrifice { from, to, victim } => {
            format!("sac {} {} {}", name(l(from)), name(l(to)), victim.upper())
        }
        Action::Castle { .. } => "O-O".into(),
        other => panic!("not a Quad-Square action: {other:?}"),
    }
}

impl Oracle {
    fn from(pos: &Position) -> Oracle {
        let mut at: Vec<(Loc, Vec<P>)> = Vec::new();
        for rank in 0..8 {
            for file in 0..7 {
                let l = loc_of(file, rank);
                if at.iter().any(|(x, _)| *x == l) {
                    continue;
                }
                let sq = Square::from_coords(file, rank);
                let pieces: Vec<P> = match l {
                    Loc::Quad(_) => {
                        quad::occupants(pos, sq).into_iter().map(|(_, p)| (p.color, p.role)).collect()
                    }
                    Loc::Sq(..) => pos.piece_at(sq).map(|p| vec![(p.color, p.role)]).unwrap_or_default(),
                };
                at.push((l, pieces));
            }
        }
        let rights =
            [Color::White, Color::Black].map(|c| (pos.castling_rooks() & quad::castling_rook_of(c)).any());
        Oracle { at, turn: pos.turn(), rights }
    }

    fn pieces(&self, l: Loc) -> &Vec<P> {
        &self.at.iter().find(|(x, _)| *x == l).expect("every location is listed").1
    }

    fn pieces_mut(&mut self, l: Loc) -> &mut Vec<P> {
        &mut self.at.iter_mut().find(|(x, _)| *x == l).expect("every location is listed").1
    }

    fn reach(&self, from: Loc, deltas: &[(i8, i8)], slide: bool) -> BTreeSet<Loc> {
        let mut out = BTreeSet::new();
        for (cf, cr) in cells(from) {
            for &(df, dr) in deltas {
                let (mut f, mut r) = (cf as i8, cr as i8);
                let mut last: Option<Loc> = None;
                loop {
                    f += df;
                    r += dr;
                    if !(0..7).contains(&f) || !(0..8).contains(&r) {
                        break;
                    }
                    let l = loc_of(f as u8, r as u8);
                    if l == from || Some(l) == last {
                        continue;
                    }
                    last = Some(l);
                    out.insert(l);
                    if !slide {
                        break;
                    }
                    let blocked = match l {
                        Loc::Quad(i) => QUADS[i].3 || !self.pieces(l).is_empty(),
                        Loc::Sq(..) => !self.pieces(l).is_empty(),
                    };
                    if blocked {
                        break;
                    }
                }
            }
        }
        out
    }

    fn pseudo(&self, side: Color, castling: bool) -> Vec<Mv> {
        let mut out = Vec::new();
        for (from, here) in &self.at {
            let from = *from;
            let mut roles: Vec<Role> = here.iter().filter(|p| p.0 == side).map(|p| p.1).collect();
            roles.dedup();
            let on_quad = matches!(from, Loc::Quad(_));
            let enemy_here: Vec<Role> = here.iter().filter(|p| p.0 != side).map(|p| p.1).collect();
            for role in roles {
                if role == Role::Bishop && on_quad {
                    for &v in &enemy_here {
                        out.push(Mv::Sac { from, to: from, victim: v });
                    }
                }
                if on_quad && enemy_here.contains(&Role::Rook) {
                    continue;
                }
                const ORTH: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
                const DIAG: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
                let all: Vec<(i8, i8)> = ORTH.iter().chain(DIAG.iter()).copied().collect();
                let fw = if side == Color::White { 1 } else { -1 };
                let targets: Vec<(Loc, u8)> = match role {
                    // 0: any arrival, 1: pawn step, 2: pawn capture
                    Role::Rook => self.reach(from, &ORTH, true).into_iter().map(|l| (l, 0)).collect(),
                    Role::Bishop => self.reach(from, &DIAG, true).into_iter().map(|l| (l, 0)).collect(),
                    Role::Queen => self.reach(from, &all, true).into_iter().map(|l| (l, 0)).collect(),
                    Role::Knight => knight_landings(from).into_iter().map(|l| (l, 0)).collect(),
                    Role::King => self.reach(from, &all, false).into_iter().map(|l| (l, 0)).collect(),
                    Role::Pawn => {
                        let mut t: Vec<(Loc, u8)> =
                            self.reach(from, &[(0, fw)], false).into_iter().map(|l| (l, 1)).collect();
                        t.extend(self.reach(from, &[(-1, fw), (1, fw)], false).into_iter().map(|l| (l, 2)));
                        t
                    }
                };
                for (to, kind) in targets {
                    let there = self.pieces(to);
                    let enemies: Vec<Role> = there.iter().filter(|p| p.0 != side).map(|p| p.1).collect();
                    let mut arrivals: Vec<Option<Role>> = Vec::new();
                    match to {
                        Loc::Quad(_) => {
                            if there.len() < 2 && kind != 2 {
                                arrivals.push(None);
                            }
                            if there.len() == 2 && kind != 1 {
                                let mut v = enemies.clone();
                                v.dedup();
                                arrivals.extend(v.into_iter().map(Some));
                            }
                            if role == Role::Bishop && there.len() == 1 && enemies.len() == 1 {
                                out.push(Mv::Sac { from, to, victim: enemies[0] });
                            }
                        }
                        Loc::Sq(..) => match (there.first(), kind) {
                            (None, 0 | 1) => arrivals.push(None),
                            (Some(p), 0 | 2) if p.0 != side => arrivals.push(Some(p.1)),
                            _ => {}
                        },
                    }
                    for victim in arrivals {
                        let promos: Vec<Option<Role>> = if role != Role::Pawn {
                            vec![None]
                        } else {
                            let last = if side == Color::White { 7 } else { 0 };
                            match to {
                                Loc::Quad(i)
                                    if !QUADS[i].3 && (QUADS[i].2 == last || QUADS[i].2 + 1 == last) =>
                                {
                                    vec![
                                        None,
                                        Some(Role::Queen),
                                        Some(Role::Rook),
                                        Some(Role::Bishop),
                                        Some(Role::Knight),
                                    ]
                                }
                                Loc::Sq(_, r) if r == last => {
                                    vec![
                                        Some(Role::Queen),
                                        Some(Role::Rook),
                                        Some(Role::Bishop),
                                        Some(Role::Knight),
                                    ]
                                }
                                _ => vec![None],
                            }
                        };
                        for promo in promos {
                            out.push(Mv::Go { role, from, to, victim, promo });
                        }
                    }
                }
            }
        }
        if castling && self.rights[side.index()] {
            let (home, rook_quad, between) = if side == Color::White {
                (Loc::Sq(3, 0), Loc::Quad(0), Loc::Sq(2, 0))
            } else {
                (Loc::Sq(3, 7), Loc::Quad(2), Loc::Sq(2, 7))
            };
            let king_home = self.pieces(home).contains(&(side, Role::King));
            let lone_rook = self.pieces(rook_quad).as_slice() == [(side, Role::Rook)];
            if king_home && lone_rook && self.pieces(between).is_empty() && !self.king_attacked(side) {
                let mut probe = self.clone();
                probe.pieces_mut(home).clear();
                probe.pieces_mut(between).push((side, Role::King));
                if !probe.king_attacked(side) {
                    out.push(Mv::Castle);
                }
            }
        }
        out
    }

    fn king_attacked(&self, side: Color) -> bool {
        self.pseudo(side.other(), false).iter().any(|m| match m {
            Mv::Go { victim: Some(Role::King), .. } | Mv::Sac { victim: Role::King, .. } => {
                // Only a king of `side` can be the victim of `side.other()`.
                true
            }
            _ => false,
        })
    }

    fn apply(&mut self, m: &Mv) {
        let us = self.turn;
        let them = us.other();
        let remove = |o: &mut Oracle, l: Loc, p: P| {
            let v = o.pieces_mut(l);
            let i = v.iter().position(|x| *x == p).expect("the piece is there");
            v.remove(i);
        };
        match *m {
            Mv::Go { role, from, to, victim, promo } => {
                remove(self, from, (us, role));
                if let Some(v) = victim {
                    remove(self, to, (them, v));
                    if v == Role::Rook && to == Loc::Quad(if them == Color::White { 0 } else { 2 }) {
                        self.rights[them.index()] = false;
                    }
                }
                self.pieces_mut(to).push((us, promo.unwrap_or(role)));
                if role == Role::King
                    || (role == Role::Rook && from == Loc::Quad(if us == Color::White { 0 } else { 2 }))
                {
                    self.rights[us.index()] = false;
                }
            }
            Mv::Sac { from, to, victim } => {
                remove(self, from, (us, Role::Bishop));
                remove(self, to, (them, victim));
                if victim == Role::Rook && to == Loc::Quad(if them == Color::White { 0 } else { 2 }) {
                    self.rights[them.index()] = false;
                }
            }
            Mv::Castle => {
                let (home, rq) = if us == Color::White {
                    (Loc::Sq(3, 0), Loc::Quad(0))
                } else {
                    (Loc::Sq(3, 7), Loc::Quad(2))
                };
                self.pieces_mut(home).clear();
                self.pieces_mut(rq).clear();
                self.pieces_mut(home).push((us, Role::Rook));
                self.pieces_mut(rq).push((us, Role::King));
                self.rights[us.index()] = false;
            }
        }
        self.turn = them;
    }

    fn legal(&self) -> Vec<(String, Oracle)> {
        let us = self.turn;
        self.pseudo(us, true)
            .into_iter()
            .filter_map(|m| {
                let mut next = self.clone();
                next.apply(&m);
                (!next.king_attacked(us)).then(|| (text(&m), next))
            })
            .collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal().iter().map(|(_, n)| n.perft(depth - 1)).sum()
    }
}

/// The oracle's knight against the consequences the ruling itself lists (Q8), by hand.
#[test]
fn the_oracle_knight_gives_the_rulings_own_examples() {
    let at = |name: &str| -> Loc {
        match QUADS.iter().position(|q| q.0 == name) {
            Some(i) => Loc::Quad(i),
            None => {
                let b = name.as_bytes();
                loc_of(b[0] - b'a', b[1] - b'1')
            }
        }
    };
    let names = |l: &BTreeSet<Loc>| -> BTreeSet<String> { l.iter().map(|&x| name(x)).collect() };
    let set = |list: &[&str]| -> BTreeSet<String> { list.iter().map(|s| s.to_string()).collect() };
    assert_eq!(names(&knight_landings(at("S2"))), set(&["d1", "d2", "d3", "M2", "g4"]));
    assert_eq!(names(&knight_landings(at("e3"))), set(&["c2", "d1", "d5", "g4", "M1", "S2"]));
    let d6 = knight_landings(at("d6"));
    assert!(d6.contains(&at("M1")) && d6.contains(&at("M2")), "{:?}", names(&d6));
    assert!(!knight_landings(at("c3")).contains(&at("M1")));
    // Not symmetric: e3 reaches S2 through f3, S2 does not reach e3.
    assert!(!knight_landings(at("S2")).contains(&at("e3")));
}

#[test]
fn random_games_agree_with_the_oracle() {
    let mut rng = XorShift(0x51DE_CAFE);
    let mut checked = 0;
    for game_no in 0..60 {
        let mut game = Game::from_variant(Variant::QUAD_SQUARE);
        for ply in 0..80 {
            let pos = game.position().clone();
            let ours: Vec<Move> = pos.legal_moves();
            let ours_text: BTreeSet<String> = ours.iter().map(|m| engine_text(&pos, m)).collect();
            assert_eq!(ours_text.len(), ours.len(), "a move listed twice at {}", pos.fen());
            let theirs: BTreeSet<String> = Oracle::from(&pos).legal().into_iter().map(|(t, _)| t).collect();
            if ours_text != theirs {
                let extra: Vec<_> = ours_text.difference(&theirs).take(6).collect();
                let missing: Vec<_> = theirs.difference(&ours_text).take(6).collect();
                panic!(
                    "game {game_no} ply {ply} at {}:\n engine only: {extra:?}\n oracle only: {missing:?}",
                    pos.fen()
                );
            }
            checked += 1;
            if ours.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(ours[rng.next_index() % ours.len()]).unwrap();
        }
    }
    assert!(checked > 2000, "only {checked} positions");
}

#[test]
fn perft_agrees_with_the_oracle() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft/quad-square.perft");
    let text = std::fs::read_to_string(path).unwrap();
    let mut fen = String::new();
    let mut checked = 0;
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("epd ") {
            fen = f.to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (d, n) = rest.split_once(' ').unwrap();
            let (d, n): (u32, u64) = (d.parse().unwrap(), n.parse().unwrap());
            if n > oracle_node_limit(40_000) {
                continue;
            }
            let oracle = Oracle::from(&Position::from_fen(Variant::QUAD_SQUARE, &fen).unwrap());
            assert_eq!(oracle.perft(d), n, "{fen} depth {d}");
            checked += 1;
        }
    }
    assert!(checked >= 6);
}

/// The largest perft line the slow oracle counts: `default`, or `TESSERA_ORACLE_LIMIT` to check
/// recounted files further by hand.
fn oracle_node_limit(default: u64) -> u64 {
    std::env::var("TESSERA_ORACLE_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Prints the oracle's own count for every line of `data/perft/quad-square.perft` within
/// `TESSERA_ORACLE_LIMIT` nodes by the file's old count (default 40 000): how the file's numbers are recounted when a ruling
/// changes. `cargo test -p tessera-tests --release --test quad_square_oracle -- --ignored --nocapture`.
#[test]
#[ignore]
fn recount_the_perft_file_with_the_oracle() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft/quad-square.perft");
    let text = std::fs::read_to_string(path).unwrap();
    let mut fen = String::new();
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("epd ") {
            fen = f.to_string();
            println!("{line}");
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (d, n) = rest.split_once(' ').unwrap();
            let (d, n): (u32, u64) = (d.parse().unwrap(), n.parse().unwrap());
            if n > oracle_node_limit(40_000) {
                println!("perft {d} {n} (over the limit: not recounted)");
                continue;
            }
            let oracle = Oracle::from(&Position::from_fen(Variant::QUAD_SQUARE, &fen).unwrap());
            println!("perft {d} {}", oracle.perft(d));
        }
    }
}
