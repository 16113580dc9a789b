//! A per-user limit on what the bot answers: a burst of commands is fine, a flood is not. Each
//! user has a bucket of [`RateLimit::burst`] tokens, refilled one every
//! [`RateLimit::seconds_per_command`]; a command takes one. The first command refused in a row
//! gets a polite answer; the rest of that flood gets silence, so the bot is never made to spam.

use std::collections::HashMap;
use std::sync::Mutex;

/// Users remembered at most; past this, those with full buckets are forgotten.
const MAX_TRACKED: usize = 10_000;

#[derive(Debug)]
pub struct RateLimit {
    pub burst: u32,
    pub seconds_per_command: u32,
    buckets: Mutex<HashMap<(String, String), Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: u32,
    /// When the last token was added (or the bucket made).
    refilled_at: i64,
    /// Whether the user was already told to slow down since the bucket last had a token.
    told: bool,
}

/// What to do with a user's command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Answer,
    /// Refused: tell the user once, with the seconds until the next command is answered.
    SlowDown(u32),
    /// Refused, already told.
    Ignore,
}

impl Default for RateLimit {
    /// Ten commands at once, then one every three seconds: more than any player types.
    fn default() -> Self {
        RateLimit::new(10, 3)
    }
}

impl RateLimit {
    pub fn new(burst: u32, seconds_per_command: u32) -> RateLimit {
        RateLimit {
            burst: burst.max(1),
            seconds_per_command: seconds_per_command.max(1),
            buckets: Mutex::default(),
        }
    }

    /// Takes a token from `user`'s bucket on `platform` at `now` (seconds), if there is one.
    pub fn check(&self, platform: &str, user: &str, now: i64) -> Verdict {
        let mut buckets = self.buckets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if buckets.len() >= MAX_TRACKED {
            // Forget the idle first (a full bucket is what a forgotten user gets), then all but
            // the floods in progress, then, at worst, everyone.
            buckets.retain(|_, b| self.refill(*b, now).tokens < self.burst);
            if buckets.len() >= MAX_TRACKED {
                buckets.retain(|_, b| self.refill(*b, now).tokens == 0);
            }
            if buckets.len() >= MAX_TRACKED {
                buckets.clear();
            }
        }
        let fresh = Bucket { tokens: self.burst, refilled_at: now, told: false };
        let bucket = buckets.entry((platform.to_string(), user.to_string())).or_insert(fresh);
        *bucket = self.refill(*bucket, now);
        if bucket.tokens > 0 {
            bucket.tokens -= 1;
            bucket.told = false;
            return Verdict::Answer;
        }
        if bucket.told {
            return Verdict::Ignore;
        }
        bucket.told = true;
        let wait = bucket.refilled_at + i64::from(self.seconds_per_command) - now;
        Verdict::SlowDown(wait.clamp(1, i64::from(self.seconds_per_command)) as u32)
    }

    fn refill(&self, mut b: Bucket, now: i64) -> Bucket {
        let per = i64::from(self.seconds_per_command);
        let earned = (now - b.refilled_at).max(0) / per;
        if earned > 0 {
            b.tokens = (i64::from(b.tokens) + earned).min(i64::from(self.burst)) as u32;
            b.refilled_at = if b.tokens == self.burst { now } else { b.refilled_at + earned * per };
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_every_few_seconds() {
        let limit = RateLimit::new(3, 2);
        for _ in 0..3 {
            assert_eq!(limit.check("d", "ann", 100), Verdict::Answer);
        }
        assert_eq!(limit.check("d", "ann", 100), Verdict::SlowDown(2));
        assert_eq!(limit.check("d", "ann", 101), Verdict::Ignore, "told once per flood");
        // Another user, or the same name on another platform, has a bucket of its own.
        assert_eq!(limit.check("d", "bob", 101), Verdict::Answer);
        assert_eq!(limit.check("m", "ann", 101), Verdict::Answer);
        assert_eq!(limit.check("d", "ann", 102), Verdict::Answer, "a token every 2 s");
        assert_eq!(limit.check("d", "ann", 102), Verdict::SlowDown(2), "a new flood is told again");
        // A long pause fills the bucket, never beyond the burst.
        for _ in 0..3 {
            assert_eq!(limit.check("d", "ann", 1_000), Verdict::Answer);
        }
        assert_eq!(limit.check("d", "ann", 1_000), Verdict::SlowDown(2));
    }

    #[test]
    fn memory_is_bounded() {
        let limit = RateLimit::new(2, 1);
        for i in 0..(MAX_TRACKED + 50) {
            limit.check("d", &i.to_string(), 0);
        }
        assert!(limit.buckets.lock().unwrap().len() <= MAX_TRACKED + 1);
        // A user mid-flood is not forgotten to make room.
        let limit = RateLimit::new(2, 1000);
        limit.check("d", "flooder", 0);
        limit.check("d", "flooder", 0);
        for i in 0..MAX_TRACKED {
            limit.check("d", &i.to_string(), 0);
        }
        assert_eq!(limit.check("d", "flooder", 0), Verdict::SlowDown(1000));
    }
}
