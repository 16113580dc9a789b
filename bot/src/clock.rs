//! The process's one clock: reminders, losses on time and tournament rounds, settled once per tick
//! for every platform this process runs, each notice handed to its own platform's adapter. (When
//! each adapter ticked for itself, the first to tick settled the other's games and dropped their
//! notices.)
//!
//! Several processes on one database tick for a platform in turn, never together: a tick first
//! takes the platform's clock lease (`clock:discord`, [`crate::lease`]) and ticks only for the
//! platforms whose lease it holds. The holder keeps it from tick to tick; when it dies, another
//! process's tick takes over once the lease has run out.

use std::sync::Arc;
use std::time::Duration;

use tessera_core::process::new_holder;

use crate::lease::{self, Taken};
use crate::router::{Inbox, Router};
use tessera_core::service::{Service, unix_now};
use tessera_core::store::Store;

/// How often the clock ticks in chat mode. Deadlines are days; a few minutes late is unnoticed.
pub const PERIOD: Duration = Duration::from_secs(300);

/// A bot's turn in a practice game waiting this long (seconds) is taken up by the clock's holder:
/// the process that queued it may have died before playing it.
pub const PRACTICE_STALE: i64 = 60;

/// The platforms this process announces on, each with the way to its adapter.
#[derive(Debug)]
pub struct Clock {
    router: Router,
    /// This clock's name in the leases.
    holder: String,
    /// How often it ticks, so renews its leases.
    period: Duration,
    /// How long a tick's lease lasts, when not derived from the period ([`Clock::lease_for`]).
    lease_ttl: Option<Duration>,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock { router: Router::default(), holder: new_holder(), period: PERIOD, lease_ttl: None }
    }
}

impl Clock {
    pub fn new() -> Clock {
        Clock::default()
    }

    /// Holds its clock leases for `ttl` from each tick (normally two periods and a half-minute):
    /// how long the other processes wait for it after it dies.
    pub fn lease_for(mut self, ttl: Duration) -> Clock {
        self.lease_ttl = Some(ttl);
        self
    }

    /// How long a tick's lease lasts: past two periods, so a late tick keeps it.
    fn lease_ttl(&self) -> Duration {
        self.lease_ttl.unwrap_or(self.period * 2 + Duration::from_secs(30))
    }

    /// The clock leases this clock may hold: given back when the process stops, so the next
    /// need not wait for them.
    pub fn leases(&self) -> lease::Held {
        let names = self.platforms().iter().map(|p| format!("clock:{p}")).collect();
        lease::Held { holder: self.holder.clone(), names }
    }

    /// Serves `platform` from now on: its games' clocks are settled by this clock and their notices
    /// arrive in the returned inbox.
    pub fn serve(&mut self, platform: &'static str) -> Inbox {
        self.router.serve(platform)
    }

    pub fn platforms(&self) -> Vec<&'static str> {
        self.router.platforms()
    }

    /// The routes to the served platforms' inboxes, for others that announce there.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// The served platforms whose clock lease this clock holds now (taken or renewed).
    fn leased<S: Store>(&self, service: &Service<S>) -> Vec<&'static str> {
        let mut held = Vec::new();
        for platform in self.platforms() {
            let name = format!("clock:{platform}");
            match lease::take(service.store(), &name, &self.holder, self.lease_ttl(), self.period) {
                Ok(Taken::Held) => held.push(platform),
                Ok(Taken::Busy(by)) => tracing::debug!(
                    platform,
                    holder = by.map(|l| l.holder).unwrap_or_default(),
                    "another process keeps this platform's clock"
                ),
                Err(e) => tracing::error!(platform, "could not take the clock's lease: {e:#}"),
            }
        }
        held
    }

    /// One tick: settles the clocks of the served platforms whose lease this clock holds, takes
    /// up the bot's stale practice turns there, and routes every notice to its platform. Returns
    /// how many notices were handed over. A notice whose adapter has stopped is logged.
    pub fn tick<S: Store>(&self, service: &Service<S>, now: i64) -> usize {
        let held = self.leased(service);
        if held.is_empty() {
            return 0;
        }
        if let Err(e) = service.practice_resume(Some(&held), Some(now - PRACTICE_STALE)) {
            tracing::error!("could not look for the bot's waiting turns: {e:#}");
        }
        match service.tick_for(now, Some(&held)) {
            Ok(notices) => self.router.deliver(notices),
            Err(e) => {
                tracing::error!("the clock's tick failed: {e:#}");
                0
            }
        }
    }

    /// Ticks every `period` until the process ends, off the async workers (the store is
    /// synchronous).
    pub async fn run<S: Store + Send + Sync + 'static>(mut self, service: Arc<Service<S>>, period: Duration) {
        self.period = period;
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
