//! Tournaments that never stall, never disagree and cannot be run from another room (issue 27):
//! organiser commands only in the tournament's own channel; a withdrawal names an entrant or
//! `me`; two results for one game, one wins; a correction reaches the game, the standings, the
//! TRF and the ratings; a round left unpaired by a crash is paired at start-up; every notice is
//! stored with its change and posted once by one of two processes; chat mode pairs on the
//! worker and answers at once; caps. Each on SQLite and on PostgreSQL.

use crate::postgres;
use crate::talk;

use std::sync::{Arc, Barrier};

use tessera_core::model::{PairingAt, PairingRow, ResultSetting, SetResult};
use tessera_core::service::{Reply, Service};
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::AnyStore;
use tessera_store::database::Database;

use talk::{PLATFORM, T0};

fn temp_db(name: &str) -> Database {
    Database::Sqlite(talk::temp_db("integrity", name))
}

postgres::on_both_databases! {
    Database, temp_db, |address: String| Database::parse(&address);
    organiser_commands_act_only_in_the_tournaments_own_channel,
    a_withdrawal_names_an_entrant_or_me,
    of_two_results_set_at_once_exactly_one_wins_and_the_record_agrees,
    a_correction_reaches_the_game_the_standings_the_trf_and_the_ratings,
    a_complete_round_left_unpaired_is_paired_at_start_up_and_announced_once,
    chat_mode_answers_at_once_and_pairs_on_the_worker,
    tournaments_are_capped_and_listed_a_page_at_a_time,
}

fn service(db: &Database) -> Service<AnyStore> {
    Service::new(tessera_store::open(db).unwrap())
}

fn say(s: &Service<AnyStore>, channel: &str, who: &str, admin: bool, text: &str) -> Vec<Reply> {
    talk::say_at(s, channel, who, admin, text, T0 + 600)
}

fn says(s: &Service<AnyStore>, who: &str, text: &str) -> String {
    talk::text(&say(s, "club", who, false, text))
}

fn tournament_id(created: &str) -> i64 {
    let after = created.split("Tournament t").nth(1).expect(created);
    after.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

/// A Swiss run by `org` in `club` with `players` (org among them if named), started.
fn swiss(s: &Service<AnyStore>, org: &str, players: &[&str], extra: &str) -> i64 {
    let t = tournament_id(&says(s, org, &format!("!t tournament create swiss chess rounds 3 {extra}")));
    for p in players {
        assert!(says(s, p, "!t tournament join").contains("joins"), "{p}");
    }
    assert!(says(s, org, "!t tournament start").contains("round 1 of 3"));
    t
}

/// The running games of the current round.
fn running(store: &AnyStore, t: i64) -> Vec<PairingRow> {
    let round = store.tournament(t).unwrap().unwrap().current_round;
    store
        .pairings(t)
        .unwrap()
        .into_iter()
        .filter(|p| {
            p.round == round && p.game.is_some_and(|g| store.game(g).unwrap().unwrap().result.is_none())
        })
        .collect()
}

fn organiser_commands_act_only_in_the_tournaments_own_channel(db: &Database) {
    let s = service(db);
    let t = swiss(&s, "org", &["a", "b", "c", "d"], "");
    let game = running(s.store(), t)[0].game.unwrap();
    // A moderator of another room, and the organiser herself from another room: refused, and
    // nothing changes.
    for (who, admin) in [("mod", true), ("org", false)] {
        for cmd in [
            format!("!t tournament pause t{t}"),
            format!("!t tournament cancel t{t}"),
            format!("!t tournament result #{game} 1-0"),
            format!("!t tournament result #{game} 1-0 t{t}"),
            format!("!t tournament withdraw t{t} a"),
            format!("!t tournament join t{t}"),
        ] {
            let r = say(&s, "elsewhere", who, admin, &cmd);
            assert!(
                r.len() == 1 && r[0].private && r[0].text.contains("another channel"),
                "{who} {cmd}: {r:?}"
            );
        }
    }
    let row = s.store().tournament(t).unwrap().unwrap();
    assert_eq!(row.status.name(), "running");
    assert!(s.store().game(game).unwrap().unwrap().result.is_none());
    // Reading it from elsewhere is fine.
    assert!(
        talk::text(&say(&s, "elsewhere", "x", false, &format!("!t tournament standings t{t}")))
            .contains("round 1")
    );
    // In its own channel a moderator may; a double forfeit shows as one, read from the game.
    assert!(talk::text(&say(&s, "club", "mod", true, "!t tournament pause")).contains("paused"));
    assert!(says(&s, "org", &format!("!t tournament result #{game} -- no show")).contains("is set to --"));
    let pairings = says(&s, "x", "!t tournament pairings");
    assert!(
        pairings.lines().any(|l| l.contains(&format!("#{game} ")) && l.contains("double forfeit")),
        "{pairings}"
    );
}

fn a_withdrawal_names_an_entrant_or_me(db: &Database) {
    let s = service(db);
    let t = swiss(&s, "org", &["org", "ann", "ben", "cy"], "");
    let entrants = |s: &Service<AnyStore>| s.store().entrants(t).unwrap();
    for (cmd, hint) in [
        ("!t tournament withdraw bob", "ben"),
        ("!t tournament withdraw @a1", "a1"),
        ("!t tournament withdraw zed", "withdraw me"),
    ] {
        let r = say(&s, "club", "org", false, cmd);
        assert!(r.len() == 1 && r[0].private && r[0].text.contains(hint), "{cmd}: {r:?}");
    }
    // Nobody was withdrawn, the organiser least of all, and no game was forfeited.
    assert!(entrants(&s).iter().all(|e| e.withdrawn_after.is_none()));
    assert!(running(s.store(), t).len() == 2);
    // A name that is an entrant's, with or without @, and `me`.
    let out = says(&s, "org", "!t tournament withdraw Ben");
    assert!(out.contains("ben is withdrawn") && out.contains("by forfeit"), "{out}");
    assert!(says(&s, "ann", "!t tournament withdraw me").contains("ann is withdrawn"));
    let withdrawn: Vec<String> =
        entrants(&s).into_iter().filter(|e| e.withdrawn_after.is_some()).map(|e| e.name).collect();
    assert_eq!(withdrawn.len(), 2, "{withdrawn:?}");
    assert!(withdrawn.contains(&"ben".to_string()) && withdrawn.contains(&"ann".to_string()));
    // A player may not withdraw another.
    let r = say(&s, "club", "cy", false, "!t tournament withdraw org");
    assert!(r[0].private && r[0].text.contains("organiser"), "{r:?}");
}

fn of_two_results_set_at_once_exactly_one_wins_and_the_record_agrees(db: &Database) {
    // Six races a run; `TESSERA_RESULT_RACES=100` runs a hundred (one per game of round 1).
    let races: usize = std::env::var("TESSERA_RESULT_RACES").ok().and_then(|n| n.parse().ok()).unwrap_or(6);
    let players: Vec<String> = (0..2 * races).map(|i| format!("p{i}")).collect();
    let names: Vec<&str> = players.iter().map(String::as_str).collect();
    let one = service(db);
    let t = swiss(&one, "org", &names, "");
    let two = Arc::new(service(db));
    let one = Arc::new(one);
    let mut in_the_transaction = 0;
    for p in running(one.store(), t) {
        let game = p.game.unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let racers: Vec<_> =
            [(Arc::clone(&one), "org", false, "1-0"), (Arc::clone(&two), "mod", true, "0-1")]
                .into_iter()
                .map(|(s, who, admin, result)| {
                    let barrier = Arc::clone(&barrier);
                    std::thread::spawn(move || {
                        barrier.wait();
                        (
                            result,
                            talk::text(&say(
                                &s,
                                "club",
                                who,
                                admin,
                                &format!("!t tournament result #{game} {result}"),
                            )),
                        )
                    })
                })
                .collect();
        let answers: Vec<(&str, String)> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let won: Vec<&str> =
            answers.iter().filter(|(_, a)| a.contains("is set to")).map(|(r, _)| *r).collect();
        let told = answers
            .iter()
            .filter(|(_, a)| a.contains("a moment ago") || a.contains("already has a result"))
            .count();
        assert_eq!((won.len(), told), (1, 1), "{answers:?}");
        // Decided by the compare-and-set (both read no result), or the second read the first's.
        if answers.iter().any(|(_, a)| a.contains("a moment ago")) {
            in_the_transaction += 1;
        }
        // The game's record and the tournament say the same.
        let stored = one.store().game(game).unwrap().unwrap().result;
        assert_eq!(stored.as_deref(), Some(won[0]), "{answers:?}");
        let pairings = says(&one, "x", "!t tournament pairings 1");
        let line = pairings.lines().find(|l| l.contains(&format!("#{game} "))).unwrap().to_string();
        assert!(line.ends_with(won[0]), "the pairings say what the game's record says: {line}");
    }
    println!(
        "{races} races for one game's result between two processes: each time one set, one told \
         ({in_the_transaction} decided by the compare-and-set, {} by the second reading the first's result)",
        races - in_the_transaction
    );
}

fn a_correction_reaches_the_game_the_standings_the_trf_and_the_ratings(db: &Database) {
    let s = service(db);
    let t = swiss(&s, "org", &["ann", "ben"], "rated");
    let p = running(s.store(), t).remove(0);
    let game = p.game.unwrap();
    let (white, black) = (
        s.store().player_by_id(p.white).unwrap().unwrap(),
        s.store().player_by_id(p.black.unwrap()).unwrap().unwrap(),
    );
    // Black resigns: White wins by play.
    assert!(says(&s, &black.user_id, &format!("!t resign #{game}")).contains("resign"));
    let rating = |s: &Service<AnyStore>, who: &str| {
        let out = says(s, who, "!t rating chess");
        out.split_whitespace()
            .find_map(|w| {
                w.trim_matches(|c: char| !c.is_ascii_digit()).parse::<u32>().ok().filter(|n| *n > 100)
            })
            .unwrap()
    };
    let before = (rating(&s, &white.user_id), rating(&s, &black.user_id));
    assert!(before.0 > before.1, "{before:?}");
    let trf_before = s.export_trf(t).unwrap();
    let refused = says(&s, "org", &format!("!t tournament result #{game} 0-1 wrong hand"));
    assert!(refused.contains("correct`"), "a result already there is changed only on purpose: {refused}");
    let out = says(&s, "org", &format!("!t tournament result #{game} 0-1 correct wrong hand"));
    assert!(out.contains("corrected to 0-1"), "{out}");
    assert_eq!(s.store().game(game).unwrap().unwrap().result.as_deref(), Some("0-1"));
    let after = (rating(&s, &white.user_id), rating(&s, &black.user_id));
    assert!(after.1 > after.0, "ratings follow the corrected result: {before:?} then {after:?}");
    let trf_after = s.export_trf(t).unwrap();
    assert_ne!(trf_before, trf_after);
    let standings = says(&s, "x", "!t tournament standings");
    let first = standings.lines().find(|l| l.trim_start().starts_with('1')).unwrap_or_default().to_string();
    assert!(first.contains(&black.name), "{standings}");
}

fn a_complete_round_left_unpaired_is_paired_at_start_up_and_announced_once(db: &Database) {
    let s = service(db);
    let t = swiss(&s, "org", &["ann", "ben", "cy", "dee"], "");
    // The round's results stored, and the process dies before pairing the next one.
    for p in running(s.store(), t) {
        let at = PairingAt { round: p.round, board: p.board, leg: p.leg };
        assert_eq!(
            s.store()
                .set_pairing_result(
                    t,
                    at,
                    &ResultSetting { result: "1-0", reason: "test", now: T0, expected: None },
                    &[]
                )
                .unwrap(),
            SetResult::Set
        );
    }
    assert_eq!(s.store().tournament(t).unwrap().unwrap().current_round, 1);
    drop(s);
    // Two processes start; each looks at the running tournaments.
    let (a, b) = (service(db), service(db));
    a.resume_tournaments(&[PLATFORM]).unwrap();
    b.resume_tournaments(&[PLATFORM]).unwrap();
    assert_eq!(a.store().tournament(t).unwrap().unwrap().current_round, 2, "paired once, at start-up");
    // Its announcement: posted by exactly one of them.
    let (from_a, from_b) = (a.outbox_due(Some(&[PLATFORM])), b.outbox_due(Some(&[PLATFORM])));
    let all: Vec<_> = from_a.iter().chain(&from_b).collect();
    let rounds: Vec<_> = all.iter().filter(|n| n.text.contains("round 2 of 3 is paired")).collect();
    assert_eq!(rounds.len(), 1, "{all:?}");
    assert_eq!(rounds[0].direct.len(), 4, "each player is told privately");
    for n in &all {
        a.notice_sent(n.outbox.unwrap());
    }
    assert!(a.outbox_due(None).is_empty() && b.outbox_due(None).is_empty());
}

fn chat_mode_answers_at_once_and_pairs_on_the_worker(db: &Database) {
    let mut s = service(db);
    s.pair_on_worker = true;
    let t = tournament_id(&says(&s, "org", "!t tournament create swiss chess rounds 2"));
    for p in ["ann", "ben", "cy", "dee"] {
        says(&s, p, "!t tournament join");
    }
    let started = says(&s, "org", "!t tournament start");
    assert!(started.contains("round 1 is being paired"), "{started}");
    assert_eq!(s.store().tournament(t).unwrap().unwrap().current_round, 0);
    assert!(s.pairing_step());
    assert_eq!(s.store().tournament(t).unwrap().unwrap().current_round, 1);
    let notices = s.outbox_due(Some(&[PLATFORM]));
    assert!(notices.iter().any(|n| n.text.contains("round 1 of 2 is paired")), "{notices:?}");
    notices.iter().for_each(|n| s.notice_sent(n.outbox.unwrap()));
    let games: Vec<i64> = running(s.store(), t).iter().map(|p| p.game.unwrap()).collect();
    let first = says(&s, "org", &format!("!t tournament result #{} 1-0", games[0]));
    assert!(first.contains("is set to 1-0") && !first.contains("being paired"), "{first}");
    let set = says(&s, "org", &format!("!t tournament result #{} 0-1", games[1]));
    assert!(set.contains("is set to 0-1") && set.contains("round 2 is being paired"), "{set}");
    assert!(s.pairing_step());
    assert_eq!(s.store().tournament(t).unwrap().unwrap().current_round, 2);
    assert!(s.outbox_due(None).iter().any(|n| n.text.contains("round 2 of 2 is paired")));
}

fn tournaments_are_capped_and_listed_a_page_at_a_time(db: &Database) {
    let s = service(db);
    for _ in 0..3 {
        assert!(says(&s, "org", "!t tournament create swiss chess rounds 3").contains("Tournament t"));
    }
    let r = say(&s, "club", "org", false, "!t tournament create swiss chess rounds 3");
    assert!(r[0].private && r[0].text.contains("already run 3"), "{r:?}");
    for i in 0..4 {
        for _ in 0..3 {
            says(&s, &format!("o{i}"), "!t tournament create swiss chess rounds 3");
        }
    }
    let page1 = says(&s, "x", "!t tournaments");
    assert!(page1.contains("page 1 of 2 (15 in all)") && page1.contains("`!t tournaments 2`"), "{page1}");
    assert_eq!(page1.lines().filter(|l| l.starts_with('t')).count(), 10);
    let page2 = says(&s, "x", "!t tournaments 2");
    assert_eq!(page2.lines().filter(|l| l.starts_with('t')).count(), 5, "{page2}");
    assert!(say(&s, "club", "x", false, "!t tournaments 3")[0].text.contains("from 1 to 2"));
    // A format's limit is kept with the tournament: the 17th entrant of a round robin is refused.
    let rr = tournament_id(&says(&s, "rr", "!t tournament create round-robin chess"));
    for i in 0..16 {
        assert!(says(&s, &format!("e{i}"), &format!("!t tournament join t{rr}")).contains("joins"));
    }
    let r = say(&s, "club", "e16", false, &format!("!t tournament join t{rr}"));
    assert!(r[0].private && r[0].text.contains("at most 16"), "{r:?}");
    // A Swiss keeps its 4,000 with it, so the 4,001st entry is refused in the entry's transaction.
    let swiss = tournament_id(&says(&s, "sw", "!t tournament create swiss chess rounds 3"));
    assert_eq!(s.store().tournament(swiss).unwrap().unwrap().max_players, Some(4000));
    let r = say(&s, "club", "big", false, "!t tournament create swiss chess rounds 3 players 5000");
    assert!(r[0].private && r[0].text.contains("4000"), "{r:?}");
}
