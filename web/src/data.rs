//! What the pages read, and how often: the service behind a small object-safe trait (so the
//! handlers are not generic over the store), each read on a blocking thread, and each page's data
//! kept for a second so that any number of visitors and live streams cost one build.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
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
use crate::events::Watchers;
use crate::guard::Limiter;
use crate::images::Images;

/// How long a page's data, or what an address shows, is kept before it is read again.
pub const FRESH: Duration = Duration::from_secs(1);
/// Most entries a [`Fresh`] keeps before it drops those gone stale.
const MAX_KEPT: usize = 4_096;

/// What the web face asks of the service.
pub trait Pages: Send + Sync {
    fn publication(&self, token: &str) -> Result<Option<Publication>, String>;
    fn tournament(&self, id: TournamentId) -> Result<PublicTournament, String>;
    fn game(&self, id: GameId) -> Result<Option<PublicGame>, String>;
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
    pub watchers: Watchers,
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
    pub fn new<S: Store + Send + Sync + 'static>(
        service: Arc<Service<S>>,
        opts: WebOptions,
        stopped: watch::Receiver<bool>,
        stop: Option<watch::Sender<bool>>,
    ) -> Arc<App> {
        let render = Pages::render_options(&*service);
        Arc::new(App {
            pages: service,
            render,
            limiter: Limiter::new(opts.rate),
            work: Semaphore::new(opts.max_concurrent.max(1)),
            streams: Arc::new(Semaphore::new(opts.max_streams)),
            opts,
            addresses: Fresh::default(),
            tournaments: Fresh::default(),
            games: Fresh::default(),
            images: Images::default(),
            watchers: Watchers::default(),
            stopped,
            _stop: stop,
        })
    }

    /// What a public address shows, `None` for an unknown or withdrawn one.
    pub async fn address(&self, token: &str) -> Result<Option<Publication>, Failure> {
        // Our addresses are letters and digits; anything else is not looked up (nor kept).
        if token.is_empty() || token.len() > 64 || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        let pages = self.pages.clone();
        let owned = token.to_string();
        self.addresses.get(token.to_string(), move || pages.publication(&owned)).await
    }

    pub async fn tournament(&self, id: TournamentId) -> Result<Arc<PublicTournament>, Failure> {
        let pages = self.pages.clone();
        self.tournaments.get(id, move || pages.tournament(id).map(Arc::new)).await
    }

    pub async fn game(&self, id: GameId) -> Result<Option<Arc<PublicGame>>, Failure> {
        let pages = self.pages.clone();
        self.games.get(id, move || pages.game(id).map(|g| g.map(Arc::new))).await
    }

    /// A read that is not kept (downloads), on a blocking thread.
    pub async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&dyn Pages) -> Result<T, String> + Send + 'static,
    ) -> Result<T, Failure> {
        let pages = self.pages.clone();
        blocking(move || read(&*pages)).await
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

type Slot<V> = Arc<tokio::sync::Mutex<Option<(Instant, V)>>>;

/// Values kept for [`FRESH`] by key. Whoever finds a value missing or stale builds it while the
/// others asking for the same key wait for that build: a key is built at most once a second.
pub struct Fresh<K, V> {
    slots: Mutex<HashMap<K, Slot<V>>>,
}

impl<K, V> Default for Fresh<K, V> {
    fn default() -> Self {
        Fresh { slots: Mutex::new(HashMap::new()) }
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
                // Keep only what is in use or still fresh; the rest is rebuilt when asked again.
                slots.retain(|_, slot| {
                    Arc::strong_count(slot) > 1
                        || slot
                            .try_lock()
                            .is_ok_and(|v| v.as_ref().is_some_and(|(at, _)| at.elapsed() < FRESH))
                });
            }
            slots.entry(key).or_default().clone()
        };
        let mut kept = slot.lock().await;
        if let Some((at, value)) = kept.as_ref()
            && at.elapsed() < FRESH
        {
            return Ok(value.clone());
        }
        let value = blocking(build).await?;
        *kept = Some((Instant::now(), value.clone()));
        Ok(value)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.slots.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_key_asked_by_many_at_once_is_built_once() {
        let fresh: Arc<Fresh<u32, u32>> = Arc::default();
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
        // Stale after a second: built again.
        tokio::time::sleep(FRESH + Duration::from_millis(50)).await;
        let b = builds.clone();
        fresh.get(7, move || Ok(b.fetch_add(1, Ordering::SeqCst) as u32)).await.unwrap();
        assert_eq!(builds.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn it_keeps_a_bounded_number_of_keys() {
        let fresh: Fresh<usize, usize> = Fresh::default();
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
