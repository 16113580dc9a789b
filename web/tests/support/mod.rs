//! A club playing on a service over an in-memory SQLite store, as chat users do, and the web
//! router over it driven request by request.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use tessera_core::model::{GameId, PairingRow, TournamentId};
use tessera_core::service::{Incoming, Service, User};
use tessera_core::store::{Store, TournamentStore};
use tessera_store::SqliteStore;
use tower::ServiceExt;

pub const T0: i64 = 1_800_000_000;

pub struct Club {
    pub service: Arc<Service<SqliteStore>>,
    now: Cell<i64>,
    /// Each user's display name: a message carries it, and the bot keeps the latest.
    names: RefCell<HashMap<String, String>>,
}

impl Default for Club {
    fn default() -> Self {
        Club::new()
    }
}

impl Club {
    pub fn new() -> Club {
        Club::over(Service::new(SqliteStore::in_memory().unwrap()))
    }

    /// A club on a service set up by the test.
    pub fn over(service: Service<SqliteStore>) -> Club {
        Club { service: Arc::new(service), now: Cell::new(T0), names: RefCell::default() }
    }

    /// A casual game in the club's channel between `white` and `black` (ids, named as they are),
    /// played through `moves`: its number.
    pub fn game_between(&self, white: &str, black: &str, moves: &[&str]) -> GameId {
        let store = self.service.store();
        let w = store.player("test", white, white).unwrap().id;
        let b = store.player("test", black, black).unwrap().id;
        let start = tessera_rules::Position::start(tessera_rules::Variant::CHESS).fen();
        let id = store
            .create_game(&tessera_core::model::NewGame {
                platform: "test",
                channel: "club",
                variant: "chess",
                start_fen: &start,
                white: w,
                black: b,
                days_per_move: None,
                rated: false,
                now: self.now.get(),
                bot: None,
                weekends_off: false,
                definition: None,
            })
            .unwrap();
        self.play(id, moves);
        id
    }

    /// What the user `id`, shown as `name`, writes in the club's channel: the replies' text.
    pub fn say_named(&self, id: &str, name: &str, text: &str) -> String {
        self.now.set(self.now.get() + 60);
        self.names.borrow_mut().insert(id.to_string(), name.to_string());
        let author = User::new(id, name);
        let replies = self.service.handle(&Incoming {
            platform: "test",
            channel: "club",
            author: &author,
            is_admin: false,
            text,
            mentions: &[],
            now: self.now.get(),
            thread: None,
        });
        replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// What `id` writes, under the name they last wrote with (their id at first).
    pub fn say(&self, id: &str, text: &str) -> String {
        let name = self.names.borrow().get(id).cloned().unwrap_or_else(|| id.to_string());
        self.say_named(id, &name, text)
    }

    /// A tournament made by `org` with `create` (the words after `!t tournament create`),
    /// joined by `players` (id, name), started: its number.
    pub fn tournament(&self, create: &str, players: &[(&str, &str)]) -> TournamentId {
        let created = self.say("org", &format!("!t tournament create {create}"));
        let after = created.split("Tournament t").nth(1).unwrap_or_else(|| panic!("{created}"));
        let id = after.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        for (pid, name) in players {
            let joined = self.say_named(pid, name, &format!("!t tournament join t{id}"));
            assert!(joined.contains("joins"), "{joined}");
        }
        let started = self.say("org", &format!("!t tournament start t{id}"));
        assert!(started.contains("round 1"), "{started}");
        id
    }

    /// Publishes tournament `id`: its token.
    pub fn publish(&self, id: TournamentId) -> String {
        token(&self.say("org", &format!("!t tournament publish t{id}")), "/t/")
    }

    pub fn pairings(&self, id: TournamentId) -> Vec<PairingRow> {
        self.service.store().pairings(id).unwrap()
    }

    /// The games of tournament `id`, in round and board order.
    pub fn games(&self, id: TournamentId) -> Vec<GameId> {
        let mut rows = self.pairings(id);
        rows.sort_by_key(|p| (p.round, p.board, p.leg));
        rows.iter().filter_map(|p| p.game).collect()
    }

    /// The user ids of a game's White and Black.
    pub fn players_of(&self, game: GameId) -> (String, String) {
        let store = self.service.store();
        let row = store.game(game).unwrap().unwrap();
        let id = |p| store.player_by_id(p).unwrap().unwrap().user_id;
        (id(row.white), id(row.black))
    }

    /// Plays `moves` in `game`, White first.
    pub fn play(&self, game: GameId, moves: &[&str]) {
        let (white, black) = self.players_of(game);
        for (i, mv) in moves.iter().enumerate() {
            let who = if i % 2 == 0 { &white } else { &black };
            let said = self.say(who, &format!("!t move {mv} #{game}"));
            assert!(!said.contains("cannot") && !said.contains("not your"), "{mv}: {said}");
        }
    }
}

/// The token after `prefix` in a reply.
pub fn token(reply: &str, prefix: &str) -> String {
    let after = reply.split(prefix).nth(1).unwrap_or_else(|| panic!("no {prefix} in {reply}"));
    after.chars().take_while(|c| c.is_ascii_alphanumeric()).collect()
}

/// A response with its body read.
pub struct Got {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Got {
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub async fn read(response: Response<Body>) -> Got {
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 16 << 20).await.unwrap().to_vec();
    Got { status, headers, body }
}

pub async fn send(router: &Router, request: Request<Body>) -> Got {
    read(router.clone().oneshot(request).await.unwrap()).await
}

pub async fn get(router: &Router, path: &str) -> Got {
    send(router, Request::get(path).body(Body::empty()).unwrap()).await
}

/// The service's pages, each read counted by name, timed by how many run at once, and slowed by
/// `delay`; `alter` may change the tournament's and game's data as they pass.
pub struct Spy {
    pub inner: Arc<Service<SqliteStore>>,
    pub delay: std::time::Duration,
    pub calls: std::sync::Mutex<HashMap<&'static str, usize>>,
    pub running: std::sync::atomic::AtomicUsize,
    pub most_running: std::sync::atomic::AtomicUsize,
    pub alter_tournament: Option<fn(&mut PublicTournament)>,
    pub alter_game: Option<fn(&mut PublicGame)>,
}

use std::sync::atomic::Ordering;
use tessera_core::public::{PublicGame, PublicTournament, Publication};

impl Spy {
    pub fn new(service: &Arc<Service<SqliteStore>>) -> Spy {
        Spy {
            inner: service.clone(),
            delay: std::time::Duration::ZERO,
            calls: Default::default(),
            running: Default::default(),
            most_running: Default::default(),
            alter_tournament: None,
            alter_game: None,
        }
    }

    pub fn calls(&self, what: &str) -> usize {
        self.calls.lock().unwrap().get(what).copied().unwrap_or(0)
    }

    pub fn most_running(&self) -> usize {
        self.most_running.load(Ordering::SeqCst)
    }

    fn read<T>(&self, what: &'static str, read: impl FnOnce() -> T) -> T {
        *self.calls.lock().unwrap().entry(what).or_default() += 1;
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_running.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(self.delay);
        let value = read();
        self.running.fetch_sub(1, Ordering::SeqCst);
        value
    }
}

impl tessera_web::Pages for Spy {
    fn publication(&self, token: &str) -> Result<Option<Publication>, String> {
        self.read("publication", || tessera_web::Pages::publication(&*self.inner, token))
    }
    fn tournament(&self, id: TournamentId) -> Result<PublicTournament, String> {
        let mut t = self.read("tournament", || tessera_web::Pages::tournament(&*self.inner, id))?;
        if let Some(alter) = self.alter_tournament {
            alter(&mut t);
        }
        Ok(t)
    }
    fn game(&self, id: GameId) -> Result<Option<PublicGame>, String> {
        let mut g = self.read("game", || tessera_web::Pages::game(&*self.inner, id))?;
        if let (Some(alter), Some(g)) = (self.alter_game, g.as_mut()) {
            alter(g);
        }
        Ok(g)
    }
    fn game_tournament(&self, game: GameId) -> Result<Option<TournamentId>, String> {
        self.read("game_tournament", || tessera_web::Pages::game_tournament(&*self.inner, game))
    }
    fn tournament_pgn(&self, id: TournamentId) -> Result<String, String> {
        self.read("tournament_pgn", || tessera_web::Pages::tournament_pgn(&*self.inner, id))
    }
    fn trf(&self, id: TournamentId) -> Result<String, String> {
        self.read("trf", || tessera_web::Pages::trf(&*self.inner, id))
    }
    fn render_options(&self) -> tessera_render::RenderOptions {
        tessera_web::Pages::render_options(&*self.inner)
    }
}
