//! Live updates: a stream of server-sent events per page, each event the page's fingerprint. One
//! poller per page watched reads the data (through the page cache) once a second, or less often
//! for a page slow to build, however many visitors listen, and stops when the last one leaves. A
//! stream starts with the current fingerprint, so a page that lost its connection and got it back
//! sees at once whether it missed a change. Each stream checks every second that its address
//! still shows what it showed, and ends when it no longer does: the browser, connecting again, is
//! answered 404.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use tessera_core::model::{GameId, TournamentId};
use tessera_core::public::Publication;
use tokio::sync::{OwnedSemaphorePermit, watch};

use crate::data::{App, FRESH};
use crate::guard::Client;

/// A page that can be watched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Watched {
    Tournament(TournamentId),
    Game(GameId),
}

/// The pages being watched, each with the latest fingerprint read.
#[derive(Debug, Default)]
pub struct Watchers {
    pages: Mutex<HashMap<Watched, watch::Sender<Option<u64>>>>,
}

/// How often an idle stream says it is alive (proxies close silent connections).
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a browser waits before connecting again after a drop.
const RETRY: Duration = Duration::from_secs(2);

/// A receiver of `page`'s fingerprints; the first watcher starts its poller.
fn subscribe(app: &Arc<App>, page: Watched) -> watch::Receiver<Option<u64>> {
    let mut pages = app.watchers.pages.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(sender) = pages.get(&page) {
        return sender.subscribe();
    }
    let (sender, receiver) = watch::channel(None);
    pages.insert(page, sender.clone());
    tokio::spawn(poll(app.clone(), page, sender));
    receiver
}

async fn poll(app: Arc<App>, page: Watched, sender: watch::Sender<Option<u64>>) {
    let mut stopped = app.stopped.clone();
    loop {
        let fingerprint = match page {
            Watched::Tournament(id) => app.tournament(id).await.ok().map(|t| t.fingerprint),
            Watched::Game(id) => app.game(id).await.ok().flatten().map(|g| g.fingerprint),
        };
        if let Some(fingerprint) = fingerprint {
            sender.send_if_modified(|seen| seen.replace(fingerprint) != Some(fingerprint));
        }
        // As often as the data is kept: a page slow to build is read less often.
        let every = match page {
            Watched::Tournament(id) => app.tournaments.fresh_for(&id),
            Watched::Game(id) => app.games.fresh_for(&id),
        };
        tokio::select! {
            _ = tokio::time::sleep(every.max(FRESH)) => {}
            _ = stopping(&mut stopped) => {}
        }
        // Under the lock, so that no one subscribes between the count and the removal.
        let mut pages = app.watchers.pages.lock().unwrap_or_else(|e| e.into_inner());
        if sender.receiver_count() == 0 || *app.stopped.borrow() {
            pages.remove(&page);
            return;
        }
    }
}

/// Resolves when the server stops; never, when nothing can stop it any more.
async fn stopping(stopped: &mut watch::Receiver<bool>) {
    if stopped.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// One client's count of open streams, given back when the stream ends.
struct ClientStream {
    app: Arc<App>,
    client: IpAddr,
}

impl ClientStream {
    fn open(app: &Arc<App>, client: IpAddr) -> Option<ClientStream> {
        let mut open = app.client_streams.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(client).or_insert(0);
        if *count >= app.opts.max_streams_per_client {
            return None;
        }
        *count += 1;
        Some(ClientStream { app: app.clone(), client })
    }
}

impl Drop for ClientStream {
    fn drop(&mut self) {
        let mut open = self.app.client_streams.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// What an open stream holds.
struct Open {
    app: Arc<App>,
    /// The address the stream was opened at, and what it showed then.
    token: String,
    shows: Publication,
    receiver: watch::Receiver<Option<u64>>,
    stopped: watch::Receiver<bool>,
    recheck: tokio::time::Interval,
    first: bool,
    _permit: OwnedSemaphorePermit,
    _client: ClientStream,
}

impl Open {
    /// Whether the address still shows what it showed (a failed read is not a withdrawal).
    async fn still_shown(&self) -> bool {
        match self.app.address(&self.token).await {
            Ok(shown) => shown == Some(self.shows),
            Err(_) => true,
        }
    }

    /// The next fingerprint to send; `None` ends the stream.
    async fn next(&mut self) -> Option<u64> {
        if !self.first || self.receiver.borrow().is_none() {
            loop {
                tokio::select! {
                    changed = self.receiver.changed() => {
                        changed.ok()?;
                        break;
                    }
                    _ = stopping(&mut self.stopped) => return None,
                    _ = self.recheck.tick() => {
                        if !self.still_shown().await {
                            return None;
                        }
                    }
                }
            }
        }
        *self.receiver.borrow_and_update()
    }
}

/// The stream of `page`'s fingerprints, opened by `client` at `token` which shows `shows`, until
/// the visitor leaves, the address no longer shows it, or the server stops.
pub fn stream(app: &Arc<App>, client: Client, token: String, shows: Publication, page: Watched) -> Response {
    let Some(client) = ClientStream::open(app, client.0) else {
        return (StatusCode::TOO_MANY_REQUESTS, "Too many live pages open from here; close some.\n")
            .into_response();
    };
    let Ok(permit) = app.streams.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "Too many live pages open; try again later.\n")
            .into_response();
    };
    let receiver = subscribe(app, page);
    let mut recheck = tokio::time::interval_at(tokio::time::Instant::now() + FRESH, FRESH);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let open = Open {
        app: app.clone(),
        token,
        shows,
        receiver,
        stopped: app.stopped.clone(),
        recheck,
        first: true,
        _permit: permit,
        _client: client,
    };
    let events = stream::unfold(open, |mut open| async move {
        let fingerprint = open.next().await?;
        let mut event = Event::default().data(fingerprint.to_string());
        if open.first {
            event = event.retry(RETRY);
            open.first = false;
        }
        Some((Ok::<_, Infallible>(event), open))
    });
    let mut response = Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    // nginx would otherwise hold the events back in its buffer.
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
