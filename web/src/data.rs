//! What the pages read, and how often: the service behind a small object-safe trait (so the
//! handlers are not generic over the store), each read on a blocking thread, and each page's data
//! kept for a second (longer when it is slow to build) so that any number of visitors and live
//! streams cost one build. Every read of the store passes one small gate ([`Gate`]): in chat mode
//! the web shares the bot's connections, and no amount of web traffic may take them all.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tessera_core::model::{GameId, TournamentId};
use tessera_core::public::{PublicGame, PublicTournament, Publication};
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_render::RenderOptions;
use tokio::sync::{Semaphore, watch};

use crate::WebOptions;
use crate::downloads::Downloads;
use crate::events::Watchers;
use crate::guard::Limiter;
use crate::images::Images;

/// How often a watched page's data is read for its live stream.
pub const FRESH: Duration = Duration::from_secs(1);
/// How long past its freshness a tournament's data may still be served while it is rebuilt.
const STALE: Duration = Duration::from_secs(30);
/// Most entries a [`Fresh`] keeps before it drops those gone stale.
const MAX_KEPT: usize = 4_096;
/// A value is kept this many times as long as it took to build (capped at [`SLOW_KEEP`]): a page
/// read again and again, by visitors or its live stream, costs at most some 5% of a core.
const KEEP_PER_BUILD: u32 = 20;
const SLOW_KEEP: Duration = Duration::from_secs(5);
/// Store reads the web runs at once. The bot's PostgreSQL pool holds 16 connections and SQLite
/// one: the chat always finds the store free past these.
pub const STORE_READS: usize = 4;

/// What the web face asks of the service: each method a read of the store. (Public so that a test
/// can stand between the pages and the service; [`crate::router_over`].)
pub trait Pages: Send + Sync {
    fn publication(&self, token: &str) -> Result<Option<Publication>, String>;
    fn tournament(&self, id: TournamentId) -> Result<PublicTournament, String>;
    fn game(&self, id: GameId) -> Result<Option<PublicGame>, String>;
    /// The tournament a game belongs to (one indexed look).
    fn game_tournament(&self, game: GameId) -> Result<Option<TournamentId>, String>;
    fn tournament_pgn(&self, id: TournamentId) -> Result<String, String>;
    fn trf(&self, id: TournamentId) -> Result<String, String>;
    fn render_options(&self) -> RenderOptions;
}

impl<S: Store + Send + Sync> Pages for Service<S> {
    fn publication(&self, token: &str) -> Result<Option<Publication>, String> {
        Service::publication(self, token).map_err(|e| format!("{e:#}"))
    }
    fn tournament(&self, id: TournamentId) -> Result<PublicTournament, String> {
        self.public_tournament(id)
    }
    fn game(&self, id: GameId) -> Result<Option<PublicGame>, String> {
        self.public_game(id)
    }
    fn game_tournament(&self, game: GameId) -> Result<Option<TournamentId>, String> {
        self.public_game_tournament(game)
    }
    fn tournament_pgn(&self, id: TournamentId) -> Result<String, String> {
        Service::tournament_pgn(self, id)
    }
    fn trf(&self, id: TournamentId) -> Result<String, String> {
        self.export_trf(id)
    }
    fn render_options(&self) -> RenderOptions {
        // The page writes the players, the clock and the result itself: the picture is the board.
        RenderOptions { caption: None, coordinates: true, flip: false, ..self.render.clone() }
    }
}

/// Everything the handlers share.
pub struct App {
    pub pages: Arc<dyn Pages>,
    pub opts: WebOptions,
    pub render: RenderOptions,
    pub addresses: Fresh<String, Option<Publication>>,
    pub tournaments: Fresh<TournamentId, Arc<PublicTournament>>,
    pub games: Fresh<GameId, Option<Arc<PublicGame>>>,
    pub images: Images,
    /// The tournaments' downloads, built once per change of their data.
    pub downloads: Downloads,
    /// Every store read passes here, on its blocking thread.
    pub reads: Arc<Gate>,
    pub watchers: Watchers,
    /// Live streams open per client address.
    pub client_streams: Mutex<HashMap<IpAddr, usize>>,
    pub limiter: Limiter,
    /// Requests being handled (not counting the streams they opened).
    pub work: Semaphore,
    /// Live streams open.
    pub streams: Arc<Semaphore>,
    /// Turns true at shutdown: every live stream ends.
    pub stopped: watch::Receiver<bool>,
    /// Keeps `stopped` from closing where nobody will ever stop the router (tests, [`crate::router`]).
    _stop: Option<watch::Sender<bool>>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("opts", &self.opts).finish_non_exhaustive()
    }
}

impl App {
    pub fn new(
        pages: Arc<dyn Pages>,
        opts: WebOptions,
        stopped: watch::Receiver<bool>,
        stop: Option<watch::Sender<bool>>,
    ) -> Arc<App> {
        let render = pages.render_options();
        Arc::new(App {
            pages,
            render,
            limiter: Limiter::new(opts.rate),
            work: Semaphore::new(opts.max_concurrent.max(1)),
            streams: Arc::new(Semaphore::new(opts.max_streams)),
            addresses: Fresh::new(opts.keep_data),
            // A big tournament's data takes a while to build (some 100 ms at 4,000 players): once
            // built, visitors get it at once while it is rebuilt, at most a few seconds old.
            tournaments: Fresh::serving_stale(opts.keep_data, STALE),
            games: Fresh::new(opts.keep_data),
            opts,
            images: Images::default(),
            downloads: Downloads::default(),
            reads: Arc::new(Gate::new(STORE_READS)),
            watchers: Watchers::default(),
            client_streams: Mutex::new(HashMap::new()),
            stopped,
            _stop: stop,
        })
    }

    /// What a public address shows, `None` for an unknown or withdrawn one.
    pub async fn address(&self, token: &str) -> Result<Option<Publication>, Failure> {
        if !tessera_core::public::could_be_address(token) {
            return Ok(None);
        }
        let owned = token.to_string();
        self.addresses.get(token.to_string(), self.store_read(move |pages| pages.publication(&owned))).await
    }

    pub async fn tournament(&self, id: TournamentId) -> Result<Arc<PublicTournament>, Failure> {
        self.tournaments.get(id, self.store_read(move |pages| pages.tournament(id).map(Arc::new))).await
    }

    pub async fn game(&self, id: GameId) -> Result<Option<Arc<PublicGame>>, Failure> {
        self.games.get(id, self.store_read(move |pages| pages.game(id).map(|g| g.map(Arc::new)))).await
    }

    /// `read` as a job for a blocking thread, which first passes the gate of store reads: a read
    /// abandoned by a request that timed out still counts until it is done.
    pub fn store_read<T>(
        &self,
        read: impl FnOnce(&dyn Pages) -> Result<T, String> + Send + 'static,
    ) -> impl FnOnce() -> Result<T, String> + Send + 'static {
        let (pages, gate) = (self.pages.clone(), self.reads.clone());
        move || gate.pass(|| read(&*pages))
    }
}

/// A counting semaphore for blocking threads: at most `permits` jobs inside at once.
#[derive(Debug)]
pub struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Gate {
    pub fn new(permits: usize) -> Gate {
        Gate { free: Mutex::new(permits.max(1)), freed: Condvar::new() }
    }

    /// Runs `job` once a permit is free, blocking the thread until then.
    pub fn pass<T>(&self, job: impl FnOnce() -> T) -> T {
        {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            while *free == 0 {
                free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
            *free -= 1;
        }
        // Given back however `job` ends, a panic included.
        struct Permit<'a>(&'a Gate);
        impl Drop for Permit<'_> {
            fn drop(&mut self) {
                *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                self.0.freed.notify_one();
            }
        }
        let _permit = Permit(self);
        job()
    }
}

/// A read that failed inside: logged, answered 500 without details.
#[derive(Debug)]
pub struct Failure(pub String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        tracing::error!(error = %self.0, "a web page could not be read");
        (StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong; try again in a moment.\n").into_response()
    }
}

/// `read` on a blocking thread.
pub async fn blocking<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, Failure> {
    match tokio::task::spawn_blocking(read).await {
        Ok(result) => result.map_err(Failure),
        Err(e) => Err(Failure(format!("a read panicked or was cancelled: {e}"))),
    }
}

/// One key's value, when it was built and how long that took, and whether a rebuild is under way
/// in the background.
struct Kept<V> {
    value: tokio::sync::Mutex<Option<Built<V>>>,
    rebuilding: AtomicBool,
}

struct Built<V> {
    at: Instant,
    took: Duration,
    value: V,
}

impl<V> Built<V> {
    /// How long this value is served as fresh: `keep`, or longer where it was slow to build.
    fn fresh_for(&self, keep: Duration) -> Duration {
        keep.max((self.took * KEEP_PER_BUILD).min(SLOW_KEEP))
    }
}

/// `build` on a blocking thread, and how long it took.
async fn timed_build<V: Send + 'static>(
    build: impl FnOnce() -> Result<V, String> + Send + 'static,
) -> Result<Built<V>, Failure> {
    let started = Instant::now();
    let value = blocking(build).await?;
    Ok(Built { at: Instant::now(), took: started.elapsed(), value })
}

type Slot<V> = Arc<Kept<V>>;

/// Values kept for a while by key ([`crate::WebOptions::keep_data`], a second, or 20 times as long
/// as the value took to build, up to 5 s). Whoever finds a
/// value missing builds it while the others asking for the same key wait for that build: a key is
/// built at most once in that while, however many ask. One that serves stale values answers a
/// value gone stale at once (if it is not older than `stale`) and rebuilds it in the background,
/// so that only the first visitor of a page waits for its data.
pub struct Fresh<K, V> {
    keep: Duration,
    stale: Duration,
    slots: Mutex<HashMap<K, Slot<V>>>,
}

impl<K, V> Fresh<K, V> {
    /// Values never older than `keep`.
    pub fn new(keep: Duration) -> Fresh<K, V> {
        Fresh { keep, stale: Duration::ZERO, slots: Mutex::new(HashMap::new()) }
    }

    /// Values fresh for `keep`, then served while rebuilt for up to `stale` more.
    pub fn serving_stale(keep: Duration, stale: Duration) -> Fresh<K, V> {
        Fresh { keep, stale, slots: Mutex::new(HashMap::new()) }
    }
}

impl<K: Eq + Hash + Clone, V: Clone + Send + 'static> Fresh<K, V> {
    pub async fn get(
        &self,
        key: K,
        build: impl FnOnce() -> Result<V, String> + Send + 'static,
    ) -> Result<V, Failure> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            if slots.len() >= MAX_KEPT {
                // Keep only what is in use or still of use; the rest is rebuilt when asked again.
                slots.retain(|_, slot| {
                    Arc::strong_count(slot) > 1
                        || slot.value.try_lock().is_ok_and(|v| {
                            v.as_ref().is_some_and(|b| b.at.elapsed() < b.fresh_for(self.keep) + self.stale)
                        })
                });
            }
            slots
                .entry(key)
                .or_insert_with(|| {
                    Arc::new(Kept {
                        value: tokio::sync::Mutex::new(None),
                        rebuilding: AtomicBool::new(false),
                    })
                })
                .clone()
        };
        let mut kept = slot.value.lock().await;
        match kept.as_ref() {
            Some(b) if b.at.elapsed() < b.fresh_for(self.keep) => return Ok(b.value.clone()),
            Some(b) if b.at.elapsed() < b.fresh_for(self.keep) + self.stale => {
                let value = b.value.clone();
                drop(kept);
                if !slot.rebuilding.swap(true, Ordering::AcqRel) {
                    let slot = slot.clone();
                    tokio::spawn(async move {
                        match timed_build(build).await {
                            Ok(fresh) => *slot.value.lock().await = Some(fresh),
                            Err(Failure(e)) => {
                                tracing::warn!(error = %e, "a page's data could not be rebuilt")
                            }
                        }
                        slot.rebuilding.store(false, Ordering::Release);
                    });
                }
                return Ok(value);
            }
            _ => {}
        }
        let built = timed_build(build).await?;
        let value = built.value.clone();
        *kept = Some(built);
        Ok(value)
    }

    /// How long `key`'s value is kept as it stands (`keep` for one not built yet): how often a
    /// live stream's poller need read it.
    pub fn fresh_for(&self, key: &K) -> Duration {
        let slot = self.slots.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned();
        slot.and_then(|slot| slot.value.try_lock().ok()?.as_ref().map(|b| b.fresh_for(self.keep)))
            .unwrap_or(self.keep)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.slots.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_key_asked_by_many_at_once_is_built_once() {
        let fresh: Arc<Fresh<u32, u32>> = Arc::new(Fresh::new(FRESH));
        let builds = Arc::new(AtomicUsize::new(0));
        let mut asks = Vec::new();
        for _ in 0..20 {
            let (fresh, builds) = (fresh.clone(), builds.clone());
            asks.push(tokio::spawn(async move {
                fresh
                    .get(7, move || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(50));
                        Ok(49)
                    })
                    .await
                    .unwrap()
            }));
        }
        for ask in asks {
            assert_eq!(ask.await.unwrap(), 49);
        }
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        // Stale once its time is up (a second, or longer where the build was slow, as a loaded
        // machine makes this 50 ms build): built again.
        tokio::time::sleep(fresh.fresh_for(&7) + Duration::from_millis(50)).await;
        let b = builds.clone();
        fresh.get(7, move || Ok(b.fetch_add(1, Ordering::SeqCst) as u32)).await.unwrap();
        assert_eq!(builds.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stale_value_is_served_while_it_is_rebuilt() {
        let fresh: Arc<Fresh<u32, u32>> =
            Arc::new(Fresh::serving_stale(Duration::from_millis(100), Duration::from_secs(5)));
        assert_eq!(fresh.get(1, || Ok(1)).await.unwrap(), 1);
        tokio::time::sleep(Duration::from_millis(150)).await;
        let started = Instant::now();
        let slow = || {
            std::thread::sleep(Duration::from_millis(300));
            Ok(2)
        };
        assert_eq!(fresh.get(1, slow).await.unwrap(), 1, "the stale value, at once");
        assert!(started.elapsed() < Duration::from_millis(200));
        assert_eq!(fresh.get(1, || Ok(3)).await.unwrap(), 1, "one rebuild at a time");
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(fresh.get(1, || Ok(4)).await.unwrap(), 2, "the rebuilt value");
        // Too old to serve: built while the asker waits.
        let strict: Fresh<u32, u32> = Fresh::new(Duration::from_millis(50));
        strict.get(1, || Ok(1)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(strict.get(1, || Ok(5)).await.unwrap(), 5);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_value_slow_to_build_is_kept_longer() {
        let fresh: Fresh<u32, u32> = Fresh::new(Duration::from_millis(100));
        fresh.get(1, || Ok(1)).await.unwrap();
        assert_eq!(fresh.fresh_for(&1), Duration::from_millis(100), "a quick build: `keep`");
        let slow = || {
            std::thread::sleep(Duration::from_millis(60));
            Ok(2)
        };
        fresh.get(2, slow).await.unwrap();
        let kept = fresh.fresh_for(&2);
        assert!(kept >= Duration::from_millis(1_200) && kept <= SLOW_KEEP, "{kept:?}");
        // Past `keep` but within 20 builds' time: not built again.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(fresh.get(2, || Ok(3)).await.unwrap(), 2);
        assert_eq!(fresh.get(1, || Ok(4)).await.unwrap(), 4);
        // However slow, kept at most a few seconds.
        let slower = || {
            std::thread::sleep(Duration::from_millis(400));
            Ok(5)
        };
        fresh.get(5, slower).await.unwrap();
        assert_eq!(fresh.fresh_for(&5), SLOW_KEEP);
    }

    #[test]
    fn the_gate_lets_so_many_through_at_once() {
        let gate = Arc::new(Gate::new(3));
        let (inside, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let threads: Vec<_> = (0..12)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    gate.pass(|| {
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(30));
                        inside.fetch_sub(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 3);
        // A job that panics gives its permit back.
        let g = gate.clone();
        assert!(std::thread::spawn(move || g.pass(|| panic!("boom"))).join().is_err());
        for _ in 0..3 {
            gate.pass(|| ());
        }
        assert_eq!(*gate.free.lock().unwrap(), 3);
    }

    #[tokio::test]
    async fn it_keeps_a_bounded_number_of_keys() {
        let fresh: Fresh<usize, usize> = Fresh::new(FRESH);
        for k in 0..MAX_KEPT + 10 {
            fresh.get(k, move || Ok(k)).await.unwrap();
        }
        // All still fresh: nothing dropped yet, but never more than one round over the bound.
        assert!(fresh.len() <= MAX_KEPT + 10);
        tokio::time::sleep(FRESH + Duration::from_millis(50)).await;
        fresh.get(usize::MAX, || Ok(0)).await.unwrap();
        assert_eq!(fresh.len(), 1);
    }
}
