//! A tournament's downloads (PGN, TRF-16, JSON): a big tournament's are expensive (the PGN replays
//! every game), so each text is kept by the version of the tournament's data it was built from,
//! for a few tournaments, and a tournament's texts are built one at a time: whoever asks while one
//! is built waits for it and then finds it kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use tessera_core::model::TournamentId;

use crate::data::{Failure, blocking};

/// Tournaments whose downloads are kept.
const KEPT_TOURNAMENTS: usize = 4;
/// The tournament's fingerprint follows results, not the moves of games under way: a PGN is built
/// again after this long even when the fingerprint is the same.
const PGN_KEEP: Duration = Duration::from_secs(30);

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Download {
    Pgn,
    Trf,
    Json,
}

struct Text {
    version: u64,
    at: Instant,
    body: Bytes,
}

/// One tournament's texts. The lock is held while one of them is built.
#[derive(Default)]
struct Slot {
    texts: tokio::sync::Mutex<HashMap<Download, Text>>,
    used: AtomicU64,
}

#[derive(Default)]
pub struct Downloads {
    slots: Mutex<HashMap<TournamentId, Arc<Slot>>>,
    clock: AtomicU64,
}

impl Downloads {
    /// Tournament `id`'s `kind` as built from data at `version` (the data's fingerprint): kept, or
    /// built now by `build` on a blocking thread.
    pub async fn get(
        &self,
        id: TournamentId,
        kind: Download,
        version: u64,
        build: impl FnOnce() -> Result<String, String> + Send + 'static,
    ) -> Result<Bytes, Failure> {
        let slot = self.slot(id);
        // In a task of its own: a request that gives up waiting neither stops the build nor
        // frees the lock for a second build beside it.
        let task = tokio::spawn(async move {
            let mut texts = slot.texts.lock().await;
            if let Some(text) = texts.get(&kind)
                && text.version == version
                && (kind != Download::Pgn || text.at.elapsed() < PGN_KEEP)
            {
                return Ok(text.body.clone());
            }
            let body = Bytes::from(blocking(build).await?);
            texts.insert(kind, Text { version, at: Instant::now(), body: body.clone() });
            Ok(body)
        });
        match task.await {
            Ok(result) => result,
            Err(e) => Err(Failure(format!("a download's build panicked: {e}"))),
        }
    }

    fn slot(&self, id: TournamentId) -> Arc<Slot> {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if !slots.contains_key(&id) && slots.len() >= KEPT_TOURNAMENTS {
            // The least recently asked that nobody is waiting on goes.
            let oldest = slots
                .iter()
                .filter(|(_, slot)| Arc::strong_count(slot) == 1)
                .min_by_key(|(_, slot)| slot.used.load(Ordering::Relaxed))
                .map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                slots.remove(&oldest);
            }
        }
        let slot = slots.entry(id).or_default().clone();
        slot.used.store(now, Ordering::Relaxed);
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A build that counts itself, the builds under way at once, and takes `ms`.
    fn counted(
        builds: &Arc<AtomicUsize>,
        inside: &Arc<AtomicUsize>,
        most: &Arc<AtomicUsize>,
        ms: u64,
        text: &str,
    ) -> impl FnOnce() -> Result<String, String> + Send + 'static {
        let (builds, inside, most, text) = (builds.clone(), inside.clone(), most.clone(), text.to_string());
        move || {
            builds.fetch_add(1, Ordering::SeqCst);
            let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(ms));
            inside.fetch_sub(1, Ordering::SeqCst);
            Ok(text)
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_text_is_built_once_per_version_and_one_build_at_a_time() {
        let downloads = Arc::new(Downloads::default());
        let [builds, inside, most] = [(); 3].map(|_| Arc::new(AtomicUsize::new(0)));
        let mut asks = Vec::new();
        for i in 0..12 {
            let kind = [Download::Pgn, Download::Trf, Download::Json][i % 3];
            let build = counted(&builds, &inside, &most, 40, &format!("{kind:?}"));
            let downloads = downloads.clone();
            asks.push(tokio::spawn(async move { (kind, downloads.get(7, kind, 1, build).await.unwrap()) }));
        }
        for ask in asks {
            let (kind, body) = ask.await.unwrap();
            assert_eq!(body, format!("{kind:?}"));
        }
        assert_eq!(builds.load(Ordering::SeqCst), 3, "one build per kind");
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two builds of a tournament at once");
        // Kept while the version holds; built again when it changes.
        let b = counted(&builds, &inside, &most, 0, "new");
        assert_eq!(downloads.get(7, Download::Trf, 1, b).await.unwrap(), "Trf");
        let b = counted(&builds, &inside, &most, 0, "new");
        assert_eq!(downloads.get(7, Download::Trf, 2, b).await.unwrap(), "new");
        assert_eq!(builds.load(Ordering::SeqCst), 4);
        // A request that stops waiting does not stop the build, which is then kept.
        let b = counted(&builds, &inside, &most, 200, "late");
        let d = downloads.clone();
        let gave_up =
            tokio::time::timeout(
                Duration::from_millis(20),
                async move { d.get(7, Download::Pgn, 3, b).await },
            )
            .await;
        assert!(gave_up.is_err());
        let b = counted(&builds, &inside, &most, 0, "again");
        assert_eq!(downloads.get(7, Download::Pgn, 3, b).await.unwrap(), "late");
        assert_eq!(builds.load(Ordering::SeqCst), 5);
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_few_tournaments_are_kept() {
        let downloads = Downloads::default();
        let builds = Arc::new(AtomicUsize::new(0));
        let build = |builds: &Arc<AtomicUsize>| {
            let builds = builds.clone();
            move || Ok(builds.fetch_add(1, Ordering::SeqCst).to_string())
        };
        for t in 0..=KEPT_TOURNAMENTS as i64 {
            downloads.get(t, Download::Trf, 1, build(&builds)).await.unwrap();
        }
        assert_eq!(downloads.slots.lock().unwrap().len(), KEPT_TOURNAMENTS);
        // The first asked went; the last is kept.
        let last = KEPT_TOURNAMENTS as i64;
        assert_eq!(downloads.get(last, Download::Trf, 1, build(&builds)).await.unwrap(), last.to_string());
        downloads.get(0, Download::Trf, 1, build(&builds)).await.unwrap();
        assert_eq!(builds.load(Ordering::SeqCst), KEPT_TOURNAMENTS + 2, "the first was built again");
    }
}
