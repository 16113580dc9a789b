//! What passes between an adapter and the service: a message in ([`Incoming`]), replies out
//! ([`Reply`]), notices nobody asked for ([`Notice`]), and the people they name ([`User`]).

use crate::command_spec::Actions;
use crate::model::Player;

/// A person on a chat platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
}

impl User {
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> User {
        User { id: id.into(), name: name.into() }
    }
}

/// Seconds since the Unix epoch: the clock every adapter stamps [`Incoming::now`] with.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// One chat message addressed to the service.
#[derive(Clone, Debug)]
pub struct Incoming<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub author: &'a User,
    /// The platform says the author may administer this channel.
    pub is_admin: bool,
    pub text: &'a str,
    /// Users the message mentions, resolved by the adapter, in order.
    pub mentions: &'a [User],
    /// Seconds since the Unix epoch.
    pub now: i64,
}

/// What the bot says back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// A PNG of the board.
    pub image: Option<Vec<u8>>,
    /// A finished game as an animated GIF.
    pub animation: Option<Vec<u8>>,
    /// A text diagram of the board, for terminals.
    pub diagram: Option<String>,
    /// Only the author needs to see it (errors), where the platform can do that.
    pub private: bool,
    /// What the reply is about, for platforms that put buttons under it.
    pub actions: Option<Actions>,
    /// Platform user ids of the people the reply concerns who did not write the message (the
    /// player to move, the one challenged): platforms that can, notify them.
    pub notify: Vec<String>,
    /// Private messages to send besides, where the platform can: (platform user id, text).
    pub direct: Vec<(String, String)>,
    /// The stored notice this reply posts ([`crate::outbox`]): the adapter marks it sent
    /// ([`Service::notice_sent`]) once the platform took the reply.
    pub outbox: Option<i64>,
}

/// One autocomplete suggestion: what the user sees, and what it fills in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub label: String,
    pub value: String,
}

impl Reply {
    pub(super) fn text(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), ..Reply::default() }
    }

    pub(super) fn error(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), private: true, ..Reply::default() }
    }

    pub(super) fn notifying(mut self, player: &Player) -> Reply {
        self.notify.push(player.user_id.clone());
        self
    }

    /// The reply within [`MAX_REPLY_CHARS`]: a longer text keeps its first whole lines and says
    /// how many were left out.
    pub(super) fn capped(mut self) -> Reply {
        if self.text.chars().count() <= MAX_REPLY_CHARS {
            return self;
        }
        let lines: Vec<&str> = self.text.lines().collect();
        let mut kept = String::new();
        let mut shown = 0;
        for line in &lines {
            if kept.chars().count() + line.chars().count() + 1 > MAX_REPLY_CHARS - 200 {
                break;
            }
            kept.push_str(line);
            kept.push('\n');
            shown += 1;
        }
        if shown == 0 {
            // One enormous line: cut inside it, at a character.
            kept = self.text.chars().take(MAX_REPLY_CHARS - 200).collect();
            kept.push_str("…\n");
        }
        let left = lines.len().saturating_sub(shown.max(1));
        kept.push_str(&format!(
            "… {left} more lines are not shown here; ask for a narrower answer (a game number, a round)."
        ));
        self.text = kept;
        self
    }
}

/// Longest reply text the bot sends at once (four Discord messages); longer answers are cut.
pub const MAX_REPLY_CHARS: usize = 8000;

/// A message the service sends on its own (reminders, losses on time, the practice opponent's
/// moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notice {
    pub platform: String,
    pub channel: String,
    pub text: String,
    /// Platform user ids of the players it concerns.
    pub notify: Vec<String>,
    /// The board after a move, as a [`Reply`] carries it.
    pub image: Option<Vec<u8>>,
    pub animation: Option<Vec<u8>>,
    pub diagram: Option<String>,
    pub actions: Option<Actions>,
    /// Private messages besides: (platform user id, text).
    pub direct: Vec<(String, String)>,
    /// The stored notice it is ([`crate::outbox`]): marked sent once posted.
    pub outbox: Option<i64>,
    /// The claim it is posted under ([`Service::may_post`]).
    pub claim_holder: Option<String>,
}

impl Notice {
    /// A reply to post in a game's channel though nobody wrote there.
    pub(super) fn posting(platform: &str, channel: &str, reply: Reply) -> Notice {
        let Reply { text, image, animation, diagram, actions, notify, direct, outbox, .. } = reply.capped();
        Notice {
            platform: platform.into(),
            channel: channel.into(),
            text,
            notify,
            image,
            animation,
            diagram,
            actions,
            direct,
            outbox,
            claim_holder: None,
        }
    }

    /// The notice as the reply an adapter posts.
    pub fn into_reply(self) -> Reply {
        let Notice { text, notify, image, animation, diagram, actions, direct, outbox, .. } = self;
        Reply { text, notify, image, animation, diagram, actions, direct, outbox, ..Reply::default() }
    }
}
