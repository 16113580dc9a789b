//! Leases in the database (issue 17): several processes on one database, and each piece of
//! once-only work done by one of them. The clock's sweep of a platform (reminders, losses on
//! time, tournament rounds), a Matrix account's sync, a Discord shard: each is a named lease
//! ([`tessera_core::store::Store::take_lease`]) that one process holds and renews while it lives. A
//! process killed without a word loses its leases when they expire, or sooner when a process on
//! its machine sees it is gone; one that stops on a signal gives them up at once.
//!
//! The lease is the first guard, not the only one: the writes it covers are conditional too
//! (a game ends once, a reminder is marked once, a round is paired once), so a holder that stalls
//! past its lease and wakes beside the next one still cannot double anything.
//!
//! Lease times come from the database's clock ([`tessera_core::store::Store::clock_ms`]: PostgreSQL's
//! own, or this machine's for an SQLite file), so machines whose clocks disagree still agree on
//! when a lease runs out.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, bail};
use tessera_core::process::{dead_here, new_holder};

use tessera_core::model::Lease;
use tessera_core::service::Service;
use tessera_core::store::Store;

/// Grace beyond a holder's renewal period before it counts as no longer renewing.
const SLACK_MS: i64 = 5_000;

/// When a holder that renews every `renew_every` within leases of `ttl` last renewed, and so
/// when it is overdue.
fn overdue_at(lease: &Lease, ttl: Duration, renew_every: Duration) -> i64 {
    lease.expires_at - ttl.as_millis() as i64 + renew_every.as_millis() as i64 + SLACK_MS
}

/// Takes `name` for `holder` for `ttl` (holders renew every `renew_every`), or says who has it.
/// Taken when free, expired, already `holder`'s, or held by a process of this machine that has
/// died and stopped renewing.
pub fn take<S: Store + ?Sized>(
    store: &S,
    name: &str,
    holder: &str,
    ttl: Duration,
    renew_every: Duration,
) -> Result<Taken> {
    let ttl_ms = ttl.as_millis() as i64;
    if store.take_lease(name, holder, None, store.clock_ms()?, ttl_ms)? {
        return Ok(Taken::Held);
    }
    let Some(current) = store.lease(name)? else {
        // Given up between the two statements: ask once more.
        return Ok(if store.take_lease(name, holder, None, store.clock_ms()?, ttl_ms)? {
            Taken::Held
        } else {
            Taken::Busy(None)
        });
    };
    let now = store.clock_ms()?;
    if dead_here(&current.holder)
        && now >= overdue_at(&current, ttl, renew_every)
        && store.take_lease(name, holder, Some(&current.holder), now, ttl_ms)?
    {
        tracing::info!(lease = name, dead = %current.holder, "took over the lease of a process that died here");
        return Ok(Taken::Held);
    }
    Ok(Taken::Busy(Some(current)))
}

/// What [`take`] found.
#[derive(Debug)]
pub enum Taken {
    Held,
    /// Someone else's (`None`: it changed hands as we looked).
    Busy(Option<Lease>),
}

/// How long a process's standing leases (its Matrix account, its Discord shards) last without a
/// renewal.
pub const STANDING_TTL: Duration = Duration::from_secs(45);
/// How often they are renewed.
pub const STANDING_RENEWAL: Duration = Duration::from_secs(15);

/// Leases held by one holder, given back together when it stops.
#[derive(Clone, Debug, Default)]
pub struct Held {
    pub holder: String,
    pub names: Vec<String>,
}

impl Held {
    /// Gives back every lease `holder` still holds; one that cannot be is left to expire.
    pub fn release<S: Store + ?Sized>(&self, store: &S) {
        for name in &self.names {
            if let Err(e) = store.release_lease(name, &self.holder) {
                tracing::warn!(lease = %name, "could not give the lease back (it will expire): {e:#}");
            }
        }
    }
}

/// How long to wait for a standing lease whose holder has stopped renewing it, before it can be
/// taken: a dead process of this machine's until it is overdue, one elsewhere until it runs out.
/// `None` for a holder that renews on time: that one is refused at once.
fn wait_for(lease: &Lease, now: i64) -> Option<Duration> {
    let overdue = overdue_at(lease, STANDING_TTL, STANDING_RENEWAL);
    let until = if dead_here(&lease.holder) {
        overdue
    } else if now >= overdue {
        lease.expires_at
    } else {
        return None;
    };
    Some(Duration::from_millis((until - now).clamp(0, STANDING_TTL.as_millis() as i64) as u64 + 200))
}

/// Leases a process holds for as long as it runs, renewed in the background: the Matrix account
/// it syncs, the Discord shards it connects. Dropping it gives them up.
pub struct Standing<S: Store + 'static> {
    service: Arc<Service<S>>,
    held: Held,
    /// When every lease held was last known renewed: [`Standing::keep`] counts from here.
    renewed_at: std::time::Instant,
}

impl<S: Store + 'static> std::fmt::Debug for Standing<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Standing").field("held", &self.held).finish()
    }
}

impl<S: Store + 'static> Standing<S> {
    /// Takes every lease in `wanted` (its name, and what it guards, for the message) for a new
    /// holder, or refuses, giving back what it took, saying who holds the first that is busy and
    /// what to do. A lease whose holder has stopped renewing it (a process killed a moment ago,
    /// this one's predecessor) is waited for once ([`wait_for`]); one renewed on time is refused.
    pub fn take(service: Arc<Service<S>>, wanted: Vec<(String, String)>) -> Result<Standing<S>> {
        let held = Held { holder: new_holder(), names: Vec::new() };
        let mut standing = Standing { service, held, renewed_at: std::time::Instant::now() };
        for (name, what) in wanted {
            let mut waited = false;
            loop {
                let (store, holder) = (standing.service.store(), &standing.held.holder);
                let current = match take(store, &name, holder, STANDING_TTL, STANDING_RENEWAL)? {
                    Taken::Held => break,
                    Taken::Busy(current) => current,
                };
                let now = store.clock_ms()?;
                match current.as_ref().and_then(|l| wait_for(l, now)).filter(|_| !waited) {
                    Some(wait) => {
                        tracing::info!(lease = %name, "waiting {wait:.1?} for a lease its holder stopped renewing");
                        std::thread::sleep(wait);
                        waited = true;
                        // The leases taken so far must not run out while this one is waited for.
                        let renewing = std::time::Instant::now();
                        if let Some(lost) = standing.renew()? {
                            bail!(lost);
                        }
                        standing.renewed_at = renewing;
                    }
                    // `standing` is dropped on the way out: the leases taken so far are given back.
                    None => bail!(refusal(&what, &name, current.as_ref(), now)),
                }
            }
            standing.held.names.push(name);
        }
        Ok(standing)
    }

    pub fn holder(&self) -> &str {
        &self.held.holder
    }

    /// Renews every lease: if one was lost, which and who holds it now.
    fn renew(&self) -> Result<Option<String>> {
        let store = self.service.store();
        for name in &self.held.names {
            let now = store.clock_ms()?;
            if !store.take_lease(name, &self.held.holder, None, now, STANDING_TTL.as_millis() as i64)? {
                let holder = store.lease(name)?.map_or_else(|| "nobody".to_string(), |l| l.holder);
                return Ok(Some(format!("the lease `{name}` ran out and is held by {holder} now")));
            }
        }
        Ok(None)
    }

    /// Renews the leases every [`STANDING_RENEWAL`] until one is lost or cannot be renewed before
    /// it would run out; then returns why. The process should stop what the leases guard: another
    /// may have it.
    pub async fn keep(self: Arc<Self>) -> anyhow::Error {
        let mut renewed_at = self.renewed_at;
        loop {
            tokio::time::sleep(STANDING_RENEWAL).await;
            // A renewal that hangs (a dead connection) counts as failed before the lease runs out.
            let left = STANDING_TTL.saturating_sub(renewed_at.elapsed() + Duration::from_secs(2));
            let me = Arc::clone(&self);
            let renewing = std::time::Instant::now();
            let renewal = tokio::time::timeout(left, tokio::task::spawn_blocking(move || me.renew())).await;
            match renewal {
                Ok(Ok(Ok(None))) => renewed_at = renewing,
                Ok(Ok(Ok(Some(lost)))) => return anyhow::anyhow!(lost),
                Ok(Ok(Err(e))) => {
                    tracing::warn!("could not renew the standing leases: {e:#}");
                    // A database away for a moment is waited for, while the leases last.
                    if renewed_at.elapsed() + STANDING_RENEWAL >= STANDING_TTL {
                        return e.context("the standing leases ran out before they could be renewed");
                    }
                }
                Ok(Err(e)) => return anyhow::anyhow!("renewing the leases panicked: {e}"),
                Err(_) => return anyhow::anyhow!("the standing leases could not be renewed in time"),
            }
        }
    }
}

impl<S: Store + 'static> Drop for Standing<S> {
    fn drop(&mut self) {
        self.held.release(self.service.store());
    }
}

/// Why a standing lease is refused: who holds it, and what to do.
fn refusal(what: &str, name: &str, current: Option<&Lease>, now: i64) -> String {
    let who = current.map_or_else(
        || "another process".to_string(),
        |l| {
            let left = (l.expires_at - now).max(0) / 1000;
            format!("the process {} (its lease runs {left} s more unless renewed)", l.holder)
        },
    );
    format!(
        "{what} is already run by {who}; only one process may run it (lease `{name}`). \
         Stop the other process, or give this one another part to run: another Matrix account \
         (matrix_user), or Discord shards no other process runs (discord_shards, as 4-7/8)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_taken_first_are_renewed_while_a_later_one_is_waited_for() {
        let service = Arc::new(Service::new(tessera_store::SqliteStore::in_memory().unwrap()));
        let store = service.store();
        // `b`'s holder died here; its lease stops being renewed ten seconds from now.
        let dead = format!("{}:99999999:5:0", tessera_core::process::here());
        let overdue_in = 10_000;
        let ttl = (STANDING_TTL - STANDING_RENEWAL).as_millis() as i64 - SLACK_MS + overdue_in;
        assert!(store.take_lease("b", &dead, None, store.clock_ms().unwrap(), ttl).unwrap());
        let standing =
            Standing::take(service.clone(), vec![("a".into(), "A".into()), ("b".into(), "B".into())])
                .unwrap();
        let now = store.clock_ms().unwrap();
        let left = |name| store.lease(name).unwrap().unwrap().expires_at - now;
        assert!(left("b") > 40_000, "b taken over after the wait: {} ms left", left("b"));
        // Taken before the wait, `a` was renewed after it: not left with 45 s less the wait.
        assert!(left("a") > 40_000, "a renewed: {} ms left", left("a"));
        assert_eq!(store.lease("a").unwrap().unwrap().holder, standing.holder());
    }
}
