//! Playing the bot itself (issue 16) through the service and its worker, on a temporary database:
//! a challenge starts the game at once, the bot answers on its own thread and its move is posted
//! like any opponent's, bad input changes nothing, a restart resumes the bot's turn, a game that
//! moves on while the bot thinks gets no stray move, and other games never wait for the bot.

use crate::talk;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tessera_bot::clock::Clock;
use tessera_bot::practice::Worker;
use tessera_bot::router::Inbox;
use tessera_core::commands::{ColorChoice, Command};
use tessera_core::service::{Incoming, Notice, Reply, Service, User};
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_rules::{Game, Position, Variant};
use tessera_store::SqliteStore;

use talk::{PLATFORM, T0, say_in};

const BOT: &str = "tessera";

fn temp_db(name: &str) -> std::path::PathBuf {
    talk::temp_db("practice", name)
}

fn service(path: &std::path::Path) -> Arc<Service<SqliteStore>> {
    let service = Service::new(SqliteStore::open(path).unwrap());
    service.set_bot_account(PLATFORM, BOT);
    Arc::new(service)
}

fn says(service: &Service<SqliteStore>, who: &str, text: &str) -> Reply {
    let replies = say_in(service, "room", who, text);
    assert_eq!(replies.len(), 1, "{who}: {text} -> {replies:?}");
    replies.into_iter().next().unwrap()
}

/// A worker posting to an inbox of the test's own, as the adapters' inboxes are posted to.
fn worker(service: &Arc<Service<SqliteStore>>) -> (Worker<SqliteStore>, Inbox) {
    let mut clock = Clock::new();
    let inbox = clock.serve(PLATFORM);
    (Worker::start(Arc::clone(service), clock.router()).unwrap(), inbox)
}

/// The next notice, waited for generously (the worker thinks and posts on its own thread).
fn next_notice(inbox: &mut Inbox) -> Notice {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(notice) = inbox.try_recv() {
            return notice;
        }
        assert!(Instant::now() < deadline, "the bot never posted its move");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The game's stored moves replay legally.
fn replayed(service: &Service<SqliteStore>, id: i64) -> Game {
    let row = service.store().game(id).unwrap().unwrap();
    let mut game = Game::new(Position::from_fen(row.variant.parse().unwrap(), &row.start_fen).unwrap());
    for m in &row.moves {
        game.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    game
}

#[test]
fn challenging_the_bot_starts_a_game_and_it_answers_with_a_board() {
    let db = temp_db("answers");
    let service = service(&db);
    let (worker, mut inbox) = worker(&service);
    let start = says(&service, "alice", "!t challenge @tessera chess white level 1");
    assert!(start.text.starts_with("Game #1 begins") && start.text.contains("level 1"), "{}", start.text);
    assert!(start.text.contains("not rated") && start.image.is_some(), "{}", start.text);
    let row = service.store().game(1).unwrap().unwrap();
    assert_eq!((row.bot.map(|b| b.level), row.rated, row.days_per_move), (Some(1), false, None));
    let moved = says(&service, "alice", "e4");
    assert!(moved.text.contains("alice played e4. tessera is thinking"), "{}", moved.text);
    assert!(moved.notify.is_empty(), "the bot is not pinged: {:?}", moved.notify);
    let answer = next_notice(&mut inbox);
    assert_eq!((answer.platform.as_str(), answer.channel.as_str()), (PLATFORM, "room"));
    assert!(
        answer.text.starts_with("tessera played ") && answer.text.contains("alice, your move"),
        "{}",
        answer.text
    );
    assert!(answer.image.as_ref().is_some_and(|png| png.starts_with(b"\x89PNG")), "a board picture");
    assert_eq!(answer.notify, ["alice"]);
    assert_eq!(replayed(&service, 1).moves().len(), 2, "a legal answer, stored");
    // Only the player to move moves: the bot's turn is its own, and a human cannot take it.
    assert!(says(&service, "alice", "!t board").text.contains("alice to move"));
    // Colour by the challenge's option: as Black, the bot opens at once.
    let start = says(&service, "bob", "!t challenge @tessera chess black");
    assert!(start.text.contains("level 3") && start.text.contains("is thinking"), "{}", start.text);
    let opening = next_notice(&mut inbox);
    assert!(
        opening.text.contains("tessera played") && opening.text.contains("bob, your move"),
        "{}",
        opening.text
    );
    assert_eq!(replayed(&service, 2).moves().len(), 1);
    worker.stop();
}

#[test]
fn bad_challenges_to_the_bot_are_refused_and_change_nothing() {
    let db = temp_db("refused");
    let service = service(&db);
    for (text, wanted) in [
        ("!t challenge @tessera chess level 9", "level is a number from 1 to 5"),
        ("!t challenge @tessera chess level strong", "level is a number from 1 to 5"),
        ("!t challenge @tessera chess rated", "never rated"),
        ("!t challenge @tessera chess 3d", "no clock"),
        ("!t challenge @bob chess level 2", "only for a game against me"),
    ] {
        let reply = says(&service, "alice", text);
        assert!(reply.private && reply.text.contains(wanted), "{text} -> {}", reply.text);
    }
    // A level out of range that gets past the text grammar (a slash command, say) is refused too.
    let alice = User::new("alice", "alice");
    let tessera = [User::new(BOT, BOT)];
    let msg = Incoming {
        platform: PLATFORM,
        channel: "room",
        author: &alice,
        is_admin: false,
        text: "",
        mentions: &tessera,
        now: T0,
        thread: None,
    };
    let cmd = Command::Challenge {
        variant: Variant::CHESS,
        color: ColorChoice::Random,
        days: None,
        weekends_off: false,
        rated: false,
        level: Some(7),
    };
    let reply = service.run(&msg, cmd);
    assert!(reply[0].private && reply[0].text.contains("`level 1`"), "{:?}", reply[0].text);
    let alice = service.store().player(PLATFORM, "alice", "alice").unwrap();
    assert!(service.store().player_games(alice.id).unwrap().is_empty(), "no game was started");
    assert!(service.store().game(1).unwrap().is_none());
    assert!(service.practice_queue().is_empty());
    // The bot's own account never speaks (the local mode could type as it).
    assert!(say_in(&service, "room", BOT, "!t help").is_empty());
}

#[test]
fn a_restart_resumes_the_bots_turn() {
    let db = temp_db("restart");
    let game = {
        let before = service(&db);
        says(&before, "alice", "!t challenge @tessera chess white level 2");
        says(&before, "alice", "d4");
        // The process ends before its worker ever ran: the bot's turn is only in the database.
        assert_eq!(before.practice_queue().len(), 1);
        1
    };
    let after = service(&db);
    let (worker, mut inbox) = worker(&after);
    let answer = next_notice(&mut inbox);
    assert!(answer.text.contains("tessera played"), "{}", answer.text);
    assert_eq!(replayed(&after, game).moves().len(), 2);
    assert_eq!(
        after.store().game(game).unwrap().unwrap().bot.map(|b| b.level),
        Some(2),
        "the level survives"
    );
    worker.stop();
}

#[test]
fn a_game_that_moves_on_while_the_bot_thinks_gets_no_stray_move() {
    let db = temp_db("stray");
    let service = service(&db);
    // Resigned while the bot thinks: its move is dropped.
    says(&service, "alice", "!t challenge @tessera chess white");
    says(&service, "alice", "e4");
    let thought = service.practice_think(1, T0).expect("the bot has a move");
    assert!(says(&service, "alice", "!t resign").text.contains("alice resigns"));
    assert!(service.practice_commit(thought, T0).is_empty());
    let row = service.store().game(1).unwrap().unwrap();
    assert_eq!((row.moves.len(), row.result.as_deref()), (1, Some("0-1")));
    // A queued job for a finished game does nothing either.
    while service.practice_queue().try_pop().is_some() {}
    assert!(service.practice_turn(1, T0).is_empty());

    // Taken back and another move played while the bot thinks: as many moves as it saw, but
    // another position, so its move is dropped and the new position answered instead.
    says(&service, "bob", "!t challenge @tessera chess white");
    says(&service, "bob", "e4");
    let stale = service.practice_think(2, T0).unwrap();
    let back = says(&service, "bob", "!t takeback");
    assert!(back.text.contains("your last move is undone"), "{}", back.text);
    says(&service, "bob", "d4");
    assert!(service.practice_commit(stale, T0).is_empty());
    assert_eq!(service.store().game(2).unwrap().unwrap().moves, ["d2-d4"]);
    let notices = service.practice_turn(2, T0);
    assert!(notices[0].text.contains("tessera played"), "{notices:?}");
    assert_eq!(replayed(&service, 2).moves().len(), 2);
    // With the bot's answer given, a takeback undoes both, and it is the player's move again.
    let back = says(&service, "bob", "!t takeback");
    assert!(back.text.contains("your last move and my answer are undone"), "{}", back.text);
    assert!(service.store().game(2).unwrap().unwrap().moves.is_empty());
    // The bot neither offers nor accepts draws.
    let draw = says(&service, "bob", "!t draw");
    assert!(draw.private && draw.text.contains("neither offer nor accept draws"), "{}", draw.text);
    assert!(service.store().game(2).unwrap().unwrap().draw_offer.is_none());
}

#[test]
fn other_games_never_wait_for_the_bot() {
    let db = temp_db("busy");
    let service = service(&db);
    says(&service, "alice", "!t challenge @tessera chess black level 5");
    // The bot's turn waits in the queue; a game between people elsewhere goes on meanwhile.
    assert_eq!(service.practice_queue().len(), 1);
    say_in(&service, "hall", "carol", "!t challenge @dave chess white");
    say_in(&service, "hall", "dave", "!t accept");
    let moved = say_in(&service, "hall", "carol", "e4");
    assert!(moved[0].text.contains("carol played e4"), "{moved:?}");
    let moved = say_in(&service, "hall", "dave", "e5");
    assert!(moved[0].text.contains("dave played e5"), "{moved:?}");
    assert_eq!(service.practice_queue().len(), 1, "the bot's turn is still waiting");
    // And the waiting turn is played once the worker runs.
    let (worker, mut inbox) = worker(&service);
    assert!(next_notice(&mut inbox).text.contains("tessera played"));
    worker.stop();
}

#[test]
fn bot_games_are_never_rated() {
    let db = temp_db("unrated");
    let service = service(&db);
    says(&service, "alice", "!t challenge @tessera chess white level 1");
    says(&service, "alice", "!t resign");
    assert!(service.store().rated_results().unwrap().is_empty());
    let rating = says(&service, "alice", "!t rating");
    assert!(!rating.text.contains("tessera"), "{}", rating.text);
    // A rematch keeps the level and the colours swap.
    let again = says(&service, "alice", "!t rematch");
    assert!(again.text.contains("level 1") && again.text.contains("tessera (white)"), "{}", again.text);
}

#[test]
fn the_bots_move_names_its_game_when_the_channel_has_several() {
    let db = temp_db("named");
    let service = service(&db);
    // Alone in the channel, the game needs no number.
    says(&service, "alice", "!t challenge @tessera chess black level 1");
    let alone = service.practice_turn(1, T0);
    assert!(alone[0].text.starts_with("tessera played "), "{}", alone[0].text);
    // With a game between people in the channel too, the bot's move says which game it is.
    say_in(&service, "room", "bob", "!t challenge @carol chess white");
    say_in(&service, "room", "carol", "!t accept");
    says(&service, "alice", "e5");
    let named = service.practice_turn(1, T0);
    assert!(named[0].text.starts_with("Game #1: tessera played "), "{}", named[0].text);
    // And so do the people's moves, which everyone in the channel reads.
    let moved = says(&service, "bob", "e4");
    assert!(moved.text.starts_with("Game #2: bob played e4."), "{}", moved.text);
}

#[test]
fn a_practice_board_stays_on_the_persons_side() {
    let db = temp_db("side");
    let service = service(&db);
    let top = |r: &Reply| r.diagram.as_deref().unwrap().lines().next().unwrap().to_string();
    // Alice has Black; the bot (White) opens.
    let start = says(&service, "alice", "!t challenge @tessera chess black level 1");
    assert!(top(&start).starts_with("1 "), "from Black's side: {:?}", start.diagram);
    let opening = service.practice_turn(1, T0);
    assert!(top(&opening[0].clone().into_reply()).starts_with("1 "), "{:?}", opening[0].diagram);
    // After her move the bot is to move, and the board still faces her.
    let moved = says(&service, "alice", "e5");
    assert!(moved.text.contains("tessera is thinking"), "{}", moved.text);
    assert!(top(&moved).starts_with("1 "), "from Black's side while the bot thinks: {:?}", moved.diagram);
    let board = says(&service, "alice", "!t board");
    assert!(top(&board).starts_with("1 "), "{:?}", board.diagram);
}
