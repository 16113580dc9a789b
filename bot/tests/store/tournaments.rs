//! The conformance suite's tournament cases: entries, rounds, results, notices, withdrawals.

use super::*;

pub(crate) fn new_tournament<'a>(channel: &'a str, organiser: PlayerId, format: Format) -> NewTournament<'a> {
    NewTournament {
        platform: "l",
        channel,
        name: "Autumn Open",
        organiser,
        variant: "chess",
        format,
        rounds: 3,
        days_per_move: Some(2),
        rated: true,
        starts_at: Some(T0 + 3600),
        max_players: None,
        bye_halves: 2,
        now: T0,
        vacation_days: None,
        definition: None,
    }
}

pub(crate) const TEMPLATE: GameTemplate<'static> = GameTemplate {
    platform: "l",
    channel: "club",
    variant: "chess",
    start_fen: "start",
    days_per_move: Some(2),
    rated: true,
    now: T0,
    definition: None,
};

pub(crate) fn game_pairing(board: u32, white: PlayerId, black: PlayerId) -> NewPairing {
    NewPairing { board, leg: 0, white, black: Some(black), kind: PairingKind::Game, result: None }
}

/// A tournament with `n` entrants (organised by the first), and the entrants.
pub(crate) fn tournament_with(store: &dyn Store, format: Format, n: usize) -> (TournamentId, Vec<PlayerId>) {
    let players: Vec<PlayerId> =
        (0..n).map(|i| store.player("l", &format!("p{i}"), &format!("P{i}")).unwrap().id).collect();
    let t = store.create_tournament(&new_tournament("club", players[0], format)).unwrap();
    for (i, p) in players.iter().enumerate() {
        let e = store.add_entrant(t, *p, 1, 1500, &[TournamentStatus::Open], T0 + i as i64).unwrap();
        assert_eq!(e, Entry::Joined);
    }
    (t, players)
}

/// A tournament of four with round 1 paired on two boards, p0-p1 and p2-p3; the two games.
pub(crate) fn first_round_of_four(
    store: &dyn Store,
    format: Format,
) -> (TournamentId, Vec<PlayerId>, [GameId; 2]) {
    let (t, p) = tournament_with(store, format, 4);
    store
        .pair_round(t, 1, &[], &[game_pairing(1, p[0], p[1]), game_pairing(2, p[2], p[3])], &TEMPLATE, &[])
        .unwrap();
    let games = [0, 1].map(|i| store.pairings(t).unwrap()[i].game.unwrap());
    (t, p, games)
}

pub(crate) fn tournaments_are_listed_and_change_status_only_from_the_given_ones(db: &dyn Db) {
    let store = db.open();
    let (a, _) = two_players(&*store);
    let t1 = store.create_tournament(&new_tournament("club", a, Format::Swiss)).unwrap();
    let t2 = store
        .create_tournament(&NewTournament {
            max_players: Some(8),
            starts_at: None,
            days_per_move: None,
            ..new_tournament("club", a, Format::Knockout)
        })
        .unwrap();
    let t3 = store.create_tournament(&new_tournament("hall", a, Format::DoubleRoundRobin)).unwrap();
    let row = store.tournament(t2).unwrap().unwrap();
    assert_eq!(
        (row.format, row.max_players, row.starts_at, row.days_per_move),
        (Format::Knockout, Some(8), None, None)
    );
    assert_eq!(
        (row.status, row.current_round, row.rounds, row.bye_halves, row.rated),
        (TournamentStatus::Open, 0, 3, 2, true)
    );
    assert_eq!((row.name.as_str(), row.organiser, row.created_at), ("Autumn Open", a, T0));
    assert_eq!(store.tournament(t3 + 10).unwrap(), None);
    let ids = |rows: Vec<tessera_core::model::TournamentRow>| rows.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.channel_tournaments("l", "club").unwrap()), [t1, t2]);
    assert!(
        store.set_tournament_status(t1, &[TournamentStatus::Open], TournamentStatus::Running, &[]).unwrap()
    );
    assert!(
        !store
            .set_tournament_status(t1, &[TournamentStatus::Open], TournamentStatus::Cancelled, &[])
            .unwrap()
    );
    assert!(
        store
            .set_tournament_status(
                t1,
                &[TournamentStatus::Running, TournamentStatus::Paused],
                TournamentStatus::Paused,
                &[]
            )
            .unwrap()
    );
    assert!(
        store.set_tournament_status(t2, &[TournamentStatus::Open], TournamentStatus::Cancelled, &[]).unwrap()
    );
    assert!(
        !store
            .set_tournament_status(t3 + 10, &[TournamentStatus::Open], TournamentStatus::Running, &[])
            .unwrap(),
        "no such"
    );
    assert_eq!(ids(store.live_tournaments().unwrap()), [t1, t3], "paused and open are live");
    store.set_tournament_rounds(t3, 6).unwrap();
    assert_eq!(store.tournament(t3).unwrap().unwrap().rounds, 6);
}

pub(crate) fn entries_respect_the_status_and_the_limit(db: &dyn Db) {
    let store = db.open();
    let ps: Vec<PlayerId> =
        (0..4).map(|i| store.player("l", &format!("p{i}"), &format!("P{i}")).unwrap().id).collect();
    let t = store
        .create_tournament(&NewTournament {
            max_players: Some(2),
            ..new_tournament("club", ps[0], Format::Swiss)
        })
        .unwrap();
    let open = [TournamentStatus::Open];
    assert_eq!(store.add_entrant(t, ps[1], 1, 1600, &open, T0 + 2).unwrap(), Entry::Joined);
    assert_eq!(store.add_entrant(t, ps[0], 1, 1700, &open, T0 + 1).unwrap(), Entry::Joined);
    assert_eq!(store.add_entrant(t, ps[0], 1, 1700, &open, T0 + 3).unwrap(), Entry::AlreadyIn);
    assert_eq!(store.add_entrant(t, ps[2], 1, 1500, &open, T0 + 4).unwrap(), Entry::Full);
    let entrants = store.entrants(t).unwrap();
    assert_eq!(
        entrants.iter().map(|e| (e.player, e.joined_at, e.seed_rating, e.name.as_str())).collect::<Vec<_>>(),
        [(ps[0], T0 + 1, 1700, "P0"), (ps[1], T0 + 2, 1600, "P1")],
        "by joining time"
    );
    assert!(store.remove_entrant(t, ps[1]).unwrap());
    assert!(!store.remove_entrant(t, ps[1]).unwrap(), "not in any more");
    assert_eq!(store.add_entrant(t, ps[2], 1, 1500, &open, T0 + 5).unwrap(), Entry::Joined);
    store.set_tournament_status(t, &open, TournamentStatus::Running, &[]).unwrap();
    assert_eq!(store.add_entrant(t, ps[3], 1, 1500, &open, T0 + 6).unwrap(), Entry::Closed);
    assert!(!store.remove_entrant(t, ps[2]).unwrap(), "started: no leaving this way");
    store.set_tournament_rounds(t, 5).unwrap();
    let late =
        store.add_entrant(t, ps[3], 3, 1400, &[TournamentStatus::Open, TournamentStatus::Running], T0 + 7);
    assert_eq!(late.unwrap(), Entry::Full, "the limit holds for late entries too");
}

pub(crate) fn a_round_is_paired_once_with_its_games_and_seeds(db: &dyn Db) {
    let store = db.open();
    let (t, p) = tournament_with(&*store, Format::Swiss, 5);
    let seeds: Vec<(PlayerId, i64)> =
        p.iter().enumerate().map(|(i, &id)| (id, 2000 - 10 * i as i64)).collect();
    let round1 = [
        game_pairing(1, p[0], p[3]),
        game_pairing(2, p[4], p[1]),
        NewPairing { board: 3, leg: 0, white: p[2], black: None, kind: PairingKind::Bye, result: None },
    ];
    assert!(!store.pair_round(t, 2, &seeds, &round1, &TEMPLATE, &[]).unwrap(), "round 1 first");
    assert!(store.pair_round(t, 1, &seeds, &round1, &TEMPLATE, &[]).unwrap());
    assert!(!store.pair_round(t, 1, &seeds, &round1, &TEMPLATE, &[]).unwrap(), "paired once");
    let row = store.tournament(t).unwrap().unwrap();
    assert_eq!((row.current_round, row.status), (1, TournamentStatus::Running));
    let entrants = store.entrants(t).unwrap();
    assert_eq!(entrants.iter().map(|e| e.seed_rating).collect::<Vec<_>>(), [2000, 1990, 1980, 1970, 1960]);
    let pairings = store.pairings(t).unwrap();
    assert_eq!(pairings.len(), 3);
    assert_eq!((pairings[2].kind, pairings[2].black, pairings[2].game), (PairingKind::Bye, None, None));
    let g = pairings[0].game.expect("a game for a game pairing");
    let game = store.game(g).unwrap().unwrap();
    assert_eq!(
        (game.white, game.black, game.rated, game.days_per_move, game.channel.as_str()),
        (p[0], p[3], true, Some(2), "club")
    );
    assert_eq!(store.tournament_of_game(g).unwrap(), Some((t, 1)));
    assert_eq!(store.tournament_of_game(g + 100).unwrap(), None);
    // The round's slowest game: its latest last move, of games still played only.
    assert_eq!(store.round_last_move(t, 1).unwrap(), Some(TEMPLATE.now));
    assert_eq!(store.round_last_move(t, 2).unwrap(), None, "nothing paired yet");
    let other = pairings[1].game.unwrap();
    store.append_move(other, 1, "e4", None, TEMPLATE.now + 500).unwrap();
    assert_eq!(store.round_last_move(t, 1).unwrap(), Some(TEMPLATE.now + 500));
    // Round 2, with a forfeit known without playing: no game for it.
    let round2 = [
        game_pairing(1, p[1], p[0]),
        NewPairing {
            board: 2,
            leg: 0,
            white: p[3],
            black: Some(p[2]),
            kind: PairingKind::Game,
            result: Some("+-"),
        },
        NewPairing { board: 3, leg: 0, white: p[4], black: None, kind: PairingKind::Absent, result: None },
    ];
    assert!(store.pair_round(t, 2, &[], &round2, &TEMPLATE, &[]).unwrap());
    let pairings = store.pairings(t).unwrap();
    let forfeit = &pairings[4];
    assert_eq!(
        (
            forfeit.round,
            forfeit.board,
            forfeit.game,
            forfeit.result.as_deref(),
            forfeit.result_reason.as_deref()
        ),
        (2, 2, None, Some("+-"), Some("withdrawal"))
    );
    assert_eq!(pairings[5].kind, PairingKind::Absent);
    store.set_tournament_status(t, &[TournamentStatus::Running], TournamentStatus::Paused, &[]).unwrap();
    assert!(!store.pair_round(t, 3, &[], &round2, &TEMPLATE, &[]).unwrap(), "no round while paused");
}

pub(crate) fn a_knockout_leg_is_added_once(db: &dyn Db) {
    let store = db.open();
    let (t, p) = tournament_with(&*store, Format::Knockout, 2);
    assert!(store.pair_round(t, 1, &[], &[game_pairing(1, p[0], p[1])], &TEMPLATE, &[]).unwrap());
    let replay = NewPairing { leg: 1, ..game_pairing(1, p[1], p[0]) };
    let g = store.add_leg(t, 1, &replay, &TEMPLATE, &[]).unwrap().expect("a new leg");
    assert_eq!(store.add_leg(t, 1, &replay, &TEMPLATE, &[]).unwrap(), None, "added once");
    let pairings = store.pairings(t).unwrap();
    assert_eq!(
        pairings.iter().map(|r| (r.leg, r.white, r.game.is_some())).collect::<Vec<_>>(),
        [(0, p[0], true), (1, p[1], true)]
    );
    assert_eq!(pairings[1].game, Some(g));
    assert_eq!(pairings[1].at(), PairingAt { round: 1, board: 1, leg: 1 });
}

pub(crate) fn an_organisers_result_ends_the_game_and_a_forfeit_is_unrated(db: &dyn Db) {
    let store = db.open();
    let (t, p, [g1, g2]) = first_round_of_four(&*store, Format::RoundRobin);
    let at = |board| PairingAt { round: 1, board, leg: 0 };
    let set = SetResult::Set;
    // Board `board`'s result set to `result`, for `reason`, at `now`, expecting `expected`.
    let setting = |board, result, reason, now, expected| {
        store.set_pairing_result(t, at(board), &ResultSetting { result, reason, now, expected }, &[]).unwrap()
    };
    assert_eq!(setting(1, "1/2-1/2", "agreed by phone", T0 + 10, None), set);
    assert_eq!(setting(2, "-+", "no show", T0 + 20, None), set);
    assert_eq!(setting(3, "1-0", "no such board", T0 + 30, None), SetResult::NoPairing);
    let (one, two) = (store.game(g1).unwrap().unwrap(), store.game(g2).unwrap().unwrap());
    assert_eq!(
        (one.result.as_deref(), one.result_reason.as_deref(), one.rated),
        (Some("1/2-1/2"), Some("set by the organiser: agreed by phone"), true)
    );
    assert_eq!(
        (two.result.as_deref(), two.result_reason.as_deref(), two.rated),
        (Some("0-1"), Some("forfeit: no show"), false)
    );
    // One place of truth: the pairing of a game keeps no result of its own.
    assert!(store.pairings(t).unwrap().iter().all(|p| p.result.is_none()));
    let mut finished: Vec<_> =
        store.finished_games(t).unwrap().into_iter().map(|f| (f.game, f.result, f.white, f.black)).collect();
    finished.sort();
    assert_eq!(finished, [(g1, "1/2-1/2".to_string(), p[0], p[1]), (g2, "0-1".to_string(), p[2], p[3])]);
    // A correction changes the game itself, and a forfeit corrected to a played result is rated.
    assert_eq!(setting(1, "1-0", "corrected", T0 + 40, Some(Some("1/2-1/2"))), set);
    assert_eq!(store.game(g1).unwrap().unwrap().result.as_deref(), Some("1-0"));
    assert_eq!(setting(2, "1-0", "played after all", T0 + 40, Some(Some("-+"))), set);
    assert!(store.game(g2).unwrap().unwrap().rated);
    // A setting that expected what is no longer there changes nothing and says what is.
    assert_eq!(setting(1, "0-1", "late", T0 + 50, Some(None)), SetResult::Changed(Some("1-0".into())));
    assert_eq!(store.game(g1).unwrap().unwrap().result.as_deref(), Some("1-0"));
}

pub(crate) fn a_player_withdrawn_while_a_round_is_worked_out_is_not_paired(db: &dyn Db) {
    let store = db.open();
    let (t, p) = tournament_with(&*store, Format::Swiss, 4);
    let round1 = [game_pairing(1, p[0], p[1]), game_pairing(2, p[2], p[3])];
    assert!(store.pair_round(t, 1, &[], &round1, &TEMPLATE, &[]).unwrap());
    let at = |board| PairingAt { round: 1, board, leg: 0 };
    for board in [1, 2] {
        let setting = ResultSetting { result: "1-0", reason: "x", now: T0, expected: None };
        store.set_pairing_result(t, at(board), &setting, &[]).unwrap();
    }
    // Withdrawn after the worker read the entrants, before it stored the round.
    let said = NewNotice::text("test", "club", "gone.{forfeits}", Vec::new());
    assert_eq!(store.withdraw_entrant(t, p[3], 1, "gone", T0, &[said]).unwrap(), Some(vec![]));
    let stale = [game_pairing(1, p[0], p[2]), game_pairing(2, p[1], p[3])];
    let notice = NewNotice::text("test", "club", "never", Vec::new());
    assert!(!store.pair_round(t, 2, &[], &stale, &TEMPLATE, &[notice]).unwrap());
    assert_eq!(store.tournament(t).unwrap().unwrap().current_round, 1, "nothing changed");
    let fresh = [
        game_pairing(1, p[0], p[2]),
        NewPairing { board: 2, leg: 0, white: p[1], black: None, kind: PairingKind::Bye, result: None },
    ];
    assert!(store.pair_round(t, 2, &[], &fresh, &TEMPLATE, &[]).unwrap());
    let texts: Vec<String> =
        store.outbox_claim(None, "z", 1, 10).unwrap().into_iter().map(|n| n.text).collect();
    assert_eq!(texts, ["gone."], "the stale round's notice was not stored; no game was forfeited");
}

pub(crate) fn a_notice_is_stored_with_its_change_claimed_once_and_sent_once(db: &dyn Db) {
    let store = db.open();
    let (t, _, [g1, _]) = first_round_of_four(&*store, Format::RoundRobin);
    let at = PairingAt { round: 1, board: 1, leg: 0 };
    let notice = |text: &str| NewNotice::text("discord", "c1", text, vec!["u1".into(), "u2".into()]);
    // A change that does not happen stores no notice.
    let lost = store
        .set_pairing_result(
            t,
            at,
            &ResultSetting { result: "1-0", reason: "x", now: T0, expected: Some(Some("0-1")) },
            &[notice("never")],
        )
        .unwrap();
    assert_eq!(lost, SetResult::Changed(None));
    assert!(store.outbox_claim(None, "a", 1_000, 10).unwrap().is_empty());
    store
        .set_pairing_result(
            t,
            at,
            &ResultSetting { result: "1-0", reason: "x", now: T0, expected: Some(None) },
            &[notice("first")],
        )
        .unwrap();
    assert!(!store.time_out(g1, 0, "1-0", T0, &[notice("not timed out: already over")]).unwrap());
    // Two holders: the first takes it; the second finds nothing until the claim runs out.
    let a = store.outbox_claim(Some("discord"), "a", 1_000, 10).unwrap();
    assert_eq!(a.iter().map(|n| n.text.as_str()).collect::<Vec<_>>(), ["first"]);
    assert_eq!(a[0].notify, ["u1", "u2"]);
    assert!(store.outbox_claim(Some("discord"), "b", 1_000 + CLAIM_MS - 1, 10).unwrap().is_empty());
    assert!(store.outbox_claim(Some("matrix"), "c", 1_000 + CLAIM_MS + 1, 10).unwrap().is_empty());
    let b = store.outbox_claim(Some("discord"), "b", 1_000 + CLAIM_MS + 1, 10).unwrap();
    assert_eq!(b.iter().map(|n| n.id).collect::<Vec<_>>(), [a[0].id]);
    assert!(store.outbox_sent(a[0].id, T0).unwrap());
    assert!(!store.outbox_sent(a[0].id, T0).unwrap(), "marked once");
    assert!(
        store.outbox_claim(None, "d", i64::MAX / 2, 10).unwrap().is_empty(),
        "sent is never posted again"
    );
    // A claimed notice is held by its writer; a release frees it for anyone.
    let held =
        NewNotice { claim: Some(Claim { holder: "w".into(), until_ms: i64::MAX / 2 }), ..notice("held") };
    assert!(
        store
            .set_tournament_status(t, &[TournamentStatus::Running], TournamentStatus::Paused, &[held])
            .unwrap()
    );
    assert!(store.outbox_claim(None, "e", 2_000, 10).unwrap().is_empty());
    assert_eq!(store.outbox_held("w").unwrap().len(), 1);
    assert_eq!(store.outbox_holders("discord").unwrap(), ["w"]);
    assert_eq!(store.outbox_release("someone else").unwrap(), 0);
    assert_eq!(store.outbox_release("w").unwrap(), 1);
    let e = store.outbox_claim(None, "e", 2_000, 10).unwrap();
    assert_eq!(e.len(), 1);
    // A claim is renewed only by its holder, and only while the notice is unsent.
    assert!(store.outbox_renew(e[0].id, "e", 3_000 + CLAIM_MS).unwrap());
    assert!(!store.outbox_renew(e[0].id, "f", 3_000 + CLAIM_MS).unwrap());
    assert!(store.outbox_claim(None, "f", 2_000 + CLAIM_MS + 1, 10).unwrap().is_empty(), "renewed");
    store.outbox_sent(e[0].id, T0).unwrap();
    assert!(!store.outbox_renew(e[0].id, "e", 4_000 + CLAIM_MS).unwrap());
    // Messages answered once.
    assert!(!store.was_handled("matrix", "$e1").unwrap());
    assert!(store.mark_handled("matrix", "$e1", T0).unwrap());
    assert!(!store.mark_handled("matrix", "$e1", T0).unwrap());
    assert!(store.was_handled("matrix", "$e1").unwrap());
}

pub(crate) fn a_withdrawal_forfeits_the_running_game(db: &dyn Db) {
    let store = db.open();
    let (t, p, [g1, g2]) = first_round_of_four(&*store, Format::Swiss);
    store.finish(g2, "1-0", "checkmate", T0 + 5).unwrap();
    let forfeits = store.withdraw_entrant(t, p[0], 1, "moving house", T0 + 10, &[]).unwrap();
    assert_eq!(forfeits, Some(vec![(g1, p[1])]), "the running game is lost, to its opponent");
    assert_eq!(store.withdraw_entrant(t, p[0], 1, "again", T0 + 11, &[]).unwrap(), None, "withdrawn once");
    let forfeits = store.withdraw_entrant(t, p[3], 1, "tired", T0 + 12, &[]).unwrap();
    assert_eq!(forfeits, Some(vec![]), "a finished game stays as it ended");
    let game = store.game(g1).unwrap().unwrap();
    assert_eq!(
        (game.result.as_deref(), game.result_reason.as_deref(), game.rated),
        (Some("0-1"), Some("forfeit: withdrawal"), false)
    );
    let e = &store.entrants(t).unwrap()[0];
    assert_eq!((e.withdrawn_after, e.withdraw_reason.as_deref()), (Some(1), Some("moving house")));
    // The forfeit is the game's result alone; the tournament reads it there.
    assert_eq!(store.pairings(t).unwrap()[0].result, None);
    assert_eq!(store.withdraw_entrant(t, p[0] + 100, 1, "never in", T0, &[]).unwrap(), None);
}

pub(crate) fn rated_results_come_in_finishing_order(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let rated = |fen: &'static str| NewGame { rated: true, start_fen: fen, ..new_game_in("room", a, b) };
    let g1 = store.create_game(&rated("start")).unwrap();
    let g2 = store.create_game(&rated("start")).unwrap();
    let unrated = store.create_game(&new_game_in("room", a, b)).unwrap();
    let bot = store
        .create_game(&NewGame { bot: Some(BotOpponent { player: b, level: 1 }), ..rated("start") })
        .unwrap();
    let aborted = store.create_game(&rated("start")).unwrap();
    // A rated game still running: not a result yet.
    store.create_game(&rated("start")).unwrap();
    store.finish(g2, "1-0", "checkmate", 500).unwrap();
    store.append_move(g1, 1, "e2-e4", Some(("1/2-1/2", "stalemate")), 600).unwrap();
    store.finish(unrated, "0-1", "resignation", 400).unwrap();
    store.finish(bot, "0-1", "resignation", 400).unwrap();
    store.finish(aborted, "0-0", "aborted", 400).unwrap();
    let results = store.rated_results().unwrap();
    assert_eq!(
        results.iter().map(|r| (r.game, r.result.as_str(), r.finished_at)).collect::<Vec<_>>(),
        [(g2, "1-0", 500), (g1, "1/2-1/2", 600)]
    );
    assert_eq!(
        (results[0].white, results[0].black, results[0].variant.as_str(), results[0].channel.as_str()),
        (a, b, "chess", "room")
    );
}
