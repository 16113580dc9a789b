//! This process among others: a name for it in the database's claims and leases, and whether a
//! named process on this machine still runs (Linux's `/proc`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Unix milliseconds now, by this machine's clock.
pub fn local_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// This machine, and the process namespace we run in (containers on one host each have their
/// own): where a process id means one process.
pub fn here() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    match std::fs::read_link("/proc/self/ns/pid") {
        Ok(ns) => format!("{name}/{}", ns.display()),
        Err(_) => name,
    }
}

/// When the process `pid` started (clock ticks after boot, `/proc/PID/stat` field 22), if it
/// runs and can be seen.
fn started(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, field 2, is in parentheses and may hold spaces: count after it.
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

/// A name for a lease holder, unique among the living: `HERE:PID:START:N`, START telling apart
/// processes that reuse a pid, N holders in one process.
pub fn new_holder() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let start = started(&pid.to_string()).unwrap_or(0);
    format!("{}:{pid}:{start}:{}", here(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether `holder` names a process on this machine, in our process namespace, that no longer
/// runs: no process has its pid, or another one does (a pid reused, as by a container's first
/// process after a restart). Only Linux's `/proc` is asked. A process hidden from us (`/proc`
/// mounted `hidepid`) looks gone too, which is why a lease is only taken from a dead holder once
/// it has also stopped being renewed ([`take`]).
pub fn dead_here(holder: &str) -> bool {
    let mut parts = holder.rsplitn(4, ':');
    let (_, start, pid, on) = (parts.next(), parts.next(), parts.next(), parts.next());
    let (Some(start), Some(pid), Some(on)) = (start, pid, on) else { return false };
    if on != here() || pid.parse::<u32>().is_err() || !std::path::Path::new("/proc/self/stat").exists() {
        return false;
    }
    started(pid).is_none_or(|now| now.to_string() != start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_holder_here_whose_process_is_gone_is_dead() {
        let me = new_holder();
        assert!(!dead_here(&me), "this process lives: {me}");
        let (rest, _) = me.rsplit_once(':').unwrap();
        let (rest, _start) = rest.rsplit_once(':').unwrap();
        let (here, pid) = rest.rsplit_once(':').unwrap();
        assert_eq!(pid, std::process::id().to_string());
        // Our pid with another start: a process before us that had it (a restarted container's).
        assert!(dead_here(&format!("{here}:{pid}:1:0")));
        // A pid above the kernel's limit (4194304) never runs.
        assert!(dead_here(&format!("{here}:99999999:5:0")));
        assert!(
            !dead_here("elsewhere.example/pid:[1]:99999999:5:0"),
            "another machine's processes are not known"
        );
        assert!(!dead_here("no pid here"));
        assert!(!dead_here(""));
    }
}
