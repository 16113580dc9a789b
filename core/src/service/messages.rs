//! What passes between an adapter and the service: a message in ([`Incoming`]), replies out
//! ([`Reply`]), notices nobody asked for ([`Notice`]), and the people they name ([`User`]).

use crate::command_spec::Actions;
use crate::model::{GameId, Player};

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
    /// The thread of `channel` it was written in, where the platform says (a Matrix thread's
    /// root event). A Discord thread is a channel of its own: the adapter passes it as the
    /// channel, and the service finds the game it belongs to ([`Service::handle`]).
    pub thread: Option<&'a str>,
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
    /// Never to be seen by anyone but the author (a prompt that names a winning answer): where
    /// the platform cannot answer privately in place (a typed command), the adapter sends it by
    /// direct message and says in the channel only that it did. Implies `private`.
    pub secret: bool,
    /// Files sent with the text: exports (TRF, PGN) and a long answer in whole.
    pub files: Vec<Attachment>,
    /// What the reply is about ("game #12", "tournament #3"), for the adapter's logs; read
    /// through [`Reply::about`], which falls back on the reply's buttons.
    pub about: Option<String>,
    /// The game whose change (a turn, an offer, its end) the reply announces: it goes to the
    /// game's thread, where the game has one ([`Reply::thread`]).
    pub game: Option<GameId>,
    /// Where in its channel the reply is posted instead of where the message came: the game's
    /// thread (a Discord thread's channel id, a Matrix thread's root event).
    pub thread: Option<String>,
    /// The game this reply begins wants a thread of its own, started from the reply's first
    /// message or the challenge it answers (the adapter makes it and records it, or that it
    /// could not: [`Service::thread_made`]).
    pub open_thread: Option<ThreadOpening>,
}

/// A thread to start for a game: the game and the thread's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadOpening {
    pub game: GameId,
    pub name: String,
}

/// A file a reply carries: a name with its extension (`game-12.pgn`) and the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Largest file the bot attaches: within Discord's smallest upload limit (10 MiB for a server
/// without boosts) and any homeserver's usual one; a larger file is left out and the text says so.
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;

/// Longest export shown in the text itself (one Discord message, fences included); a longer
/// one is only attached.
pub const INLINE_EXPORT_CHARS: usize = 1900;

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

    /// The reply as the announcement of a change to `game` ([`Reply::game`]).
    pub(super) fn of_game(mut self, game: GameId) -> Reply {
        self.game = Some(game);
        self
    }

    pub(super) fn notifying(mut self, player: &Player) -> Reply {
        self.notify.push(player.user_id.clone());
        self
    }

    /// Whether it is private words alone (a [`crate::outbox::NoticeKind::Direct`] notice): sent
    /// by direct message, with nothing to post in its channel.
    pub fn only_direct(&self) -> bool {
        self.text.is_empty()
            && self.image.is_none()
            && self.animation.is_none()
            && self.files.is_empty()
            && !self.direct.is_empty()
    }

    /// What the reply is about, for logs: as set, or the game or tournament its buttons act on.
    pub fn about(&self) -> Option<String> {
        if self.about.is_some() {
            return self.about.clone();
        }
        self.actions.map(|a| match a {
            Actions::Tournament(t) => format!("tournament #{t}"),
            other => format!("game #{}", other.buttons().0),
        })
    }

    /// What is said privately in place of posting the reply in `channel`, which no longer takes
    /// the bot's posts ([`Service::posting_stopped`]): to each player it concerns, where it could
    /// not be posted and its text; and the reply's own private words.
    pub fn words_instead(&self, platform: &str, channel: &str) -> Vec<(String, String)> {
        let text = format!(
            "I can no longer post in the channel {} (I lack a permission there; an admin of it can \
             give it back). What I had to say there:\n{}",
            super::channel_name(platform, channel),
            self.text
        );
        let mut words: Vec<(String, String)> =
            self.notify.iter().map(|u| (u.clone(), text.clone())).collect();
        words.extend(self.direct.iter().cloned());
        words
    }

    /// An export: shown in the text when short enough for one message (in a code block, as
    /// `fenced` asks), always attached as `name`; `summary` stands in for a longer one.
    pub(super) fn export(name: String, body: String, fenced: bool, summary: String) -> Reply {
        let shown = if fenced { format!("```\n{body}```") } else { body.clone() };
        let text = if shown.chars().count() <= INLINE_EXPORT_CHARS { shown } else { summary };
        Reply { files: vec![Attachment { name, bytes: body.into_bytes() }], ..Reply::text(text) }
    }

    /// The reply within [`MAX_REPLY_CHARS`]: a longer text keeps its first whole lines, and the
    /// whole text goes with it as a file (within [`MAX_FILE_BYTES`]). Private words are cut the
    /// same way, and files over the limit are left out with a word why.
    pub(super) fn capped(mut self) -> Reply {
        self.direct =
            std::mem::take(&mut self.direct).into_iter().map(|(u, t)| (u, cap_text(t, None))).collect();
        let too_big: Vec<String> =
            self.files.iter().filter(|f| f.bytes.len() > MAX_FILE_BYTES).map(|f| f.name.clone()).collect();
        if !too_big.is_empty() {
            self.files.retain(|f| f.bytes.len() <= MAX_FILE_BYTES);
            self.text.push_str(&format!(
                "\n({} left out: larger than the {} MiB a message may carry)",
                too_big.join(", "),
                MAX_FILE_BYTES >> 20
            ));
        }
        if self.text.chars().count() <= MAX_REPLY_CHARS {
            return self;
        }
        let whole = std::mem::take(&mut self.text);
        let attach = whole.len() <= MAX_FILE_BYTES;
        self.text = cap_text(whole.clone(), attach.then_some(LONG_ANSWER_FILE));
        if attach {
            self.files.push(Attachment { name: LONG_ANSWER_FILE.into(), bytes: whole.into_bytes() });
        }
        self
    }
}

/// The file a long answer goes in whole.
pub const LONG_ANSWER_FILE: &str = "tessera-answer.txt";

/// `text` within [`MAX_REPLY_CHARS`]: its first whole lines, and how many were left out (and in
/// which file the whole is, where it is attached).
fn cap_text(text: String, whole_in: Option<&str>) -> String {
    if text.chars().count() <= MAX_REPLY_CHARS {
        return text;
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = String::new();
    let (mut shown, mut length) = (0, 0);
    for line in &lines {
        length += line.chars().count() + 1;
        if length > MAX_REPLY_CHARS - 200 {
            break;
        }
        kept.push_str(line);
        kept.push('\n');
        shown += 1;
    }
    if shown == 0 {
        // One enormous line: cut inside it, at a character.
        kept = text.chars().take(MAX_REPLY_CHARS - 200).collect();
        kept.push_str("…\n");
    }
    let left = lines.len().saturating_sub(shown.max(1));
    kept.push_str(&match whole_in {
        Some(file) => {
            format!("… {left} more lines are not shown here; the whole answer is attached ({file}).")
        }
        None => format!(
            "… {left} more lines are not shown here; ask for a narrower answer (a game number, a round)."
        ),
    });
    kept
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
    /// Files besides, as a [`Reply`] carries them.
    pub files: Vec<Attachment>,
    /// What it is about, for logs ([`Reply::about`]).
    pub about: Option<String>,
    /// As a [`Reply`] carries them: the game it announces a change of, the thread it goes to,
    /// the thread its game wants.
    pub game: Option<GameId>,
    pub thread: Option<String>,
    pub open_thread: Option<ThreadOpening>,
}

impl Notice {
    /// A reply to post in a game's channel though nobody wrote there.
    pub(super) fn posting(platform: &str, channel: &str, reply: Reply) -> Notice {
        let Reply {
            text,
            image,
            animation,
            diagram,
            actions,
            notify,
            direct,
            outbox,
            files,
            about,
            game,
            thread,
            open_thread,
            ..
        } = reply.capped();
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
            files,
            about,
            game,
            thread,
            open_thread,
        }
    }

    /// The notice as the reply an adapter posts.
    pub fn into_reply(self) -> Reply {
        let Notice {
            text,
            notify,
            image,
            animation,
            diagram,
            actions,
            direct,
            outbox,
            files,
            about,
            game,
            thread,
            open_thread,
            ..
        } = self;
        Reply {
            text,
            notify,
            image,
            animation,
            diagram,
            actions,
            direct,
            outbox,
            files,
            about,
            game,
            thread,
            open_thread,
            ..Reply::default()
        }
    }
}
