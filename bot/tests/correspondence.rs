//! Correspondence play (issue 30) through the service on real databases: conditional turns (planned
//! privately, played in the opponent's turn's transaction exactly once, dropped when the game leaves
//! them), vacations and weekend-free clocks moving the deadlines.

use crate::postgres;
use crate::talk;

use std::sync::{Arc, Barrier};

use talk::{PLATFORM, T0, temp_db};
use tessera_core::service::{Incoming, Reply, Service, User};
use tessera_core::store::Store;
use tessera_store::SqliteStore;
use tessera_store::database::Database;

const DAY: i64 = 86_400;

struct Table<S: Store> {
    service: Service<S>,
    now: i64,
}

impl<S: Store> Table<S> {
    /// What `who` says in `channel` (a moderator when `who` is "mod").
    fn say_in(&self, channel: &str, who: &str, text: &str) -> Vec<Reply> {
        talk::say_at(&self.service, channel, who, who == "mod", text, self.now)
    }

    fn says_in(&self, channel: &str, who: &str, text: &str) -> String {
        let replies = self.say_in(channel, who, text);
        assert!(!replies.is_empty(), "{who}: {text} got no reply");
        talk::text(&replies)
    }

    fn says(&self, who: &str, text: &str) -> String {
        self.says_in("room", who, text)
    }

    /// A game in `room`, alice White, with `terms` (`1d`, `3d noweekend`).
    fn start(&self, variant: &str, terms: &str) -> i64 {
        let reply = self.says("alice", &format!("!t challenge @bob {variant} white {terms}"));
        assert!(reply.contains("challenges bob"), "{reply}");
        let reply = self.says("bob", "!t accept");
        reply["Game #".len()..].split_whitespace().next().unwrap().parse().unwrap()
    }

    /// alice's private answer about her lines (given in her direct-message channel).
    fn plan(&self, who: &str, text: &str) -> String {
        let replies = self.say_in(&format!("dm-{who}"), who, text);
        assert!(replies.iter().all(|r| r.secret && r.private), "conditional answers are secret: {replies:?}");
        talk::text(&replies)
    }

    fn moves(&self, game: i64) -> Vec<String> {
        self.service.store().game(game).unwrap().unwrap().moves
    }
}

fn table() -> Table<SqliteStore> {
    let db = temp_db("correspondence", &format!("{:?}", std::thread::current().id()));
    Table { service: Service::new(SqliteStore::open(&db).unwrap()), now: T0 }
}

#[test]
fn a_conditional_line_is_played_as_the_opponent_follows_it_and_only_its_owner_sees_it() {
    let t = table();
    let id = t.start("chess", "");
    t.says("alice", "e4");
    // Typed where the game is played, the opponent could read it: refused, nothing saved.
    let public = t.says("alice", &format!("!t conditional #{id} e5 Nf3"));
    assert!(public.contains("conditional turns are private") && !public.contains("Saved"), "{public}");
    let saved = t.plan("alice", &format!("!t conditional #{id} e5 Nf3 Nc6 Bb5"));
    assert!(saved.contains("Saved for game") && saved.contains("if they play e5, you answer Nf3"), "{saved}");
    assert!(saved.contains("then if Nc6, Bb5"), "{saved}");
    // Bob sees none of it: not in his listing, not in any error.
    let bobs = t.plan("bob", &format!("!t conditional #{id}"));
    assert!(bobs.contains("no conditional turns") && !bobs.contains("if they play"), "{bobs}");
    let spectator = t.plan("carol", &format!("!t conditional #{id}"));
    assert!(spectator.contains("you have no game") && !spectator.contains("Nf3"), "{spectator}");
    let reply = t.says("bob", "e5");
    assert!(
        reply.contains("bob played e5.") && reply.contains("alice answered Nf3 (a conditional turn)"),
        "{reply}"
    );
    assert!(reply.contains("bob, your move"), "{reply}");
    assert_eq!(t.moves(id), ["e2-e4", "e7-e5", "Ng1-f3"]);
    let reply = t.says("bob", "Nc6");
    assert!(reply.contains("alice answered Bb5 (a conditional turn)"), "{reply}");
    assert_eq!(t.moves(id).len(), 5);
    // The line is used up.
    assert!(t.plan("alice", &format!("!t conditional #{id}")).contains("no conditional turns"));
    assert!(t.says("bob", "a6").contains("alice, your move"), "nothing more is played for her");
}

#[test]
fn a_line_the_game_leaves_is_dropped_and_branches_answer_each_turn() {
    let t = table();
    let id = t.start("chess", "");
    t.says("alice", "e4");
    t.plan("alice", &format!("!t conditional #{id} e5 Nf3"));
    let both = t.plan("alice", &format!("!t conditional #{id} c5 Nc3"));
    assert!(both.contains("1. if they play e5") && both.contains("2. if they play c5"), "{both}");
    // Another answer to the same turn replaces the first.
    let replaced = t.plan("alice", &format!("!t conditional #{id} c5 Nf3 d6 d4"));
    assert!(replaced.contains("It replaces: if they play c5, you answer Nc3"), "{replaced}");
    let again = t.plan("alice", &format!("!t conditional #{id} c5 Nf3"));
    assert!(again.contains("already planned"), "{again}");
    let reply = t.says("bob", "c5");
    assert!(reply.contains("alice answered Nf3"), "{reply}");
    // The e5 branch went with c5; the rest of the c5 line stays.
    let left = t.plan("alice", &format!("!t conditional #{id}"));
    assert!(left.contains("if they play d6, you answer d4") && !left.contains("e5"), "{left}");
    let reply = t.says("bob", "Nc6");
    assert!(!reply.contains("conditional"), "{reply}");
    assert!(t.plan("alice", &format!("!t conditional #{id}")).contains("no conditional turns"));
    // Clear empties a tree.
    t.says("alice", "d4");
    assert!(t.plan("alice", &format!("!t conditional #{id} cxd4 Nxd4")).contains("Saved"));
    assert!(t.plan("alice", &format!("!t conditional #{id} clear")).contains("1 removed"));
    assert!(!t.says("bob", "cxd4").contains("conditional"));
}

#[test]
fn a_bad_line_gets_a_private_reason_and_saves_nothing() {
    let t = table();
    let id = t.start("chess", "");
    t.says("alice", "e4");
    let cases = [
        (format!("!t conditional #{id} e5 Ke3"), "turn 2 of the line, your `Ke3`"),
        (format!("!t conditional #{id} e4"), "cannot be played"),
        (format!("!t conditional #{id} e5 Nf3 Nc6"), "ends with your answer"),
        (format!("!t conditional #{id} Zz9 Nf3"), "cannot"),
        (format!("!t conditional #{id} e5 Nf3 1-0"), "only turns"),
    ];
    for (text, why) in &cases {
        let reply = t.plan("alice", text);
        assert!(reply.contains(why), "{text}: {reply}");
    }
    // The player to move plans nothing: they move.
    let reply = t.plan("bob", &format!("!t conditional #{id} Nf3 e5"));
    assert!(reply.contains("it is your turn"), "{reply}");
    assert!(t.plan("alice", &format!("!t conditional #{id}")).contains("no conditional turns"));
    // 44 turns, none of them repeating a position five times.
    let long = format!(
        "!t conditional #{id} a6 a3 a5 a4 b6 b3 b5 b4 c6 c3 c5 c4 d6 d3 d5 d4 g6 g3 g5 g4 h6 h3 h5 h4 Nc6 Nc3 \
         Nf6 Nf3 Rh7 Rh2 Ra7 Ra2 Rh8 Rh1 Ra8 Ra1 Rh7 Rh2 Ra7 Ra2 Rh8 Rh1"
    );
    assert!(t.plan("alice", &long).contains("at most 40 turns"));
    assert!(t.says("bob", "e5").contains("alice, your move"), "nothing was saved");
}

#[test]
fn compound_turns_and_the_losing_turn_guard() {
    let t = table();
    let id = t.start("hans38-postal-plus", "");
    t.says("alice", "@@f3 !");
    // Ng1-f3 alone leaves out the square actions the turn could still take: asked first.
    let asked = t.plan("alice", &format!("!t conditional #{id} @@f6 Ng1-f3"));
    assert!(asked.starts_with("Not saved yet") && asked.contains("one more action"), "{asked}");
    assert!(t.plan("alice", &format!("!t conditional #{id}")).contains("no conditional turns"));
    // Confirmed with ` !`, it is saved; the whole turn then replaces it.
    let saved = t.plan("alice", &format!("!t conditional #{id} @@f6 Ng1-f3 !"));
    assert!(saved.contains("Saved"), "{saved}");
    let saved = t.plan("alice", &format!("!t conditional #{id} @@f6 Ng1-f3 @g1-g3 @@e4"));
    assert!(saved.contains("Saved") && saved.contains("It replaces"), "{saved}");
    let reply = t.says("bob", "@@f6 !");
    assert!(reply.contains("(a conditional turn)"), "{reply}");
    let answered = &t.moves(id)[2];
    assert!(
        answered.starts_with("Ng1-f3") && answered.contains("@g1-g3") && answered.contains("@@e4"),
        "{answered}"
    );
}

#[test]
fn vacation_moves_the_deadlines_within_the_allowance() {
    let mut t = table();
    let id = t.start("chess", "1d");
    t.says("alice", "e4");
    let reply = t.says_in("elsewhere", "bob", "!t vacation 3d");
    assert!(reply.contains("stand still until"), "{reply}");
    // Alice is told, in the game's channel.
    let notices = t.service.tick(t.now).unwrap();
    assert!(
        notices
            .iter()
            .any(|n| n.channel == "room" && n.text.contains("bob is on vacation") && n.notify == ["alice"]),
        "{notices:?}"
    );
    assert!(t.says_in("elsewhere", "bob", "!t vacation 2d").contains("on vacation already"));
    // The day of clock after e4 runs once the vacation is over: 4 days in all.
    t.now += 4 * DAY - 60;
    let notices = t.service.tick(t.now).unwrap();
    assert!(!notices.iter().any(|n| n.text.contains("ran out of time")), "{notices:?}");
    assert!(t.says("bob", "!t board").contains("1m left"));
    t.now += 120;
    let notices = t.service.tick(t.now).unwrap();
    assert!(notices.iter().any(|n| n.text.contains("bob ran out of time")), "{notices:?}");
    assert_eq!(t.service.store().game(id).unwrap().unwrap().result.as_deref(), Some("1-0"));
    // The allowance: 3 of 30 days used; 28 more is too many, and a moderator may raise it.
    let refused = t.says("bob", "!t vacation 28d");
    assert!(refused.contains("more than your allowance") && refused.contains("at most 27 more"), "{refused}");
    assert!(t.says("bob", "!t channel vacation 45").contains("only the channel's moderators"));
    assert!(t.says("mod", "!t channel vacation 45").contains("vacation 45 days"));
    assert!(t.says("bob", "!t vacation 28d").contains("stand still until"));
}

#[test]
fn a_vacation_ended_early_gives_the_clock_back() {
    let mut t = table();
    let id = t.start("chess", "1d");
    t.says("alice", "e4");
    assert!(t.says("bob", "!t vacation off").contains("not on vacation"));
    t.says("bob", "!t vacation 10d");
    t.now += DAY;
    let back = t.says("bob", "!t vacation off");
    assert!(back.contains("Welcome back") && back.contains("1 day"), "{back}");
    // One day of vacation: the deadline is two days after e4.
    t.now += DAY - 60;
    assert!(t.service.tick(t.now).unwrap().iter().all(|n| !n.text.contains("ran out")));
    t.now += 120;
    assert!(t.service.tick(t.now).unwrap().iter().any(|n| n.text.contains("bob ran out of time")));
    assert!(t.service.store().game(id).unwrap().unwrap().result.is_some());
    let shown = t.says("bob", "!t vacation");
    assert!(shown.contains("used 1 day of 30"), "{shown}");
}

#[test]
fn weekends_do_not_count_on_a_weekend_free_clock() {
    let mut t = table();
    // T0 is Friday 2027-01-15 08:00 UTC.
    let reply = t.says("alice", "!t challenge @bob chess white 1d noweekend");
    assert!(reply.contains("1 day per move, weekends off"), "{reply}");
    t.says("bob", "!t accept");
    // Friday 20:00 UTC: four hours run before the weekend, twenty on Monday, Monday 20:00.
    t.now = T0 + 12 * 3600;
    t.says("alice", "e4");
    t.now = T0 + DAY + 3600;
    let board = t.says("bob", "!t board");
    assert!(board.contains("2d 11h left"), "on Saturday the clock stands still: {board}");
    // In Tokyo, Friday 20:00 UTC is Saturday 05:00: the day runs from Monday 00:00 there
    // (Sunday 15:00 UTC), to Monday 15:00 UTC.
    assert!(t.says("bob", "!t settings tz Asia/Tokyo").contains("Saved: tz Asia/Tokyo"));
    assert!(t.says("bob", "!t settings tz Mars/Olympus").contains("by its name"));
    let board = t.says("bob", "!t board");
    assert!(board.contains("2d 6h left"), "{board}");
    t.now = T0 + 3 * DAY + 7 * 3600 - 60;
    assert!(t.service.tick(t.now).unwrap().iter().all(|n| !n.text.contains("ran out")));
    t.now = T0 + 3 * DAY + 7 * 3600 + 60;
    assert!(t.service.tick(t.now).unwrap().iter().any(|n| n.text.contains("bob ran out of time")));
}

/// Two processes store the opponent's turn at once: the conditional answer is played once, by
/// whichever stored the turn, and a line given meanwhile is either played or kept, never lost.
fn race_conditional_answers(open: impl Fn() -> Box<dyn Store>) {
    for round in 0..6 {
        let services: Vec<Service<Box<dyn Store>>> = (0..2).map(|_| Service::new(open())).collect();
        let t = Table { service: Service::new(open()), now: T0 };
        let room = format!("race{round}");
        let say = |s: &Service<Box<dyn Store>>, channel: &str, who: &str, text: &str| {
            let author = User::new(who, who);
            let mentions: Vec<User> = text
                .split_whitespace()
                .filter_map(|w| w.strip_prefix('@'))
                .map(|n| User::new(n, n))
                .collect();
            let msg = Incoming {
                platform: PLATFORM,
                channel,
                thread: None,
                author: &author,
                is_admin: false,
                text,
                mentions: &mentions,
                now: T0,
            };
            talk::text(&s.handle(&msg))
        };
        say(&t.service, &room, "alice", "!t challenge @bob chess white");
        let started = say(&t.service, &room, "bob", "!t accept");
        let id: i64 = started["Game #".len()..].split_whitespace().next().unwrap().parse().unwrap();
        say(&t.service, &room, "alice", "e4");
        say(&t.service, "dm", "alice", &format!("!t conditional #{id} e5 Nf3"));
        let barrier = Arc::new(Barrier::new(3));
        let answers: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = services
                .iter()
                .map(|s| {
                    let barrier = barrier.clone();
                    let room = &room;
                    scope.spawn(move || {
                        barrier.wait();
                        say(s, room, "bob", "e5")
                    })
                })
                .collect();
            // Meanwhile alice plans another branch.
            let line = {
                let (barrier, t, say) = (barrier.clone(), &t, &say);
                scope.spawn(move || {
                    barrier.wait();
                    say(&t.service, "dm", "alice", &format!("!t conditional #{id} c5 Nc3"))
                })
            };
            let mut answers: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            answers.push(line.join().unwrap());
            answers
        });
        let played = answers.iter().filter(|a| a.contains("alice answered Nf3 (a conditional turn)")).count();
        assert_eq!(played, 1, "round {round}: {answers:?}");
        assert_eq!(t.moves(id), ["e2-e4", "e7-e5", "Ng1-f3"], "round {round}: {answers:?}");
        assert!(answers.iter().all(|a| !a.contains("went wrong")), "{answers:?}");
        // The line given in the race: saved before the turn (and dropped with it, bob played e5),
        // or saved after the answer (alive, for bob's next turn), or refused as the game moved on.
        let listed = say(&t.service, "dm", "alice", &format!("!t conditional #{id}"));
        let kept = listed.contains("if they play c5, you answer Nc3");
        assert!(kept || listed.contains("no conditional turns"), "{listed}");
        assert!(!kept || answers[2].contains("Saved"), "{answers:?} {listed}");
    }
}

#[test]
fn a_conditional_answer_is_played_once_when_two_processes_store_the_turn() {
    let db = temp_db("correspondence", "race-sqlite");
    race_conditional_answers(|| Box::new(SqliteStore::open(&db).unwrap()));
}

#[test]
fn a_conditional_answer_is_played_once_on_postgres_too() {
    let Some(cluster) = postgres::Cluster::start_or_skip(
        "correspondence::a_conditional_answer_is_played_once_on_postgres_too",
    ) else {
        return;
    };
    let address = Database::parse(&cluster.database("conditional"));
    race_conditional_answers(|| Box::new(tessera_store::open(&address).unwrap()));
}
