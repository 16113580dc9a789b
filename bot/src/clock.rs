//! The process's one clock: reminders, losses on time and tournament rounds, settled once per tick
//! for every platform this process runs, each notice handed to its own platform's adapter. (When
//! each adapter ticked for itself, the first to tick settled the other's games and dropped their
//! notices.)

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::service::{Notice, Service, unix_now};
use crate::store::Store;

/// How often the clock ticks in chat mode. Deadlines are days; a few minutes late is unnoticed.
pub const PERIOD: Duration = Duration::from_secs(300);

/// Where an adapter receives its platform's notices.
pub type Inbox = UnboundedReceiver<Notice>;

/// The platforms this process announces on, each with the way to its adapter.
#[derive(Debug, Default)]
pub struct Clock {
    router: Router,
}

/// The way from the service to each platform's adapter, for messages nobody asked for at that
/// moment: the clock's notices, and the practice opponent's moves ([`crate::practice`]).
#[derive(Clone, Debug, Default)]
pub struct Router {
    routes: Vec<(&'static str, UnboundedSender<Notice>)>,
}

impl Router {
    pub fn platforms(&self) -> Vec<&'static str> {
        self.routes.iter().map(|(p, _)| *p).collect()
    }

    /// Hands each notice to its platform's adapter; returns how many were handed over. A notice
    /// whose adapter has stopped, or whose platform is not served, is logged.
    pub fn deliver(&self, notices: Vec<Notice>) -> usize {
        let mut handed = 0;
        for notice in notices {
            match self.routes.iter().find(|(p, _)| *p == notice.platform) {
                Some((_, outbox)) => match outbox.send(notice) {
                    Ok(()) => handed += 1,
                    Err(lost) => tracing::warn!(
                        platform = %lost.0.platform,
                        channel = %lost.0.channel,
                        "a notice found its adapter stopped"
                    ),
                },
                None => {
                    tracing::warn!(platform = %notice.platform, "a notice for a platform not served")
                }
            }
        }
        handed
    }
}

impl Clock {
    pub fn new() -> Clock {
        Clock::default()
    }

    /// Serves `platform` from now on: its games' clocks are settled by this clock and their notices
    /// arrive in the returned inbox.
    pub fn serve(&mut self, platform: &'static str) -> Inbox {
        let (outbox, inbox) = unbounded_channel();
        self.router.routes.retain(|(p, _)| *p != platform);
        self.router.routes.push((platform, outbox));
        inbox
    }

    pub fn platforms(&self) -> Vec<&'static str> {
        self.router.platforms()
    }

    /// The routes to the served platforms' inboxes, for others that announce there.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// One tick: settles the served platforms' clocks and routes every notice to its platform.
    /// Returns how many notices were handed over. A notice whose adapter has stopped is logged.
    pub fn tick<S: Store>(&self, service: &Service<S>, now: i64) -> usize {
        match service.tick_for(now, Some(&self.platforms())) {
            Ok(notices) => self.router.deliver(notices),
            Err(e) => {
                tracing::error!("the clock's tick failed: {e:#}");
                0
            }
        }
    }

    /// Ticks every `period` until the process ends, off the async workers (the store is
    /// synchronous).
    pub async fn run<S: Store + Send + Sync + 'static>(self, service: Arc<Service<S>>, period: Duration) {
        let clock = Arc::new(self);
        loop {
            tokio::time::sleep(period).await;
            let (clock, service) = (Arc::clone(&clock), Arc::clone(&service));
            if let Err(e) = tokio::task::spawn_blocking(move || clock.tick(&service, unix_now())).await {
                tracing::error!("the clock's tick panicked: {e}");
            }
        }
    }
}
