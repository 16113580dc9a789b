//! Analysis after the game and the practice hint (issue 32), through the service and the practice
//! worker on a temporary database: who may ask, finished games only, the tournament rule, the
//! per-player limit, the cache, the answer stored with the evaluations, a restart resuming a
//! request, a real analysis finding a hung queen, and hints refused and given.
//!
//! Every search here is held to a depth, not a time, so what it finds does not depend on the
//! machine's speed.

use crate::talk;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tessera_bot::clock::Clock;
use tessera_bot::practice::Worker;
use tessera_core::analysis::Eval;
use tessera_core::queue::Job;
use tessera_core::service::{Notice, Reply, Service};
use tessera_core::store::{Store, TournamentStore};
use tessera_engine::Limits;
use tessera_rules::Color;
use tessera_store::SqliteStore;

use talk::{PLATFORM, T0, say_at, say_in};

const BOT: &str = "tessera";

fn service_at(path: &std::path::Path) -> Service<SqliteStore> {
    let mut service = Service::new(SqliteStore::open(path).unwrap());
    service.set_bot_account(PLATFORM, BOT);
    // Deep enough to see a queen hang, shallow enough to be quick, and the same on any machine.
    service.analysis_limits = Limits { depth: Some(4), movetime: None };
    service.hint_limits = Limits { depth: Some(3), movetime: None };
    service
}

fn says_in(service: &Service<SqliteStore>, channel: &str, who: &str, text: &str) -> Reply {
    let replies = say_in(service, channel, who, text);
    assert_eq!(replies.len(), 1, "{who}: {text} -> {replies:?}");
    replies.into_iter().next().unwrap()
}

fn says(service: &Service<SqliteStore>, who: &str, text: &str) -> Reply {
    says_in(service, "room", who, text)
}

/// A game between alice (white) and bob in `room`, played through `moves`; its number.
fn game_of(service: &Service<SqliteStore>, moves: &[&str]) -> i64 {
    says(service, "alice", "!t challenge @bob chess white");
    let begun = says(service, "bob", "!t accept");
    let id: i64 = begun
        .text
        .split('#')
        .nth(1)
        .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no game number in {}", begun.text));
    for (i, m) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        let reply = says(service, who, &format!("!t move #{id} {m}"));
        assert!(!reply.private, "{m}: {}", reply.text);
    }
    id
}

/// The Italian-looking opening in which Black hangs its queen and White does not take it.
const HUNG_QUEEN: [&str; 5] = ["e4", "e5", "Nf3", "Qg5", "a3"];

/// The analysis answers waiting in the outbox, each marked sent.
fn analysis_notices(service: &Service<SqliteStore>) -> Vec<Notice> {
    let notices = service.outbox_due(None);
    for n in &notices {
        service.notice_sent(n.outbox.unwrap());
    }
    notices
}

#[test]
fn only_finished_visible_games_are_analysed_and_practice_games_by_their_player() {
    let db = talk::temp_db("analysis", "who");
    let service = service_at(&db);
    let id = game_of(&service, &["e4", "e5"]);
    let early = says(&service, "carol", &format!("!t analyse #{id}"));
    assert!(early.private && early.text.contains("still being played"), "{}", early.text);
    assert!(service.store().analysis(id).unwrap().is_none(), "nothing queued");
    says(&service, "bob", &format!("!t resign #{id}"));
    // Elsewhere, a stranger to the game does not see it.
    let stranger = says_in(&service, "other", "carol", &format!("!t analyze #{id}"));
    assert!(stranger.private && stranger.text.contains("is played in"), "{}", stranger.text);
    assert!(service.store().analysis(id).unwrap().is_none());
    // In its channel anyone may ask; the reply gives the place in the queue.
    let queued = says(&service, "carol", &format!("!t analyse #{id}"));
    assert!(!queued.private && queued.text.contains("place 1 in the queue"), "{}", queued.text);
    let row = service.store().analysis(id).unwrap().unwrap();
    assert_eq!((row.channel.as_str(), row.is_done()), ("room", false));
    assert_eq!(service.practice_queue().later_len(), 1);
    // A player anywhere on the platform: told it is queued, and where the answer goes.
    let again = says_in(&service, "elsewhere", "alice", &format!("!t analyse #{id}"));
    assert!(again.text.contains("already queued") && again.text.contains("#room"), "{}", again.text);
    assert_eq!(service.practice_queue().later_len(), 1, "queued once");

    // A practice game is its player's alone.
    says(&service, "dave", "!t challenge @tessera chess white level 1");
    let practice = service.store().last_channel_game(PLATFORM, "room").unwrap().unwrap();
    says(&service, "dave", &format!("!t resign #{}", practice.id));
    let nosy = says(&service, "carol", &format!("!t analyse #{}", practice.id));
    assert!(nosy.private && nosy.text.contains("private"), "{}", nosy.text);
    let own = says(&service, "dave", &format!("!t analyse #{}", practice.id));
    assert!(own.private && own.text.contains("nothing to analyse"), "no turn was played: {}", own.text);
}

#[test]
fn a_player_has_two_analyses_waiting_at_most() {
    let db = talk::temp_db("analysis", "limit");
    let service = service_at(&db);
    let games: Vec<i64> = (0..3)
        .map(|_| {
            let id = game_of(&service, &["d4"]);
            says(&service, "bob", &format!("!t resign #{id}"));
            id
        })
        .collect();
    for (i, id) in games[..2].iter().enumerate() {
        let reply = says(&service, "carol", &format!("!t analyse #{id}"));
        assert!(reply.text.contains(&format!("place {} in the queue", i + 1)), "{}", reply.text);
    }
    let third = says(&service, "carol", &format!("!t analyse #{}", games[2]));
    assert!(third.private && third.text.contains("2 analyses waiting"), "{}", third.text);
    assert!(service.store().analysis(games[2]).unwrap().is_none());
    // Someone else may still ask, and is third.
    let other = says(&service, "erin", &format!("!t analyse #{}", games[2]));
    assert!(other.text.contains("place 3 in the queue"), "{}", other.text);
}

#[test]
fn tournament_games_wait_for_the_tournaments_end() {
    let db = talk::temp_db("analysis", "tournament");
    let service = service_at(&db);
    let admin = |text: &str| say_at(&service, "room", "alice", true, text, T0);
    admin("!t tournament create round-robin chess");
    for p in ["bob", "carol", "dave"] {
        say_in(&service, "room", p, "!t tournament join t1");
    }
    admin("!t tournament start t1");
    let game =
        service.store().pairings(1).unwrap().into_iter().find_map(|p| p.game).expect("round 1 has a game");
    let row = service.store().game(game).unwrap().unwrap();
    let user = |p| service.store().player_by_id(p).unwrap().unwrap().user_id;
    let (winner, loser) = (user(row.white), user(row.black));
    let moved = says(&service, &winner, &format!("!t move #{game} e4"));
    assert!(!moved.private, "{}", moved.text);
    // Its round over, the next is paired at once: the tournament runs on.
    say_in(&service, "room", &loser, &format!("!t resign #{game}"));
    assert!(service.store().game(game).unwrap().unwrap().result.is_some(), "the game is over");
    let refused = says(&service, "erin", &format!("!t analyse #{game}"));
    assert!(
        refused.private && refused.text.contains("(t1)") && refused.text.contains("round 2 of 3"),
        "{}",
        refused.text
    );
    assert!(service.store().analysis(game).unwrap().is_none());
    admin("!t tournament cancel t1");
    let after = says(&service, "erin", &format!("!t analyse #{game}"));
    assert!(after.text.contains("queued for analysis"), "{}", after.text);
}

#[test]
fn the_worker_finds_the_hung_queen_stores_the_answer_with_the_evaluations_and_caches_it() {
    let db = talk::temp_db("analysis", "worker");
    let service = Arc::new(service_at(&db));
    let id = game_of(&service, &HUNG_QUEEN);
    says(&service, "bob", &format!("!t resign #{id}"));
    says(&service, "carol", &format!("!t analyse #{id}"));
    // Nothing stored and nothing announced before the analysis has run.
    assert!(service.store().analysis_evals(id).unwrap().is_empty());
    assert!(analysis_notices(&service).is_empty());

    let mut clock = Clock::new();
    let _inbox = clock.serve(PLATFORM);
    let worker = Worker::start(Arc::clone(&service), clock.router()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while !service.store().analysis(id).unwrap().unwrap().is_done() {
        assert!(Instant::now() < deadline, "the analysis never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    worker.stop();

    let evals = service.store().analysis_evals(id).unwrap();
    assert_eq!(evals.iter().map(|e| e.ply).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    assert!(evals.iter().all(|e| e.depth == 4 && e.best.is_some()), "{evals:?}");
    // After 2... Qg5 White wins a queen; after 3. a3 it is gone again.
    let white_cp = |e: Eval| match e {
        Eval::Cp(cp) => cp,
        other => panic!("{other:?}"),
    };
    assert!(white_cp(evals[4].eval) > 500, "{:?}", evals[4]);
    assert!(white_cp(evals[5].eval) < 200, "{:?}", evals[5]);
    assert_eq!(evals[4].best.as_deref(), Some("Nxg5"), "the capture is the better turn");

    // The answer came with the evaluations: one notice, to where it was asked.
    let notices = analysis_notices(&service);
    assert_eq!(notices.len(), 1, "{notices:?}");
    let answer = &notices[0];
    assert_eq!((answer.channel.as_str(), answer.notify.as_slice()), ("room", &["carol".to_string()][..]));
    assert!(answer.text.contains("2... Qg5?? blunder"), "{}", answer.text);
    assert!(
        answer.text.contains("3. a3?? blunder") && answer.text.contains("better 3. Nxg5"),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("alice (white): 0 inaccuracies, 0 mistakes, 1 blunder"), "{}", answer.text);
    let png = answer.image.as_ref().expect("the graph");
    assert!(png.starts_with(b"\x89PNG"));

    // Asked again: at once, from the store, with the same words and picture; nothing queued.
    let cached = says_in(&service, "elsewhere", "alice", &format!("!t analyse #{id}"));
    assert_eq!(cached.text, answer.text);
    assert_eq!(cached.image.as_ref(), Some(png));
    assert_eq!(service.practice_queue().later_len(), 0);
    // The judgement is the same whoever reads it: the page's data marks the same turns.
    let page = service.public_game(id).unwrap().unwrap();
    let analysis = page.analysis.expect("the page has the analysis");
    let marked: Vec<usize> = analysis.judged.iter().filter(|j| j.class.is_some()).map(|j| j.ply).collect();
    assert_eq!(marked, [4, 5]);
    assert_eq!(analysis.tallies[0].blunders, 1);
    assert_eq!(analysis.judged[4].mover, Color::White);
}

#[test]
fn a_restart_resumes_an_analysis_and_one_stopped_midway_still_waits() {
    let db = talk::temp_db("analysis", "resume");
    let id = {
        let service = service_at(&db);
        let id = game_of(&service, &["e4", "e5", "Nf3"]);
        says(&service, "bob", &format!("!t resign #{id}"));
        says(&service, "alice", &format!("!t analyse #{id}"));
        // The worker stops between positions: nothing is stored, the request still waits.
        let mut looks = 0;
        assert!(!service.analysis_run(id, &mut || {
            looks += 1;
            looks < 3
        }));
        assert_eq!(looks, 3);
        assert!(!service.store().analysis(id).unwrap().unwrap().is_done());
        assert!(service.store().analysis_evals(id).unwrap().is_empty());
        id
    };
    // The process is gone, its queue with it; the next one queues the request again.
    let service = service_at(&db);
    assert_eq!(service.practice_queue().later_len(), 0);
    assert_eq!(service.analysis_resume(Some(&[PLATFORM])).unwrap(), 1);
    assert_eq!(service.analysis_resume(Some(&["elsewhere"])).unwrap(), 0);
    let job = service.practice_queue().try_pop_later().unwrap();
    assert_eq!(job, Job::Analysis(id));
    assert!(service.practice_job(&job, T0, &mut || true).is_empty(), "the answer goes through the outbox");
    assert!(service.store().analysis(id).unwrap().unwrap().is_done());
    assert_eq!(service.store().analysis_evals(id).unwrap().len(), 4);
    // Done once: running it again changes nothing and announces nothing more.
    assert!(!service.analysis_run(id, &mut || true));
    assert_eq!(analysis_notices(&service).len(), 1);
}

#[test]
fn hints_are_for_the_practice_player_on_their_move_and_go_to_them_alone() {
    let db = talk::temp_db("analysis", "hint");
    let service = service_at(&db);
    let human = game_of(&service, &[]);
    let refused = says(&service, "alice", &format!("!t hint #{human}"));
    assert!(refused.private && refused.text.contains("hints are for practice games"), "{}", refused.text);
    assert!(service.practice_queue().is_empty());

    says(&service, "dave", "!t challenge @tessera chess white level 1");
    let game = service.store().last_channel_game(PLATFORM, "room").unwrap().unwrap().id;
    let nosy = says(&service, "carol", &format!("!t hint #{game}"));
    assert!(nosy.private && nosy.text.contains("only the player"), "{}", nosy.text);
    let asked = says(&service, "dave", &format!("!t hint #{game}"));
    assert!(asked.secret && asked.private, "the acknowledgement is dave's alone: {asked:?}");
    let job = service.practice_queue().try_pop().expect("a hint job");
    assert!(matches!(&job, Job::Hint(h) if h.game == game && h.user_id == "dave"), "{job:?}");
    let notices = service.practice_job(&job, T0, &mut || true);
    assert_eq!(notices.len(), 1);
    let hint = notices[0].clone().into_reply();
    assert!(hint.only_direct(), "nothing in the channel: {hint:?}");
    assert_eq!(hint.direct.len(), 1);
    let (to, text) = &hint.direct[0];
    assert_eq!(to, "dave");
    assert!(text.starts_with(&format!("Hint for game #{game}: 1. ")), "{text}");
    // The hinted turn is one dave may play.
    let turn = text.split_whitespace().nth(5).unwrap();
    let played = says(&service, "dave", turn);
    assert!(!played.private, "{turn}: {}", played.text);

    // Not on the bot's move; and a hint asked before a move is dropped after it.
    let mine = says(&service, "dave", &format!("!t hint #{game}"));
    assert!(mine.private && mine.text.contains("my move"), "{}", mine.text);
    while let Some(job) = service.practice_queue().try_pop() {
        service.practice_job(&job, T0, &mut || true);
    }
    says(&service, "dave", &format!("!t hint #{game}"));
    let stale = service.practice_queue().try_pop().unwrap();
    let reply = says(&service, "dave", "!t resign");
    assert!(!reply.private, "{}", reply.text);
    assert!(service.practice_job(&stale, T0, &mut || true).is_empty(), "the game moved on");
    let over = says(&service, "dave", &format!("!t hint #{game}"));
    assert!(over.private && over.text.contains("is over"), "{}", over.text);
}
