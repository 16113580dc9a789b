//! The background workers ([`Worker`]): tournament pairing, and the practice opponent's worker: the bot's own turns in games against it (issue 16), searched
//! on ONE dedicated OS thread, off the chat runtime, one game at a time. The search is CPU-bound
//! for up to a few seconds; the adapters' async workers and every other game never wait for it.
//!
//! The service queues a game whenever the bot is to move in it ([`Queue::push`]); the worker takes
//! the games in order, has the service think and commit ([`Service::practice_turn`]), and hands
//! the announcement to the game's platform like a clock notice ([`crate::router::Router`]).
//! Nothing here is stored: the games are, and [`Service::practice_resume`] queues them again at
//! start.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::router::Router;
use tessera_core::queue::Job;
#[cfg(test)]
use tessera_core::queue::Queue;
use tessera_core::service::{Service, unix_now};
use tessera_core::store::Store;

/// The bot's answer is posted no sooner than this after the player's move was committed, so the
/// adapter has posted that move (its board, its text) first and the channel reads in order.
pub const MIN_ANSWER_DELAY: Duration = Duration::from_millis(1000);

/// A background thread working through one of the service's queues: the practice opponent's
/// turns ([`Worker::start`]) or tournaments to move on ([`Worker::pairing`]). [`Worker::stop`]
/// (or dropping it) closes the queue and waits for the job in hand; what was queued is in the
/// database and queued again by the next start.
#[derive(Debug)]
pub struct Worker<S: Store + 'static> {
    service: Arc<Service<S>>,
    /// Closes the queue it works through, to stop it.
    close: fn(&Service<S>),
    /// What it does, for the log.
    what: &'static str,
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
        match service.analysis_resume(Some(&platforms)) {
            Ok(n) if n > 0 => tracing::info!(games = n, "resuming the analyses asked for"),
            Ok(_) => {}
            Err(e) => tracing::error!("could not look for the analyses to resume: {e:#}"),
        }
        let worker = Arc::clone(&service);
        Worker::spawn(
            service,
            |s| s.practice_queue().close(),
            "practice",
            move || {
                let queue = worker.practice_queue();
                let run = |job: &Job, queued: Instant| {
                    // An analysis plays the turns and hints that come meanwhile between its
                    // positions, and stops (to be resumed at the next start) when the worker stops.
                    let mut between = || {
                        while let Some((urgent, at)) = queue.try_pop_queued() {
                            deliver_after(
                                &router,
                                worker.practice_job(&urgent, unix_now(), &mut || true),
                                at,
                            );
                        }
                        !queue.is_closed()
                    };
                    let notices = worker.practice_job(job, unix_now(), &mut between);
                    deliver_after(&router, notices, queued);
                };
                while let Some((job, queued)) = queue.pop_wait() {
                    run(&job, queued);
                }
            },
        )
    }

    /// Tournament rounds in chat mode ([`Service::pairing_step`]): a round of thousands takes
    /// seconds to pair, and no answer waits for it; its notices go to the outbox
    /// ([`crate::delivery::run_outbox`]). Queues the running tournaments of `platforms` first, so
    /// a round a crash left unpaired is paired now.
    pub fn pairing(service: Arc<Service<S>>, platforms: &[&str]) -> std::io::Result<Worker<S>> {
        match service.resume_tournaments(platforms) {
            Ok(n) if n > 0 => tracing::info!(tournaments = n, "looking at the running tournaments"),
            Ok(_) => {}
            Err(e) => tracing::error!("could not look for running tournaments: {e:#}"),
        }
        let worker = Arc::clone(&service);
        Worker::spawn(
            service,
            |s| s.tournament_queue().close(),
            "pairing",
            move || while worker.pairing_step() {},
        )
    }

    /// Writes each game's turns for autocomplete as soon as a turn is committed
    /// ([`Service::write_turns_step`]), so the player's first keystroke is answered at once; for the
    /// platforms that suggest turns as they are typed, with [`Service::write_turns_ahead`] on.
    pub fn turns(service: Arc<Service<S>>) -> std::io::Result<Worker<S>> {
        let worker = Arc::clone(&service);
        Worker::spawn(
            service,
            |s| s.turns_ahead_queue().close(),
            "turns",
            move || while worker.write_turns_step() {},
        )
    }

    fn spawn(
        service: Arc<Service<S>>,
        close: fn(&Service<S>),
        what: &'static str,
        work: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Worker<S>> {
        let thread = std::thread::Builder::new().name(format!("tessera-{what}")).spawn(work)?;
        Ok(Worker { service, close, what, thread: Some(thread) })
    }

    /// Ends the thread after the job it is doing, if any.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        (self.close)(&self.service);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!(worker = self.what, "a worker panicked");
        }
    }
}

impl<S: Store + 'static> Drop for Worker<S> {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Posts a job's notices, no sooner than [`MIN_ANSWER_DELAY`] after it was queued. Sleeping here
/// delays only the bot's games, and only those answered faster.
fn deliver_after(router: &Router, notices: Vec<tessera_core::service::Notice>, queued: Instant) {
    if notices.is_empty() {
        return;
    }
    if let Some(wait) = MIN_ANSWER_DELAY.checked_sub(queued.elapsed()) {
        std::thread::sleep(wait);
    }
    router.deliver(notices);
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
