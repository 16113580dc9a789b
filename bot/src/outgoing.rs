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

/// Where a request goes and what it is about, for the logs.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub platform: &'static str,
    pub channel: &'a str,
    pub about: Option<&'a str>,
}

/// Runs `attempt` until it succeeds, fails in a way `classify` says is not worth another try, or
/// the tries of [`BACKOFF`] run out. Returns the last error and how it was classified.
pub async fn retrying<T, E, F, Fut>(
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
    let mut waits = BACKOFF.iter();
    loop {
        let error = match attempt().await {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let failure = classify(&error);
        let about = to.about.unwrap_or("-");
        let wait = match failure {
            Failure::Transient(asked) => match (asked, waits.next()) {
                (Some(asked), Some(_)) if asked <= LONGEST_WAIT => Some(asked),
                (None, Some(ours)) => Some(*ours),
                _ => None,
            },
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

    fn classify(code: &u16) -> Failure {
        match code {
            429 => Failure::Transient(Some(Duration::from_millis(1))),
            500.. => Failure::Transient(None),
            403 => Failure::Forbidden,
            _ => Failure::Refused,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn server_errors_are_tried_again_and_refusals_are_not() {
        // Two server errors and a rate limit, then success: four tries.
        let tries = AtomicU32::new(0);
        let answers = [502u16, 500, 429];
        let sent = retrying(TO, "posting", classify, || async {
            let n = tries.fetch_add(1, Ordering::SeqCst) as usize;
            answers.get(n).map_or(Ok("taken"), |code| Err(*code))
        })
        .await;
        assert_eq!((sent, tries.load(Ordering::SeqCst)), (Ok("taken"), 4));
        for (code, failure) in
            [(403u16, Failure::Forbidden), (400, Failure::Refused), (404, Failure::Refused)]
        {
            let tries = AtomicU32::new(0);
            let sent: Result<(), _> = retrying(TO, "posting", classify, || async {
                tries.fetch_add(1, Ordering::SeqCst);
                Err(code)
            })
            .await;
            assert_eq!((sent, tries.load(Ordering::SeqCst)), (Err((code, failure)), 1), "{code}");
        }
        // A server that never recovers: the first try and one per backoff step.
        let tries = AtomicU32::new(0);
        let sent: Result<(), _> = retrying(TO, "posting", classify, || async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(503u16)
        })
        .await;
        assert_eq!(sent, Err((503, Failure::Transient(None))));
        assert_eq!(tries.load(Ordering::SeqCst), 1 + BACKOFF.len() as u32);
    }
}
