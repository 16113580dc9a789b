//! The outbox: notices a player must get (a round paired, a game lost on time, a reminder, a result
//! set by the organiser) are stored in the transaction of the change they announce, posted after
//! it commits, and marked sent once the platform took them.
//!
//! Exactly one process posts a notice: the one whose claim on it ([`crate::store::Store::outbox_claim`])
//! is current. A notice the answer to a command carries is claimed by the process answering, when
//! it is written; the others are claimed by whichever process looks first. A claim lasts
//! [`CLAIM_MS`]; one that ran out (its process died) is taken up by the next look, after a restart
//! or in another process. A notice is posted twice only when its process dies (or loses the
//! database) between the platform taking it and the mark, one short write right after the post; or
//! when a post outlives its claim: a command's answer is posted at once, well within [`CLAIM_MS`],
//! and the delivery loop renews the claim just before each post, gives the post [`POST_TIMEOUT`]
//! (half the claim), and posts nothing whose claim it no longer holds.

/// How long a claim on a notice lasts (milliseconds).
pub const CLAIM_MS: i64 = 60_000;

/// How long an adapter waits for the platform to take a notice; its claim is renewed for
/// [`CLAIM_MS`] just before, so the post ends (or is given up) well within the claim.
pub const POST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What a notice is, and so what is added to its text when it is posted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NoticeKind {
    /// Its text, as written.
    Text,
    /// A tournament's round (`subject`, `round`): the pairings are read from the store when it is
    /// posted, each player's own word sent privately.
    Round,
    /// A game begun or over (`subject`): posted with its board, with its buttons while it is
    /// played, and with its GIF once it is over.
    Game,
    /// Private words (a daily digest): its text goes to each of `notify` by direct message and
    /// nothing is posted in `channel`, which only says where it is delivered from (a Matrix room's
    /// queue, the logs).
    Direct,
    /// A finished game's analysis (`subject`): posted with its graph, drawn from the stored
    /// evaluations.
    Analysis,
}

impl NoticeKind {
    pub fn name(self) -> &'static str {
        match self {
            NoticeKind::Text => "text",
            NoticeKind::Round => "round",
            NoticeKind::Game => "game",
            NoticeKind::Direct => "direct",
            NoticeKind::Analysis => "analysis",
        }
    }

    pub fn parse(text: &str) -> NoticeKind {
        match text {
            "round" => NoticeKind::Round,
            "game" => NoticeKind::Game,
            "direct" => NoticeKind::Direct,
            "analysis" => NoticeKind::Analysis,
            _ => NoticeKind::Text,
        }
    }
}

/// Who holds a notice for posting, and until when (unix milliseconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub holder: String,
    pub until_ms: i64,
}

/// A notice to store with a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewNotice {
    pub platform: String,
    pub channel: String,
    pub kind: NoticeKind,
    /// The tournament (a round) or the game (a game over) it is about.
    pub subject: Option<i64>,
    pub round: Option<u32>,
    /// What it says. A knockout replay's text says `{game}` where the game the change creates goes.
    pub text: String,
    pub notify: Vec<String>,
    /// Held for the process answering a command, which posts it as part of its answer.
    pub claim: Option<Claim>,
}

impl NewNotice {
    pub fn text(platform: &str, channel: &str, text: impl Into<String>, notify: Vec<String>) -> NewNotice {
        NewNotice {
            platform: platform.into(),
            channel: channel.into(),
            kind: NoticeKind::Text,
            subject: None,
            round: None,
            text: text.into(),
            notify,
            claim: None,
        }
    }

    /// Private words to `user` alone ([`NoticeKind::Direct`]), delivered from `channel`.
    pub fn direct(platform: &str, channel: &str, user: &str, text: impl Into<String>) -> NewNotice {
        NewNotice {
            kind: NoticeKind::Direct,
            ..NewNotice::text(platform, channel, text, vec![user.to_string()])
        }
    }

    pub fn claimed(mut self, claim: Option<&Claim>) -> NewNotice {
        self.claim = claim.cloned();
        self
    }

    /// Its text and subject as stored with a change that created `game`: a `{game}` in the text
    /// becomes its number, and a notice about no other subject is about it.
    pub fn for_game(&self, game: Option<i64>) -> (String, Option<i64>) {
        match game {
            Some(g) => (self.text.replace("{game}", &g.to_string()), self.subject.or(Some(g))),
            None => (self.text.clone(), self.subject),
        }
    }

    /// The user ids as stored: one per line.
    pub fn notify_column(&self) -> String {
        self.notify.join("\n")
    }
}

/// A stored notice not yet marked sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxRow {
    pub id: i64,
    pub platform: String,
    pub channel: String,
    pub kind: NoticeKind,
    pub subject: Option<i64>,
    pub round: Option<u32>,
    pub text: String,
    pub notify: Vec<String>,
    pub created_at: i64,
}

/// The user ids of a stored `notify` column.
pub fn notify_list(column: &str) -> Vec<String> {
    column.lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}
