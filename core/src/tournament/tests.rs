//! Standings, tie-breaks and pairings checked against hand-worked tournaments.

use super::*;
use crate::model::TournamentStatus;

fn row(format: Format, rounds: u32, current: u32) -> TournamentRow {
    TournamentRow {
        id: 1,
        platform: "test".into(),
        channel: "c".into(),
        name: "Test".into(),
        organiser: 1,
        variant: "chess".into(),
        format,
        rounds,
        days_per_move: None,
        rated: false,
        starts_at: None,
        max_players: None,
        bye_halves: 2,
        status: TournamentStatus::Running,
        current_round: current,
        created_at: 0,
        vacation_days: None,
        variant_key: None,
    }
}

fn entries(n: i64) -> Vec<Entry> {
    (1..=n)
        .map(|p| Entry {
            player: p,
            name: format!("P{p}"),
            seed_rating: 2000 - p * 10,
            joined_at: p,
            first_round: 1,
            withdrawn_after: None,
        })
        .collect()
}

fn game(round: u32, board: u32, white: PlayerId, black: PlayerId, game: GameId) -> PairingRow {
    PairingRow {
        round,
        board,
        leg: 0,
        white,
        black: Some(black),
        kind: PairingKind::Game,
        game: Some(game),
        result: None,
        result_reason: None,
    }
}

#[test]
fn round_robin_standings_and_tie_breaks() {
    // Four players, three rounds by the Berger table; 1 wins all, 2-3-4 share the rest.
    let s0 = Snapshot::new(row(Format::RoundRobin, 3, 0), entries(4), &[], &HashMap::new());
    let r1 = s0.next_round().unwrap();
    let pairs: Vec<(PlayerId, Option<PlayerId>)> = r1.iter().map(|p| (p.white, p.black)).collect();
    assert_eq!(pairs, [(1, Some(4)), (2, Some(3))], "Berger round 1 for four");
    let rows = vec![
        game(1, 1, 1, 4, 11),
        game(1, 2, 2, 3, 12),
        game(2, 1, 4, 3, 21),
        game(2, 2, 1, 2, 22),
        game(3, 1, 2, 4, 31),
        game(3, 2, 3, 1, 32),
    ];
    let results: HashMap<GameId, String> =
        [(11, "1-0"), (12, "1-0"), (21, "1/2-1/2"), (22, "1-0"), (31, "0-1"), (32, "0-1")]
            .into_iter()
            .map(|(g, r)| (g, r.to_string()))
            .collect();
    let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &results);
    assert!(s.finished());
    let st = s.standings();
    let order: Vec<(PlayerId, u32)> = st.lines.iter().map(|l| (l.player, l.halves)).collect();
    // 1: 3 points; 2: beat 3, lost to 1 and 4 = 1; 3: lost to 2, drew 4, lost to 1 = ½;
    // 4: lost to 1, drew 3, beat 2 = 1½.
    assert_eq!(order, [(1, 6), (4, 3), (2, 2), (3, 1)]);
    assert_eq!(st.tie_breaks[0], TieBreak::SonnebornBerger);
    let sb = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap().tie_breaks[0];
    // In quarters: SB(1) = 1 + 1½ + ½ = 3 points = 12; SB(4) = beat 2 (1) + half of 3's ½
    // = 1¼ = 5.
    assert_eq!(sb(1), 12);
    assert_eq!(sb(4), 5);
    assert_eq!(TieBreak::SonnebornBerger.value_text(5), "1.25");
    assert_eq!(TieBreak::SonnebornBerger.value_text(6), "1½");
    assert!(st.text(10).contains("P1"));
}

#[test]
fn swiss_rounds_pair_and_export_as_trf() {
    let s0 = Snapshot::new(row(Format::Swiss, 3, 0), entries(5), &[], &HashMap::new());
    let r1 = s0.next_round().unwrap();
    // Five players: top half against bottom half, the lowest gets the bye.
    let pairs: Vec<(PlayerId, Option<PlayerId>, PairingKind)> =
        r1.iter().map(|p| (p.white, p.black, p.kind)).collect();
    assert_eq!(
        pairs,
        [(1, Some(3), PairingKind::Game), (4, Some(2), PairingKind::Game), (5, None, PairingKind::Bye)]
    );
    let trf = s0.to_trf();
    assert!(trf.contains("XXR    3") || trf.contains("XXR 3"), "{trf}");
}

#[test]
fn knockout_brackets_replay_draws() {
    let s0 = Snapshot::new(row(Format::Knockout, 3, 0), entries(6), &[], &HashMap::new());
    let r1 = s0.next_round().unwrap();
    let byes: Vec<PlayerId> = r1.iter().filter(|p| p.kind == PairingKind::Bye).map(|p| p.white).collect();
    assert_eq!(byes, [1, 2], "the top seeds get the byes");
    // The better seed has White in a match's first game (seeds 4-5 and 3-6 here).
    let games: Vec<(PlayerId, Option<PlayerId>)> =
        r1.iter().filter(|p| p.kind == PairingKind::Game).map(|p| (p.white, p.black)).collect();
    assert_eq!(games, [(4, Some(5)), (3, Some(6))]);
    assert_eq!(Snapshot::knockout_rounds(6), 3);
    let mut rows: Vec<PairingRow> = r1
        .iter()
        .enumerate()
        .map(|(i, p)| PairingRow {
            round: 1,
            board: p.board,
            leg: 0,
            white: p.white,
            black: p.black,
            kind: p.kind,
            game: p.black.map(|_| 100 + i as i64),
            result: None,
            result_reason: None,
        })
        .collect();
    let mut results: HashMap<GameId, String> =
        rows.iter().filter_map(|r| r.game).map(|g| (g, "1/2-1/2".to_string())).collect();
    let s = Snapshot::new(row(Format::Knockout, 3, 1), entries(6), &rows, &results);
    assert!(!s.round_complete());
    let replays = s.replays();
    assert_eq!(replays.len(), 2);
    for r in &replays {
        let first = rows.iter().find(|x| x.board == r.board).unwrap();
        assert_eq!(
            (r.white, r.black, r.leg),
            (first.black.unwrap(), Some(first.white), 1),
            "colours reversed"
        );
    }
    for (i, r) in replays.iter().enumerate() {
        rows.push(PairingRow {
            round: 1,
            board: r.board,
            leg: 1,
            white: r.white,
            black: r.black,
            kind: PairingKind::Game,
            game: Some(200 + i as i64),
            result: None,
            result_reason: None,
        });
        results.insert(200 + i as i64, "1-0".into());
    }
    let s = Snapshot::new(row(Format::Knockout, 3, 1), entries(6), &rows, &results);
    assert!(s.round_complete() && s.replays().is_empty());
    let r2 = s.next_round().unwrap();
    assert_eq!(r2.len(), 2);
    assert!(r2.iter().all(|p| p.kind == PairingKind::Game));
}

/// A pairing row with a result set on it (byes, forfeits, a game the organiser decided).
fn stated(
    round: u32,
    board: u32,
    white: PlayerId,
    black: Option<PlayerId>,
    kind: PairingKind,
    result: &str,
) -> PairingRow {
    PairingRow {
        round,
        board,
        leg: 0,
        white,
        black,
        kind,
        game: None,
        result: (!result.is_empty()).then(|| result.to_string()),
        result_reason: None,
    }
}

/// A Swiss of six over four rounds, by hand: player 6 enters in round 2 (a half point for
/// round 1), player 5 has the pairing-allocated bye in round 1, wins round 2 by forfeit and
/// withdraws after it; players 3 and 4 have byes in rounds 3 and 4.
///
/// | player | r1       | r2        | r3      | r4      | points |
/// |--------|----------|-----------|---------|---------|--------|
/// | 1      | +2 (W)   | +3 (W)    | =6 (W)  | =2 (B)  | 3      |
/// | 2      | -1 (B)   | -5 forfeit| +4 (W)  | =1 (W)  | 1½     |
/// | 3      | =4 (W)   | -1 (B)    | bye 1   | -6 (W)  | 1½     |
/// | 4      | =3 (B)   | -6 (W)    | -2 (B)  | bye 1   | 1½     |
/// | 5      | bye 1    | +2 forfeit| absent  | absent  | 2      |
/// | 6      | late ½   | +4 (B)    | =1 (B)  | +3 (B)  | 3      |
fn swiss_with_byes_forfeits_and_a_withdrawal() -> Snapshot {
    let mut e = entries(6);
    e[5].first_round = 2;
    e[4].withdrawn_after = Some(2);
    let g = |round, board, white, black, result: &str| {
        stated(round, board, white, Some(black), PairingKind::Game, result)
    };
    let bye = |round, board, player| stated(round, board, player, None, PairingKind::Bye, "");
    let rows = vec![
        g(1, 1, 1, 2, "1-0"),
        g(1, 2, 3, 4, "1/2-1/2"),
        bye(1, 3, 5),
        g(2, 1, 1, 3, "1-0"),
        g(2, 2, 2, 5, "-+"),
        g(2, 3, 4, 6, "0-1"),
        g(3, 1, 1, 6, "1/2-1/2"),
        g(3, 2, 2, 4, "1-0"),
        bye(3, 3, 3),
        g(4, 1, 2, 1, "1/2-1/2"),
        g(4, 2, 3, 6, "0-1"),
        bye(4, 3, 4),
    ];
    Snapshot::new(row(Format::Swiss, 4, 4), e, &rows, &HashMap::new())
}

#[test]
fn unplayed_rounds_count_as_c07_article_16_says() {
    let s = swiss_with_byes_forfeits_and_a_withdrawal();
    let scores: Vec<u32> = (1..=6).map(|p| s.score(p, 4)).collect();
    assert_eq!(scores, [6, 3, 3, 3, 4, 6], "halves");
    // 16.3: for the opponents, every round counts as awarded (the forfeit loss of 2, the
    // byes of 3 and 4, the late half point of 6), except the rounds after 5 withdrew, which
    // count as draws: 1 + 1 + ½ + ½.
    let adjusted: Vec<u32> = (1..=6).map(|p| s.adjusted_score(p)).collect();
    assert_eq!(adjusted, [6, 3, 3, 3, 6, 6], "halves");
    let st = s.standings();
    let line = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap();
    // Quarters: [BH-C1, BH, SB, DE].
    // 1: opponents 2, 3, 6, 2 = 1½ + 1½ + 3 + 1½ = 7½; cut 1½; SB 1½ + 1½ + 3·½ + 1½·½.
    assert_eq!(line(1).tie_breaks[..3], [24, 30, 21]);
    // 6: round 1 against a dummy with 6's own 3 points (16.4); then 4 (1½), 1 (3), 3 (1½):
    // BH 9. The dummy's round is voluntary and is cut first (16.5), though 1½ is lower:
    // Cut-1 6. SB 3·½ + 1½ + 3·½ + 1½ = 6.
    assert_eq!(line(6).tie_breaks[..3], [24, 36, 24]);
    // 5: the bye, the forfeit win against 2 and two absences, each against a dummy with 5's
    // own 2 points: BH 8; Cut-1 takes a voluntary round's 2; SB 1·2 + 1·2 = 4.
    assert_eq!(line(5).tie_breaks[..3], [24, 32, 16]);
    // 2: 1 (3), the forfeit loss against 5 (a dummy with 2's own 1½), 4 (1½), 1 (3): BH 9,
    // Cut-1 takes the forfeit loss's 1½; SB 1½·1 + 3·½.
    assert_eq!(line(2).tie_breaks[..3], [30, 36, 12]);
    // 3: 4 (1½), 1 (3), the bye (dummy 1½), 6 (3): BH 9; the bye is no voluntary round, so
    // Cut-1 takes a 1½ as usual; SB 1½·½ + 1½.
    assert_eq!(line(3).tie_breaks[..3], [30, 36, 9]);
    // 4: 3 (1½), 6 (3), 2 (1½), the bye (dummy 1½): BH 7½, Cut-1 6.
    assert_eq!(line(4).tie_breaks[..3], [24, 30, 9]);
    // 6 and 1 tie on 3 points and Cut-1; Buchholz puts 6 first. 2 and 3 tie on 1½, Cut-1
    // and Buchholz; Sonneborn-Berger puts 2 first.
    let order: Vec<PlayerId> = st.lines.iter().map(|l| l.player).collect();
    assert_eq!(order, [6, 1, 5, 2, 3, 4]);
    let ranks: Vec<u32> = st.lines.iter().map(|l| l.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn wins_count_rounds_that_brought_a_win_s_points() {
    // C.07 7.1: 5's bye worth a win and forfeit win are two wins; with a half-point bye the
    // bye is none.
    let s = swiss_with_byes_forfeits_and_a_withdrawal();
    let score: HashMap<PlayerId, u32> = (1..=6).map(|p| (p, s.score(p, 4))).collect();
    let adjusted: HashMap<PlayerId, u32> = (1..=6).map(|p| (p, s.adjusted_score(p))).collect();
    assert_eq!(s.tie_break(TieBreak::Wins, 5, &score, &adjusted), 2);
    assert_eq!(s.tie_break(TieBreak::Wins, 6, &score, &adjusted), 2);
    let mut half = s.clone();
    half.row.bye_halves = 1;
    assert_eq!(half.tie_break(TieBreak::Wins, 5, &score, &adjusted), 1);
}

/// Rows of a four-player event over three rounds in which every pair meets once, with the
/// results given for White.
fn all_meet(results: [&str; 6]) -> Vec<PairingRow> {
    let pairs = [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)];
    pairs
        .iter()
        .zip(results)
        .enumerate()
        .map(|(i, (&(w, b), r))| stated(i as u32 / 2 + 1, i as u32 % 2 + 1, w, Some(b), PairingKind::Game, r))
        .collect()
}

#[test]
fn direct_encounter_is_applied_again_to_those_still_level() {
    // 1 beat 2 and 4, lost to 3; 2 beat 3 and 4; 4 beat 3. Among all four: 1 and 2 have 2
    // points, 3 and 4 one each; applied again (C.07 6.2), 1 beat 2 and 4 beat 3.
    let rows = all_meet(["1-0", "0-1", "0-1", "1-0", "1-0", "1-0"]);
    let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
    assert_eq!(s.direct_encounter(vec![1, 2, 3, 4]), [vec![1], vec![2], vec![4], vec![3]]);
    // Three who beat each other in a circle stay level.
    let rows = all_meet(["1-0", "1-0", "0-1", "1-0", "1-0", "1-0"]);
    let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
    assert_eq!(s.direct_encounter(vec![1, 2, 3]), [vec![1, 2, 3]]);
}

#[test]
fn direct_encounter_counts_forfeits_only_with_fixed_pairings() {
    // 1 won against 2 by forfeit, the rest drawn: a round robin counts the forfeit (C.07
    // 15.2), a Swiss event does not (6.1.1), and then 1 and 2 never met.
    let rows = all_meet(["+-", "1/2-1/2", "1/2-1/2", "1/2-1/2", "1/2-1/2", "1/2-1/2"]);
    let rr = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
    assert_eq!(rr.direct_encounter(vec![1, 2]), [vec![1], vec![2]]);
    let swiss = Snapshot::new(row(Format::Swiss, 3, 3), entries(4), &rows, &HashMap::new());
    assert_eq!(swiss.direct_encounter(vec![1, 2]), [vec![1, 2]]);
}

#[test]
fn direct_encounter_in_a_swiss_ranks_who_stays_on_top_whatever_the_missing_games() {
    // 1 beat 3 and 4; 3 and 4 never met: 1 is first whatever 3-4 would have given (C.07
    // 6.3); applied again to 3 and 4, who never met, it leaves them level.
    let rows = vec![
        stated(1, 1, 1, Some(3), PairingKind::Game, "1-0"),
        stated(1, 2, 2, Some(5), PairingKind::Game, "1-0"),
        stated(2, 1, 4, Some(1), PairingKind::Game, "0-1"),
        stated(2, 2, 5, Some(3), PairingKind::Game, "0-1"),
    ];
    let s = Snapshot::new(row(Format::Swiss, 2, 2), entries(5), &rows, &HashMap::new());
    assert_eq!(s.direct_encounter(vec![1, 3, 4]), [vec![1], vec![3, 4]]);
    // The same games in a knockout, where 6.3 does not apply: no order.
    let mut k = s.clone();
    k.row.format = Format::Knockout;
    assert_eq!(k.direct_encounter(vec![1, 3, 4]), [vec![1, 3, 4]]);
}

#[test]
fn round_robin_forfeits_count_as_games_and_koya_sees_the_free_round() {
    // Five players, five rounds by the Berger table (each has one free round). 1 wins every
    // game, 2 every game but against 1 (the one against 5 by forfeit), 3 beats 4 and 5,
    // who draw: 4, 3, 2, ½ and ½ points.
    let mut rows = Vec::new();
    let mut s = Snapshot::new(row(Format::RoundRobin, 5, 0), entries(5), &[], &HashMap::new());
    for round in 1..=5 {
        for p in s.next_round().unwrap() {
            let result = match (p.white, p.black) {
                (_, None) => "",
                (1, _) => "1-0",
                (_, Some(1)) => "0-1",
                (2, Some(5)) => "+-",
                (5, Some(2)) => "-+",
                (2, _) => "1-0",
                (_, Some(2)) => "0-1",
                (3, _) => "1-0",
                (_, Some(3)) => "0-1",
                _ => "1/2-1/2",
            };
            rows.push(stated(round, p.board, p.white, p.black, p.kind, result));
        }
        s = Snapshot::new(row(Format::RoundRobin, 5, round), entries(5), &rows, &HashMap::new());
    }
    assert!(s.finished());
    let st = s.standings();
    let line = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap();
    let points: Vec<u32> = (1..=5).map(|p| line(p).halves).collect();
    assert_eq!(points, [8, 6, 4, 1, 1]);
    // [SB, DE, WIN, KS]. SB of 2: 3 (2 points), 4 and 5 (½ each; 5's game a forfeit, which
    // counts as a game, C.07 15.2) beaten: 3 points = 12 quarters; the free round adds
    // nothing.
    assert_eq!(line(2).tie_breaks[0], 12);
    // Koya: against those with at least half the 4 points a player could score (the free
    // round scores nothing): 1, 2 and 3. 1 scored 2 against 2 and 3; 2 scored 1, against 3.
    assert_eq!(line(1).tie_breaks[3], 8);
    assert_eq!(line(2).tie_breaks[3], 4);
    // WIN counts the forfeit win: 3.
    assert_eq!(line(2).tie_breaks[2], 3);
}

#[test]
fn each_knockout_game_keeps_its_own_result() {
    // Seeds 1-4, 2-3; 1-4 drawn and replayed with colours reversed; the replay is on.
    let mut rows = vec![
        stated(1, 1, 1, Some(4), PairingKind::Game, "1/2-1/2"),
        stated(1, 2, 2, Some(3), PairingKind::Game, "1-0"),
    ];
    let mut replay = stated(1, 1, 4, Some(1), PairingKind::Game, "");
    replay.leg = 1;
    rows.push(replay.clone());
    let s = Snapshot::new(row(Format::Knockout, 2, 1), entries(4), &rows, &HashMap::new());
    assert_eq!(s.pairing_outcome(&rows[0]), Some(Outcome::Draw));
    assert_eq!(s.pairing_outcome(&replay), Some(Outcome::Pending));
    assert_eq!(s.pairing_outcome(&rows[1]), Some(Outcome::Win));
}

#[test]
fn points_are_written_with_halves() {
    assert_eq!(points_text(0), "0");
    assert_eq!(points_text(1), "½");
    assert_eq!(points_text(7), "3½");
    assert_eq!(points_text(8), "4");
}
