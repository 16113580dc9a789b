//! The one send path both adapters post through: every request a platform may fail for a moment
//! (a server error, a dropped connection, a rate limit) is tried again with backoff; one it
//! refuses as it is (any other 4xx) is not, since it would be refused again; every failure is
//! logged with what the message was about (a game, a tournament) and where it went.

use std::future::Future;
use std::time::Duration;

/// How a platform's failure to take a request is to be met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The server or the network failed, or asked us to slow down: try again, after the
    /// platform's own wait where it gave one.
    Transient(Option<Duration>),
    /// The bot may not do this here (Discord's 403, Matrix's M_FORBIDDEN): a missing permission.
    Forbidden,
    /// Refused as it is (any other 4xx): trying again would be refused again.
    Refused,
}

/// The waits between tries of one request: five more tries within 16 seconds, well inside the
/// time a notice's post is given ([`tessera_core::outbox::POST_TIMEOUT`]).
pub const BACKOFF: [Duration; 5] = [
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
];

/// The longest wait a platform's own retry-after is followed for; a longer one ends the tries (the
/// outbox tries the notice again later).
const LONGEST_WAIT: Duration = Duration::from_secs(20);

/// How long one request may wait out rate limits in all. A rate limit is the platform pacing the
/// bot, not failing: its waits do not use up [`BACKOFF`]'s tries, only this. Short enough that a
/// notice's post ends within its time ([`tessera_core::outbox::POST_TIMEOUT`]) rather than being
/// cut off after a part of it went out, which would post that part twice.
pub const RATE_LIMIT_BUDGET: Duration = Duration::from_secs(20);

/// Where a request goes and what it is about, for the logs.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub platform: &'static str,
    pub channel: &'a str,
    pub about: Option<&'a str>,
}

/// How long to wait between tries.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// After each server or network error, in turn; when they run out, the tries end.
    pub backoff: &'static [Duration],
    /// The longest single wait a rate limit may ask for.
    pub longest_wait: Duration,
    /// All of one request's rate-limit waits together.
    pub budget: Duration,
}

/// The schedule every post follows.
pub const SCHEDULE: Schedule =
    Schedule { backoff: &BACKOFF, longest_wait: LONGEST_WAIT, budget: RATE_LIMIT_BUDGET };

/// Runs `attempt` until it succeeds, fails in a way `classify` says is not worth another try, or
/// the tries of [`BACKOFF`] run out. Returns the last error and how it was classified.
pub async fn retrying<T, E, F, Fut>(
    to: Target<'_>,
    what: &str,
    classify: impl Fn(&E) -> Failure,
    attempt: F,
) -> Result<T, (E, Failure)>
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    retrying_on(SCHEDULE, to, what, classify, attempt).await
}

/// [`retrying`] on another schedule.
pub async fn retrying_on<T, E, F, Fut>(
    schedule: Schedule,
    to: Target<'_>,
    what: &str,
    classify: impl Fn(&E) -> Failure,
    mut attempt: F,
) -> Result<T, (E, Failure)>
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut waits = schedule.backoff.iter();
    let mut paced = Duration::ZERO;
    loop {
        let error = match attempt().await {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let failure = classify(&error);
        let about = to.about.unwrap_or("-");
        let wait = match failure {
            Failure::Transient(Some(asked))
                if asked <= schedule.longest_wait && paced + asked <= schedule.budget =>
            {
                paced += asked;
                Some(asked)
            }
            Failure::Transient(Some(_)) => None,
            Failure::Transient(None) => waits.next().copied(),
            Failure::Forbidden | Failure::Refused => None,
        };
        match wait {
            Some(wait) => {
                tracing::info!(
                    platform = to.platform,
                    channel = to.channel,
                    about,
                    "{what}: {error}; trying again in {wait:?}"
                );
                tokio::time::sleep(wait).await;
            }
            None => {
                tracing::warn!(
                    platform = to.platform,
                    channel = to.channel,
                    about,
                    ?failure,
                    "{what} failed: {error}"
                );
                return Err((error, failure));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    const TO: Target<'static> = Target { platform: "test", channel: "c", about: Some("game #1") };

    /// The real schedule's shape, in milliseconds.
    const QUICK: Schedule = Schedule {
        backoff: &[Duration::from_millis(1); 5],
        longest_wait: Duration::from_millis(20),
        budget: Duration::from_millis(20),
    };

    fn classify(code: &u16) -> Failure {
        match code {
            429 => Failure::Transient(Some(Duration::from_micros(10))),
            500.. => Failure::Transient(None),
            403 => Failure::Forbidden,
            _ => Failure::Refused,
        }
    }

    #[tokio::test]
    async fn server_errors_are_tried_again_and_refusals_are_not() {
        // Two server errors and a rate limit, then success: four tries.
        let tries = AtomicU32::new(0);
        let answers = [502u16, 500, 429];
        let sent = retrying_on(QUICK, TO, "posting", classify, || async {
            let n = tries.fetch_add(1, Ordering::SeqCst) as usize;
            answers.get(n).map_or(Ok("taken"), |code| Err(*code))
        })
        .await;
        assert_eq!((sent, tries.load(Ordering::SeqCst)), (Ok("taken"), 4));
        for (code, failure) in
            [(403u16, Failure::Forbidden), (400, Failure::Refused), (404, Failure::Refused)]
        {
            let tries = AtomicU32::new(0);
            let sent: Result<(), _> = retrying_on(QUICK, TO, "posting", classify, || async {
                tries.fetch_add(1, Ordering::SeqCst);
                Err(code)
            })
            .await;
            assert_eq!((sent, tries.load(Ordering::SeqCst)), (Err((code, failure)), 1), "{code}");
        }
        // A server that never recovers: the first try and one per backoff step.
        let tries = AtomicU32::new(0);
        let sent: Result<(), _> = retrying_on(QUICK, TO, "posting", classify, || async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(503u16)
        })
        .await;
        assert_eq!(sent, Err((503, Failure::Transient(None))));
        assert_eq!(tries.load(Ordering::SeqCst), 1 + QUICK.backoff.len() as u32);
        // A long run of short rate limits is waited out past the backoff's count.
        let tries = AtomicU32::new(0);
        let sent = retrying_on(QUICK, TO, "posting", classify, || async {
            match tries.fetch_add(1, Ordering::SeqCst) {
                0..20 => Err(429u16),
                _ => Ok(()),
            }
        })
        .await;
        assert_eq!((sent, tries.load(Ordering::SeqCst)), (Ok(()), 21));
    }

    #[tokio::test]
    async fn rate_limits_are_waited_out_within_a_budget() {
        // Asked to wait 8 ms each time: two waits fit the 20 ms budget, the third is not made.
        let tries = AtomicU32::new(0);
        let slow = |_: &u16| Failure::Transient(Some(Duration::from_millis(8)));
        let started = std::time::Instant::now();
        let sent: Result<(), _> = retrying_on(QUICK, TO, "posting", slow, || async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(429u16)
        })
        .await;
        assert!(sent.is_err());
        assert_eq!(tries.load(Ordering::SeqCst), 3);
        assert!(started.elapsed() >= Duration::from_millis(16), "both waits were made");
        // A wait longer than a request may take ends the tries at once.
        let long = |_: &u16| Failure::Transient(Some(Duration::from_secs(3600)));
        let sent: Result<(), _> = retrying_on(QUICK, TO, "posting", long, || async { Err(429u16) }).await;
        assert_eq!(sent, Err((429, Failure::Transient(Some(Duration::from_secs(3600))))));
    }
}
