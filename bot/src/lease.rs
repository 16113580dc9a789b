//! Leases in the database (issue 17): several processes on one database, and each piece of
//! once-only work done by one of them. The clock's sweep of a platform (reminders, losses on
//! time, tournament rounds), a Matrix account's sync, a Discord shard: each is a named lease
//! ([`crate::store::Store::take_lease`]) that one process holds and renews while it lives. A
//! process killed without a word loses its leases when they expire; one that stops cleanly gives
//! them up at once.
//!
//! The lease is the first guard, not the only one: the writes it covers are conditional too
//! (a game ends once, a reminder is marked once, a round is paired once), so a holder that stalls
//! past its lease and wakes beside the next one still cannot double anything.
//!
//! Lease times are the processes' wall clocks, in milliseconds: machines sharing a database must
//! keep their clocks in step (NTP), to well within a lease's length.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};

use crate::service::Service;
use crate::store::{Lease, Store};

/// Unix milliseconds now, by this machine's clock.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// This machine's name, as the kernel has it (`HOSTNAME` or "localhost" where it cannot say).
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// A name for a lease holder, unique among the living: `host:pid:n`, `n` telling apart holders
/// in one process and processes that reuse a pid.
pub fn new_holder() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let started = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{}:{}:{:x}", host(), std::process::id(), started.wrapping_add(n))
}

/// Whether `holder` names a process on this machine that no longer runs: its lease may be taken
/// at once, rather than after it expires (a bot restarted after `kill -9`). Only Linux's `/proc`
/// is asked; elsewhere nothing is known dead and leases expire.
fn dead_here(holder: &str) -> bool {
    let mut parts = holder.rsplitn(3, ':');
    let (_, pid, on) = (parts.next(), parts.next(), parts.next());
    let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) else { return false };
    on == Some(host().as_str())
        && pid != std::process::id()
        && std::path::Path::new("/proc/self").exists()
        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Takes `name` for `holder`, or says who has it: free, expired, or held by a dead process here.
pub fn take<S: Store + ?Sized>(store: &S, name: &str, holder: &str, ttl: Duration) -> Result<Taken> {
    let ttl_ms = ttl.as_millis() as i64;
    if store.take_lease(name, holder, None, now_ms(), ttl_ms)? {
        return Ok(Taken::Held);
    }
    let Some(current) = store.lease(name)? else {
        // Released between the two statements: ask once more.
        return Ok(if store.take_lease(name, holder, None, now_ms(), ttl_ms)? {
            Taken::Held
        } else {
            Taken::Busy(None)
        });
    };
    if dead_here(&current.holder)
        && store.take_lease(name, holder, Some(&current.holder), now_ms(), ttl_ms)?
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
/// renewal; they are renewed every third of it.
pub const STANDING_TTL: Duration = Duration::from_secs(45);

/// Leases a process holds for as long as it runs, renewed in the background: the Matrix account
/// it syncs, the Discord shards it connects. Dropping it gives them up.
pub struct Standing<S: Store + 'static> {
    service: Arc<Service<S>>,
    holder: String,
    names: Vec<String>,
}

impl<S: Store + 'static> std::fmt::Debug for Standing<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Standing").field("holder", &self.holder).field("names", &self.names).finish()
    }
}

impl<S: Store + 'static> Standing<S> {
    /// Takes every lease in `wanted` (its name, and what it guards, for the message) for a new
    /// holder, or refuses, giving none back taken, saying who holds the first that is busy and
    /// what to do.
    pub fn take(service: Arc<Service<S>>, wanted: Vec<(String, String)>) -> Result<Standing<S>> {
        let holder = new_holder();
        let mut standing = Standing { service, holder, names: Vec::new() };
        for (name, what) in wanted {
            match take(standing.service.store(), &name, &standing.holder, STANDING_TTL)? {
                Taken::Held => standing.names.push(name),
                Taken::Busy(current) => {
                    // `standing` is dropped here: the leases taken so far are given back.
                    let who = current.map_or_else(
                        || "another process".to_string(),
                        |l| {
                            let left = (l.expires_at - now_ms()).max(0) / 1000;
                            format!("the process {} (its lease runs {left} s more unless renewed)", l.holder)
                        },
                    );
                    bail!(
                        "{what} is already run by {who}; only one process may run it (lease `{name}`). \
                         Stop the other process, or give this one another part to run"
                    );
                }
            }
        }
        Ok(standing)
    }

    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Renews every lease: the name of one that was lost (another process holds it now), if any.
    fn renew(&self) -> Result<Option<String>> {
        for name in &self.names {
            if !self.service.store().take_lease(
                name,
                &self.holder,
                None,
                now_ms(),
                STANDING_TTL.as_millis() as i64,
            )? {
                return Ok(Some(name.clone()));
            }
        }
        Ok(None)
    }

    /// Renews the leases every third of their length until one is lost or cannot be renewed in
    /// time; then returns why. The process should stop what the leases guard: another has it.
    pub async fn keep(self: Arc<Self>) -> anyhow::Error {
        let period = STANDING_TTL / 3;
        let mut last_renewed = std::time::Instant::now();
        loop {
            tokio::time::sleep(period).await;
            let me = Arc::clone(&self);
            let renewed = tokio::task::spawn_blocking(move || me.renew()).await;
            match renewed {
                Ok(Ok(None)) => last_renewed = std::time::Instant::now(),
                Ok(Ok(Some(lost))) => return anyhow::anyhow!("the lease `{lost}` passed to another process"),
                Ok(Err(e)) => {
                    tracing::warn!("could not renew the standing leases: {e:#}");
                    // A database that is away for a moment is waited for, up to the lease's end.
                    if last_renewed.elapsed() + period >= STANDING_TTL {
                        return e.context("the standing leases ran out before they could be renewed");
                    }
                }
                Err(e) => return anyhow::anyhow!("renewing the leases panicked: {e}"),
            }
        }
    }
}

impl<S: Store + 'static> Drop for Standing<S> {
    fn drop(&mut self) {
        for name in &self.names {
            if let Err(e) = self.service.store().release_lease(name, &self.holder) {
                tracing::warn!(lease = %name, "could not give the lease back (it will expire): {e:#}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_holder_on_this_machine_whose_process_is_gone_is_dead() {
        let here = host();
        assert!(!dead_here(&new_holder()), "this process lives");
        // A pid above the kernel's limit (4194304) never runs.
        assert!(dead_here(&format!("{here}:99999999:1")));
        assert!(!dead_here("elsewhere.example:99999999:1"), "another machine's processes are not known");
        assert!(!dead_here("no pid here"));
        assert!(!dead_here(""));
    }
}
