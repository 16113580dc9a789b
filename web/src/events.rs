//! Live updates: a stream of server-sent events per page, each event the page's fingerprint. One
//! poller per page watched reads the data once a second (through the page cache) however many
//! visitors listen, and stops when the last one leaves. A stream starts with the current
//! fingerprint, so a page that lost its connection and got it back sees at once whether it missed
//! a change.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use tessera_core::model::{GameId, TournamentId};
use tokio::sync::watch;

use crate::data::{App, FRESH};

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
        tokio::select! {
            _ = tokio::time::sleep(FRESH) => {}
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

/// The stream of `page`'s fingerprints, until the visitor leaves or the server stops.
pub fn stream(app: &Arc<App>, page: Watched) -> Response {
    let Ok(permit) = app.streams.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "Too many live pages open; try again later.\n")
            .into_response();
    };
    let receiver = subscribe(app, page);
    let stopped = app.stopped.clone();
    let events = stream::unfold(
        (receiver, stopped, permit, true),
        |(mut receiver, mut stopped, permit, first)| async move {
            if !first || receiver.borrow().is_none() {
                tokio::select! {
                    changed = receiver.changed() => changed.ok()?,
                    _ = stopping(&mut stopped) => return None,
                }
            }
            let fingerprint = (*receiver.borrow_and_update())?;
            let mut event = Event::default().data(fingerprint.to_string());
            if first {
                event = event.retry(RETRY);
            }
            Some((Ok::<_, Infallible>(event), (receiver, stopped, permit, false)))
        },
    );
    let mut response = Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    // nginx would otherwise hold the events back in its buffer.
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
