//! The practice opponent's worker: the bot's own turns in games against it (issue 16), searched
//! on ONE dedicated OS thread, off the chat runtime, one game at a time. The search is CPU-bound
//! for up to a few seconds; the adapters' async workers and every other game never wait for it.
//!
//! The service queues a game whenever the bot is to move in it ([`Queue::push`]); the worker takes
//! the games in order, has the service think and commit ([`Service::practice_turn`]), and hands
//! the announcement to the game's platform like a clock notice ([`crate::clock::Router`]).
//! Nothing here is stored: the games are, and [`Service::practice_resume`] queues them again at
//! start.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::clock::Router;
use crate::service::{Notice, Service, unix_now};
use crate::store::{GameId, Store};

/// The level a challenge to the bot gets when it names none: in the middle, a fair first game.
pub const DEFAULT_LEVEL: u8 = 3;

/// Running games against the bot one player may have on a platform: each is a turn on the one
/// worker thread, so one player cannot fill its queue for everyone else.
pub const MAX_GAMES_EACH: usize = 5;

/// The bot's answer is posted no sooner than this after the player's move was committed, so the
/// adapter has posted that move (its board, its text) first and the channel reads in order.
pub const MIN_ANSWER_DELAY: Duration = Duration::from_millis(1000);

/// Games in which the bot is to move, each once, oldest first. Bounded by the running games
/// against the bot (a game already waiting is not queued twice).
#[derive(Debug, Default)]
pub struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct State {
    jobs: VecDeque<(GameId, Instant)>,
    closed: bool,
}

impl Queue {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A job is a game number: a panic elsewhere cannot leave the queue half-changed.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues the bot's turn in `game` unless it is already waiting (or the queue was closed).
    pub fn push(&self, game: GameId) {
        let mut state = self.state();
        if state.closed || state.jobs.iter().any(|(g, _)| *g == game) {
            return;
        }
        state.jobs.push_back((game, Instant::now()));
        self.ready.notify_one();
    }

    /// The oldest waiting game, without waiting (the local mode answers at once).
    pub fn try_pop(&self) -> Option<GameId> {
        self.state().jobs.pop_front().map(|(g, _)| g)
    }

    /// How many games wait for the bot's turn.
    pub fn len(&self) -> usize {
        self.state().jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops the worker once its current game is done; later pushes are ignored.
    pub fn close(&self) {
        self.state().closed = true;
        self.ready.notify_all();
    }

    /// The next game and when it was queued; `None` once closed.
    pub(crate) fn pop_wait(&self) -> Option<(GameId, Instant)> {
        let mut state = self.state();
        loop {
            if state.closed {
                return None;
            }
            if let Some(job) = state.jobs.pop_front() {
                return Some(job);
            }
            state = self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// The running worker thread; [`Worker::stop`] ends it.
#[derive(Debug)]
pub struct Worker<S: Store + 'static> {
    service: Arc<Service<S>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<S: Store + 'static> Worker<S> {
    /// Queues the running games where the bot is to move on `router`'s platforms (a restart
    /// resumes them), then starts the one thread that plays the bot's turns and posts them
    /// through `router`.
    pub fn start(service: Arc<Service<S>>, router: Router) -> std::io::Result<Worker<S>> {
        let platforms = router.platforms();
        match service.practice_resume(Some(&platforms), None) {
            Ok(n) if n > 0 => tracing::info!(games = n, "resuming the bot's turns"),
            Ok(_) => {}
            Err(e) => tracing::error!("could not look for the bot's games to resume: {e:#}"),
        }
        let worker = Arc::clone(&service);
        let thread = std::thread::Builder::new().name("tessera-practice".into()).spawn(move || {
            while let Some((game, queued)) = worker.practice_queue().pop_wait() {
                let notices = worker.practice_turn(game, unix_now());
                // Sleeping here delays only the bot's games, and only those answered faster.
                if let Some(wait) = MIN_ANSWER_DELAY.checked_sub(queued.elapsed()) {
                    std::thread::sleep(wait);
                }
                router.deliver(notices);
            }
        })?;
        Ok(Worker { service, thread: Some(thread) })
    }

    /// Ends the thread after the game it is playing, if any; queued games stay in the database
    /// and are resumed by the next start.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.service.practice_queue().close();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the practice worker panicked");
        }
    }
}

impl<S: Store + 'static> Drop for Worker<S> {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The thread that pairs tournament rounds in chat mode ([`Service::pairing_step`]): a round of
/// thousands takes seconds to pair, and no answer waits for it. Its notices go to the outbox,
/// which the process's delivery loop posts ([`run_outbox`]).
#[derive(Debug)]
pub struct PairingWorker<S: Store + 'static> {
    service: Arc<Service<S>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<S: Store + 'static> PairingWorker<S> {
    /// Queues the running tournaments of `platforms` (a round a crash left unpaired is paired
    /// now) and starts the thread.
    pub fn start(service: Arc<Service<S>>, platforms: &[&str]) -> std::io::Result<PairingWorker<S>> {
        match service.resume_tournaments(platforms) {
            Ok(n) if n > 0 => tracing::info!(tournaments = n, "looking at the running tournaments"),
            Ok(_) => {}
            Err(e) => tracing::error!("could not look for running tournaments: {e:#}"),
        }
        let worker = Arc::clone(&service);
        let thread = std::thread::Builder::new()
            .name("tessera-pairing".into())
            .spawn(move || while worker.pairing_step() {})?;
        Ok(PairingWorker { service, thread: Some(thread) })
    }

    /// Ends the thread after the tournament it is moving on, if any.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.service.tournament_queue().close();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the pairing worker panicked");
        }
    }
}

impl<S: Store + 'static> Drop for PairingWorker<S> {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Whether a notice may be posted now ([`Service::may_post`]), asked off the async workers.
pub async fn holds_for_post<S: Store + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    notice: &Notice,
) -> bool {
    if notice.outbox.is_none() {
        return true;
    }
    // Only what the check reads: a notice may carry pictures.
    let claim =
        Notice { outbox: notice.outbox, claim_holder: notice.claim_holder.clone(), ..Notice::default() };
    let service = Arc::clone(service);
    tokio::task::spawn_blocking(move || service.may_post(&claim)).await.unwrap_or(false)
}

/// How often the outbox is looked at when nothing wakes it: notices another process wrote, or
/// whose claim ran out.
pub const OUTBOX_PERIOD: Duration = Duration::from_secs(5);

/// Posts the outbox's notices for `router`'s platforms until the process ends: whenever this
/// process wrote some ([`Service::outbox_ready`]) and every [`OUTBOX_PERIOD`] besides.
pub async fn run_outbox<S: Store + Send + Sync + 'static>(service: Arc<Service<S>>, router: Router) {
    let platforms = router.platforms();
    let ready = Arc::clone(&service.outbox_ready);
    loop {
        let (s, ps) = (Arc::clone(&service), platforms.clone());
        match tokio::task::spawn_blocking(move || s.outbox_due(Some(&ps))).await {
            Ok(notices) => {
                router.deliver(notices);
            }
            Err(e) => tracing::error!("looking at the outbox panicked: {e}"),
        }
        tokio::select! {
            _ = ready.notified() => {}
            _ = tokio::time::sleep(OUTBOX_PERIOD) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_waits_once_and_a_closed_queue_takes_nothing() {
        let q = Queue::default();
        q.push(3);
        q.push(4);
        q.push(3);
        assert_eq!(q.len(), 2);
        assert_eq!(q.try_pop(), Some(3));
        assert_eq!(q.pop_wait().map(|j| j.0), Some(4));
        q.close();
        q.push(5);
        assert!(q.is_empty());
        assert_eq!(q.pop_wait(), None);
    }
}
