//! The read-only web face of Tessera (issue 31): the pages of published tournaments and shared
//! games, their downloads (TRF-16, PGN, JSON), the board after every ply as a PNG, and live
//! updates by server-sent events.
//!
//! Everything here only reads, through the service's public views (`tessera_core::public`): a
//! page is made of what those types hold and nothing else, so no channel, server, private game,
//! conditional line or note can reach it. Pages are rendered on the server and work without
//! JavaScript (every ply and every page of standings is a link); `/static/tessera.js` adds
//! stepping with the arrow keys and live updates.
//!
//! Safety, applied to every response by one middleware (`guard.rs`): GET and HEAD only, no cookies,
//! a strict Content-Security-Policy with no inline script or style, a per-address token bucket,
//! a cap on the address's length, on requests handled at once and on their time. Query numbers
//! are clamped, names are escaped (maud), isolated (`<bdi>`), cleaned of bidi controls and cut.
//! The store is synchronous: every read runs on a blocking thread, at most a few at once (the chat
//! shares the store), and each page's data is built at most once a second (less often when it is
//! slow to build) however many ask (`data.rs`); a big tournament's data, once built, is served at
//! once while it is rebuilt, and its downloads are built once per change (`downloads.rs`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use tessera_core::service::Service;
use tessera_core::store::Store;
use tokio::sync::watch;

mod data;
mod downloads;
mod events;
mod guard;
mod html;
mod images;
mod routes;

use data::App;
pub use data::Pages;

/// How the web face treats its clients.
#[derive(Clone, Debug)]
pub struct WebOptions {
    /// Behind a reverse proxy: the client's address is the rightmost `X-Forwarded-For` entry
    /// (the one the proxy itself added), not the connection's peer. Only where the peer is on
    /// this host or a private network (loopback, RFC 1918, IPv6 unique-local), as a proxy is: a
    /// client that reaches the port directly from elsewhere is known by its own address whatever
    /// it writes in the header.
    pub behind_proxy: bool,
    /// Requests per client address (an IPv6 address counts by its /64).
    pub rate: Rate,
    /// Requests handled at once; more wait for a turn. Live streams count apart ([`Self::max_streams`]).
    pub max_concurrent: usize,
    /// Live-update streams open at once; more are refused with 503.
    pub max_streams: usize,
    /// Live-update streams open at once from one client address; more are refused with 429.
    pub max_streams_per_client: usize,
    /// Longest a request may take before it is answered 503.
    pub timeout: Duration,
    /// How long a page's data (and what an address shows) is kept before it is read again: any
    /// number of visitors within it cost one read. A withdrawn address stops answering within it.
    pub keep_data: Duration,
}

/// A token bucket: up to `burst` requests at once, refilled at `per_second`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rate {
    pub burst: u32,
    pub per_second: f64,
}

impl Default for WebOptions {
    fn default() -> Self {
        WebOptions {
            behind_proxy: false,
            // A page is one HTML, its stylesheet and script, a picture and a stream; stepping
            // through a game asks a picture a ply.
            rate: Rate { burst: 120, per_second: 20.0 },
            max_concurrent: 64,
            max_streams: 2_000,
            // A visitor with a few tabs open; not one client holding every stream.
            max_streams_per_client: 16,
            timeout: Duration::from_secs(10),
            keep_data: Duration::from_secs(1),
        }
    }
}

/// The web face's routes over `service`, with every safety layer. Live streams never end by
/// themselves here; [`serve`] ends them at shutdown.
pub fn router<S: Store + Send + Sync + 'static>(service: Arc<Service<S>>, opts: WebOptions) -> Router {
    router_over(service, opts)
}

/// [`router`] over any source of pages: a test can count or slow down the reads.
pub fn router_over(pages: Arc<dyn Pages>, opts: WebOptions) -> Router {
    let (stop, stopped) = watch::channel(false);
    build(App::new(pages, opts, stopped, Some(stop)))
}

fn build(app: Arc<App>) -> Router {
    use routes::*;
    Router::new()
        .route("/healthz", get(healthz))
        .route("/static/{file}", get(asset))
        .route("/t/{token}", get(tournament_page))
        .route("/t/{token}/trf", get(tournament_trf))
        .route("/t/{token}/pgn", get(tournament_pgn))
        .route("/t/{token}/json", get(tournament_json))
        .route("/t/{token}/events", get(tournament_events))
        .route("/t/{token}/g/{game}", get(tournament_game_page))
        .route("/t/{token}/g/{game}/pgn", get(tournament_game_pgn))
        .route("/t/{token}/g/{game}/ply/{file}", get(tournament_game_ply))
        .route("/t/{token}/g/{game}/events", get(tournament_game_events))
        .route("/g/{token}", get(game_page))
        .route("/g/{token}/pgn", get(game_pgn))
        .route("/g/{token}/ply/{file}", get(game_ply))
        .route("/g/{token}/events", get(game_events))
        .route("/g/{token}/analysis.png", get(game_analysis))
        .route("/t/{token}/g/{game}/analysis.png", get(tournament_game_analysis))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard::guard))
        .with_state(app)
}

/// Serves the web face on `listener` until `shutdown` resolves: then live streams end, the
/// server stops taking connections, and this returns once the requests under way are answered.
pub async fn serve<S: Store + Send + Sync + 'static>(
    service: Arc<Service<S>>,
    listener: tokio::net::TcpListener,
    opts: WebOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_over(service, listener, opts, shutdown).await
}

/// [`serve`] over any source of pages.
pub async fn serve_over(
    pages: Arc<dyn Pages>,
    listener: tokio::net::TcpListener,
    opts: WebOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (stop, stopped) = watch::channel(false);
    let app = build(App::new(pages, opts, stopped, None));
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(async move {
            shutdown.await;
            let _ = stop.send(true);
        })
        .await?;
    Ok(())
}
