//! Everything the bot says goes through one queue per room: a task per room answers its commands
//! and posts its notices in order, so a room held up by a rate limit holds up nobody else. Each
//! request goes through [`crate::outgoing::retrying`]. [`Positions`] keeps the saved sync
//! position behind every message still being answered.

use std::collections::{BTreeMap, HashMap};
use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use matrix_sdk::attachment::{AttachmentConfig, AttachmentInfo, BaseFileInfo, BaseImageInfo};
use matrix_sdk::config::RequestConfig;
use matrix_sdk::room::reply::{EnforceThread, Reply as ThreadReply};
use matrix_sdk::ruma::api::error::{ErrorKind, RetryAfter};
use matrix_sdk::ruma::events::room::message::{AddMentions, ReplyWithinThread, RoomMessageEventContent};
use matrix_sdk::ruma::{OwnedEventId, OwnedRoomId, TransactionId, UserId};
use matrix_sdk::{Client, HttpError, Room, RoomState};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::content::{Answering, NOT_SENT_PRIVATELY, SENT_PRIVATELY, content, message, relate};
use super::{PLATFORM, Shared};
use crate::outgoing::{Failure, Target, retrying};
use tessera_core::service::{Incoming, Notice, Reply, User, unix_now};

/// What a room's task does, in the order it was asked.
pub enum Job {
    /// A message to answer, brought by sync number `sync`.
    Command { answering: Answering, body: String, sync: u64 },
    /// An encrypted message the bot could not read, brought by sync number `sync`.
    Unreadable { answering: Answering, sync: u64 },
    /// A notice nobody's message asked for.
    Notice(Box<Notice>),
}

impl Job {
    /// The sync that brought it, for a job that holds the saved position back.
    fn sync(&self) -> Option<u64> {
        match self {
            Job::Command { sync, .. } | Job::Unreadable { sync, .. } => Some(*sync),
            Job::Notice(_) => None,
        }
    }
}

/// What the room tasks share.
#[derive(Clone)]
pub struct Rooms {
    pub service: Shared,
    pub client: Client,
    pub positions: Arc<Positions>,
    queues: Arc<Mutex<HashMap<OwnedRoomId, UnboundedSender<Job>>>>,
    /// Two rooms' tasks must not each open a direct room with the same player.
    opening_direct: Arc<tokio::sync::Mutex<()>>,
}

impl Rooms {
    pub fn new(service: Shared, client: Client, positions: Arc<Positions>) -> Rooms {
        Rooms { service, client, positions, queues: Arc::default(), opening_direct: Arc::default() }
    }

    /// Queues `job` for its room, starting the room's task if it has none.
    pub fn push(&self, room: OwnedRoomId, job: Job) {
        let mut queues = self.queues.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let queue = queues.entry(room.clone()).or_insert_with(|| {
            let (tx, mut rx) = unbounded_channel::<Job>();
            let rooms = self.clone();
            let room = room.clone();
            tokio::spawn(async move {
                loop {
                    let job = match tokio::time::timeout(IDLE, rx.recv()).await {
                        Ok(Some(job)) => job,
                        Ok(None) => break,
                        Err(_) => {
                            // Idle: the room's task goes (rooms the bot left, rooms gone quiet),
                            // unless a job came in meanwhile. Checked under the lock `push` sends
                            // under, so no job is left in a queue nobody reads.
                            let mut queues = rooms.queues.lock().unwrap_or_else(|p| p.into_inner());
                            if rx.is_empty() {
                                queues.remove(&room);
                                break;
                            }
                            continue;
                        }
                    };
                    let sync = job.sync();
                    // Each job on a task of its own: one that panics loses itself, not the room.
                    let (r, id) = (rooms.clone(), room.clone());
                    if let Err(e) = tokio::spawn(async move { r.run(&id, job).await }).await {
                        tracing::error!(room = %room, "answering in a room panicked: {e}");
                        if let Some(sync) = sync {
                            rooms.positions.answered(sync);
                        }
                    }
                }
            });
            tx
        });
        if let Err(lost) = queue.send(job) {
            // The task ended (it panicked): a new one takes the job.
            queues.remove(&room);
            drop(queues);
            tracing::error!(room = %room, "a room's queue had stopped; starting it again");
            self.push(room, lost.0);
        }
    }

    async fn run(&self, room_id: &OwnedRoomId, job: Job) {
        match job {
            Job::Command { answering, body, sync } => {
                if let Some(room) = self.client.get_room(room_id) {
                    self.answer(&room, &answering, body).await;
                }
                self.positions.answered(sync);
            }
            Job::Unreadable { answering, sync } => {
                if let Some(room) = self.client.get_room(room_id) {
                    self.unreadable(&room, &answering).await;
                }
                self.positions.answered(sync);
            }
            Job::Notice(notice) => self.notice(room_id, *notice).await,
        }
    }

    /// Answers one command, unless it was answered before a restart.
    async fn answer(&self, room: &Room, to: &Answering, body: String) {
        let event_id = to.event_id.to_string();
        let seen = {
            let (service, event_id) = (Arc::clone(&self.service), event_id.clone());
            tokio::task::spawn_blocking(move || service.store().was_handled(PLATFORM, &event_id)).await
        };
        if matches!(seen, Ok(Ok(true))) {
            tracing::debug!(event = %event_id, "answered before a restart");
            return;
        }
        let (name, is_admin) = match room.get_member(&to.sender).await {
            Ok(Some(m)) => (
                m.display_name().map(str::to_string).unwrap_or_else(|| to.sender.localpart().to_string()),
                super::is_moderator(m.power_level()),
            ),
            _ => (to.sender.localpart().to_string(), false),
        };
        super::fault("matrix-before-answer");
        let (service, sender, channel) =
            (Arc::clone(&self.service), to.sender.to_string(), room.room_id().to_string());
        // Written in a thread: its root, which a game's thread is known by.
        let thread = to.thread.as_ref().map(|t| t.event_id.to_string());
        // The service talks to its database synchronously: keep it off the async workers.
        let replies = tokio::task::spawn_blocking(move || {
            let author = User::new(sender, name);
            // The bot itself may be mentioned: a challenge to it is a practice game.
            let mentioned: Vec<User> = super::mentions(&body);
            let msg = Incoming {
                platform: PLATFORM,
                channel: &channel,
                author: &author,
                is_admin,
                text: &body,
                mentions: &mentioned,
                now: unix_now(),
                thread: thread.as_deref(),
            };
            service.handle(&msg)
        })
        .await
        .unwrap_or_default();
        let answered = !replies.is_empty();
        let channel = room.room_id().to_string();
        for reply in replies {
            // An answer (a committed move's, say) is not given up while the homeserver is away:
            // this room's queue waits for it, the other rooms' do not.
            let mut wait = std::time::Duration::from_secs(1);
            let started = std::time::Instant::now();
            // A reply that posts a stored notice is the outbox's once its claim may run out: the
            // outbox posts it then, and this must not post it too.
            let claim = std::time::Duration::from_millis(tessera_core::outbox::CLAIM_MS as u64 / 2);
            let posted = loop {
                match self.post(room, &reply, Some(to)).await {
                    Err(Failure::Transient(_)) if reply.outbox.is_some() && started.elapsed() > claim => {
                        break Err(Failure::Refused);
                    }
                    Err(Failure::Transient(_)) => {
                        tracing::warn!(room = %channel, about = reply.about().as_deref().unwrap_or("-"),
                            "an answer could not be posted yet; trying again in {wait:?}");
                        tokio::time::sleep(wait).await;
                        wait = (wait * 2).min(std::time::Duration::from_secs(30));
                    }
                    other => break other,
                }
            };
            if let Ok(first) = &posted {
                crate::delivery::mark_posted(&self.service, reply.outbox).await;
                // A game begun in a thread already stays there, with no thread of its own.
                let root = first
                    .clone()
                    .filter(|_| to.thread.is_none() && super::content::game_thread(&reply).is_none());
                self.open_thread(&reply, root).await;
            }
            crate::delivery::record_post(&self.service, PLATFORM, &channel, posted.as_ref().err().copied())
                .await;
            self.send_direct(&reply).await;
        }
        if answered {
            let service = Arc::clone(&self.service);
            let marked = tokio::task::spawn_blocking(move || {
                service.store().mark_handled(PLATFORM, &event_id, unix_now())
            })
            .await;
            if !matches!(marked, Ok(Ok(_))) {
                tracing::error!("could not record an answered message: a restart may answer it again");
            }
        }
    }

    /// Says, once per sender and room, that a message could not be decrypted and what to do.
    async fn unreadable(&self, room: &Room, to: &Answering) {
        let key = format!("{UNREADABLE}{}", to.sender);
        let channel = room.room_id().to_string();
        let told = {
            let (service, channel, key) = (Arc::clone(&self.service), channel.clone(), key.clone());
            tokio::task::spawn_blocking(move || service.store().channel_setting(PLATFORM, &channel, &key))
                .await
        };
        if matches!(told, Ok(Ok(Some(_)))) {
            return;
        }
        let device = self.client.device_id().map_or("?".into(), |d| d.to_string());
        let text = format!(
            "I could not read a message from {}: it was encrypted without a key for my device ({device}). \
             Let your client share keys with my device (verify it, or allow unverified devices in this \
             room), then send the message again.",
            to.sender
        );
        let to_room = Target { platform: PLATFORM, channel: &channel, about: None };
        if send_event(room, relate(message(&text, &[], true), to), to_room, "saying a message was unreadable")
            .await
            .is_ok()
        {
            let (service, sender) = (Arc::clone(&self.service), to.sender.to_string());
            let _ = tokio::task::spawn_blocking(move || {
                service.store().set_channel_setting(PLATFORM, &channel, &key, &sender)
            })
            .await;
        }
    }

    /// Posts a notice from the outbox, or, in a room that stopped taking the bot's posts, says it
    /// to its players privately.
    async fn notice(&self, room_id: &OwnedRoomId, notice: Notice) {
        // Posted only under a claim still held, renewed for the post, and within its time: never
        // by two at once (see [`tessera_core::outbox`]).
        if !crate::delivery::holds_for_post(&self.service, &notice).await {
            return;
        }
        let reply = notice.into_reply();
        // Private words alone (a daily digest): nothing to post in the room. Marked sent once
        // tried: a player who takes no direct messages is not written to again and again.
        if reply.only_direct() {
            self.send_direct(&reply).await;
            crate::delivery::mark_posted(&self.service, reply.outbox).await;
            return;
        }
        let about = reply.about();
        let about = about.as_deref().unwrap_or("-");
        let channel = room_id.to_string();
        let stopped = crate::delivery::posting_stopped(&self.service, PLATFORM, &channel).await;
        let room = self.client.get_room(room_id).filter(|r| r.state() == RoomState::Joined);
        let posted = match &room {
            _ if stopped => Err(Failure::Forbidden),
            Some(room) => {
                match tokio::time::timeout(tessera_core::outbox::POST_TIMEOUT, self.post(room, &reply, None))
                    .await
                {
                    Ok(posted) => posted,
                    Err(_) => {
                        tracing::warn!(room = %room_id, about, "a notice was not taken in time; it is tried again later");
                        return;
                    }
                }
            }
            // A room the bot left (or never joined) refuses like a room without permission.
            None => {
                tracing::warn!(room = %room_id, about, "a notice for a room the bot is not in");
                Err(Failure::Forbidden)
            }
        };
        let stopped = stopped
            || crate::delivery::record_post(
                &self.service,
                PLATFORM,
                &channel,
                posted.as_ref().err().copied(),
            )
            .await;
        if let Ok(first) = posted {
            // Marked first: the players' words must not hold the notice's claim past its time.
            crate::delivery::mark_posted(&self.service, reply.outbox).await;
            self.open_thread(&reply, first.filter(|_| super::content::game_thread(&reply).is_none())).await;
            self.send_direct(&reply).await;
        } else if stopped {
            // No more tries there: what it said goes to the players, once.
            let words = reply.words_instead(PLATFORM, &channel);
            self.send_direct(&Reply { direct: words, about: reply.about(), ..Reply::default() }).await;
            crate::delivery::mark_posted(&self.service, reply.outbox).await;
        }
        // Otherwise left in the outbox: tried again later.
    }

    /// Records the thread of the game `reply` begins, where it wants one: `root`, the reply's
    /// first event, starts it (the game's later messages relate to it); with no root (the reply
    /// went into a thread already), the game stays in the room, and no other try is made.
    async fn open_thread(&self, reply: &Reply, root: Option<OwnedEventId>) {
        let Some(opening) = &reply.open_thread else { return };
        let (service, game, root) = (Arc::clone(&self.service), opening.game, root.map(|r| r.to_string()));
        if root.is_none() {
            tracing::info!(
                game,
                "the game began inside a thread: it is played there, with no thread of its own"
            );
        }
        let _ = tokio::task::spawn_blocking(move || service.thread_made(game, root.as_deref())).await;
    }

    /// Posts a reply in `room`, answering `to` where it answers a command: a secret one goes to
    /// the author's direct messages and the room hears only that it did. Returns the reply's
    /// first event, where it posted one in the room.
    async fn post(
        &self,
        room: &Room,
        reply: &Reply,
        to: Option<&Answering>,
    ) -> Result<Option<OwnedEventId>, Failure> {
        let about = reply.about();
        let channel = room.room_id().to_string();
        let target = Target { platform: PLATFORM, channel: &channel, about: about.as_deref() };
        if !reply.secret {
            return post_parts(room, reply, to, target).await.map(Some);
        }
        let Some(to) = to else {
            // A secret with no author to give it to is said to nobody.
            tracing::warn!(room = %channel, about = about.as_deref().unwrap_or("-"), "a secret reply with no author");
            return Ok(None);
        };
        let privately = match self.direct_room(&to.sender, target).await {
            Some(dm) => {
                let dm_id = dm.room_id().to_string();
                let dm_target = Target { channel: &dm_id, ..target };
                post_parts(&dm, &Reply { secret: false, ..reply.clone() }, None, dm_target).await.is_ok()
            }
            None => false,
        };
        let said = if privately { SENT_PRIVATELY } else { NOT_SENT_PRIVATELY };
        send_event(room, relate(message(said, &[], true), to), target, "saying where the answer went")
            .await?;
        Ok(None)
    }

    /// The private words a reply carries, each to its player's direct messages.
    async fn send_direct(&self, reply: &Reply) {
        let about = reply.about();
        for (user, text) in &reply.direct {
            let Ok(user) = UserId::parse(user.as_str()) else { continue };
            let target = Target { platform: PLATFORM, channel: user.as_str(), about: about.as_deref() };
            let Some(dm) = self.direct_room(&user, target).await else { continue };
            let dm_id = dm.room_id().to_string();
            let target = Target { channel: &dm_id, ..target };
            let _ = send_event(&dm, message(text, &[], true), target, "sending a direct message").await;
        }
    }

    /// The direct room with `user`: the one there is, or a new one (`is_direct`, encrypted).
    async fn direct_room(&self, user: &UserId, target: Target<'_>) -> Option<Room> {
        let _one_at_a_time = self.opening_direct.lock().await;
        if let Some(room) = self.client.get_dm_room(user) {
            return Some(room);
        }
        // Tried once: a try whose answer was lost would open a second room and invite them twice.
        let once = |e: &matrix_sdk::Error| match classify(e) {
            Failure::Transient(_) => Failure::Refused,
            other => other,
        };
        retrying(target, "opening a direct room", once, || self.client.create_dm(user)).await.ok()
    }
}

/// How long a room's task waits for work before it ends; the next job starts a new one.
const IDLE: std::time::Duration = std::time::Duration::from_secs(600);

/// The channel setting (one per sender) that says a room was told of an unreadable message.
const UNREADABLE: &str = "unreadable-told:";

/// Each request is tried once by matrix-sdk: [`retrying`] decides what is tried again.
fn once() -> RequestConfig {
    RequestConfig::new().disable_retry()
}

/// One event, under one transaction id however often it is tried: a try that reached the server
/// but whose answer was lost is not posted twice.
async fn send_event(
    room: &Room,
    content: RoomMessageEventContent,
    target: Target<'_>,
    what: &str,
) -> Result<OwnedEventId, Failure> {
    let txn = TransactionId::new();
    retrying(target, what, classify, || {
        room.send(content.clone()).with_transaction_id(txn.clone()).with_request_config(once()).into_future()
    })
    .await
    .map(|sent| sent.response.event_id)
    .map_err(|(_, failure)| failure)
}

/// A reply's parts in order: the text, the board, the game's animation, the files. Returns the
/// text's event.
async fn post_parts(
    room: &Room,
    reply: &Reply,
    to: Option<&Answering>,
    target: Target<'_>,
) -> Result<OwnedEventId, Failure> {
    let first = send_event(room, content(reply, to), target, "posting a reply").await?;
    // Pictures and files follow the text into its thread: the game's, or the command's.
    let thread = super::content::game_thread(reply)
        .or_else(|| to.filter(|t| t.thread.is_some()).map(|t| t.event_id.clone()));
    if let Some(png) = &reply.image {
        let info = || AttachmentInfo::Image(super::png_info(png));
        attach(room, "board.png", &mime::IMAGE_PNG, png, info, &thread, target).await?;
    }
    if let Some(gif) = &reply.animation {
        let info = || {
            AttachmentInfo::Image(BaseImageInfo {
                size: u32::try_from(gif.len()).ok().map(Into::into),
                is_animated: Some(true),
                ..BaseImageInfo::default()
            })
        };
        attach(room, "game.gif", &mime::IMAGE_GIF, gif, info, &thread, target).await?;
    }
    for file in &reply.files {
        let info = || {
            AttachmentInfo::File(BaseFileInfo { size: u32::try_from(file.bytes.len()).ok().map(Into::into) })
        };
        attach(room, &file.name, &mime::TEXT_PLAIN_UTF_8, &file.bytes, info, &thread, target).await?;
    }
    Ok(first)
}

/// One attachment; in the thread of the command `thread` names, when it came in one.
async fn attach(
    room: &Room,
    name: &str,
    kind: &mime::Mime,
    bytes: &[u8],
    info: impl Fn() -> AttachmentInfo,
    thread: &Option<matrix_sdk::ruma::OwnedEventId>,
    target: Target<'_>,
) -> Result<(), Failure> {
    // One transaction id however often it is tried: a try that reached the homeserver but whose
    // answer was lost is not posted twice.
    let txn = TransactionId::new();
    retrying(target, &format!("attaching {name}"), classify, || {
        let reply = thread.as_ref().map(|event_id| ThreadReply {
            event_id: event_id.clone(),
            enforce_thread: EnforceThread::Threaded(ReplyWithinThread::No),
            add_mentions: AddMentions::No,
        });
        let config = AttachmentConfig::new().info(info()).reply(reply).txn_id(txn.clone());
        room.send_attachment(name, kind, bytes.to_vec(), config).into_future()
    })
    .await
    .map(|_| ())
    .map_err(|(_, failure)| failure)
}

/// How a homeserver's refusal is met: a rate limit after the wait it asks, server and network
/// errors with backoff, `M_FORBIDDEN` counted as a missing permission, anything else not again.
pub fn classify(error: &matrix_sdk::Error) -> Failure {
    match error {
        matrix_sdk::Error::Http(http) => classify_http(http),
        // The store, the crypto machine, a missing room: trying again would fail again.
        _ => Failure::Refused,
    }
}

pub(super) fn classify_http(error: &HttpError) -> Failure {
    if let HttpError::Cached(inner) = error {
        return classify_http(inner);
    }
    if matches!(error, HttpError::Reqwest(_)) {
        return Failure::Transient(None);
    }
    let Some(api) = error.as_client_api_error() else { return Failure::Refused };
    match api.error_kind() {
        Some(ErrorKind::LimitExceeded(limit)) => Failure::Transient(match &limit.retry_after {
            Some(RetryAfter::Delay(wait)) => Some(*wait),
            _ => None,
        }),
        Some(ErrorKind::Forbidden) => Failure::Forbidden,
        _ => match api.status_code.as_u16() {
            429 | 500..=599 => Failure::Transient(None),
            403 => Failure::Forbidden,
            _ => Failure::Refused,
        },
    }
}

/// The sync positions: every sync is numbered, the messages each brought are counted while they
/// are answered, and the newest position whose syncs (and all before) are answered is the one
/// saved. So one room's long wait never lets the saved position pass its unanswered message, and
/// never holds the other rooms' answers up.
#[derive(Debug)]
pub struct Positions {
    state: Mutex<PositionState>,
    save: tokio::sync::watch::Sender<Option<String>>,
}

#[derive(Debug, Default)]
struct PositionState {
    /// The number of the sync being handled now.
    current: u64,
    /// Messages still being answered, by sync number.
    pending: BTreeMap<u64, usize>,
    /// Syncs handled to the end, not yet saved: their positions.
    synced: BTreeMap<u64, String>,
}

impl Positions {
    /// New positions, and where the positions to save come out.
    pub fn new() -> (Positions, tokio::sync::watch::Receiver<Option<String>>) {
        let (save, saved) = tokio::sync::watch::channel(None);
        (Positions { state: Mutex::default(), save }, saved)
    }

    /// A message of the sync being handled is to be answered: its sync number.
    pub fn begin(&self) -> u64 {
        let mut s = self.state();
        let current = s.current;
        *s.pending.entry(current).or_default() += 1;
        current
    }

    /// A message of sync `sync` is answered (or will never be).
    pub fn answered(&self, sync: u64) {
        let mut s = self.state();
        if let Some(left) = s.pending.get_mut(&sync) {
            *left = left.saturating_sub(1);
            if *left == 0 {
                s.pending.remove(&sync);
            }
        }
        self.advance(&mut s);
    }

    /// The sync being handled is handled to the end (its messages queued): `position` is where
    /// the next starts.
    pub fn synced(&self, position: String) {
        let mut s = self.state();
        let current = s.current;
        s.synced.insert(current, position);
        s.current += 1;
        self.advance(&mut s);
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PositionState> {
        // Plain counts, consistent after any panic: the lock is taken whatever happened.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn advance(&self, s: &mut PositionState) {
        let oldest_pending = s.pending.keys().next().copied();
        let newest_done = s.synced.keys().rev().find(|n| oldest_pending.is_none_or(|p| **n < p)).copied();
        let Some(newest) = newest_done else { return };
        let position = s.synced.get(&newest).cloned();
        s.synced.retain(|n, _| *n > newest);
        self.save.send_replace(position);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_position_never_passes_a_message_still_being_answered() {
        let (positions, saved) = Positions::new();
        let now = || saved.borrow().clone();
        // Sync 0 brings a message (room A, slow) and sync 1 one more (room B, quick).
        let a = positions.begin();
        positions.synced("p1".into());
        assert_eq!(now(), None, "sync 0's message is still being answered");
        let b = positions.begin();
        positions.synced("p2".into());
        positions.synced("p3".into());
        positions.answered(b);
        assert_eq!(now(), None, "room B answered, but room A's older message is not");
        positions.answered(a);
        assert_eq!(now().as_deref(), Some("p3"), "everything answered: the newest position");
        // A sync with nothing to answer is saved at once.
        positions.synced("p4".into());
        assert_eq!(now().as_deref(), Some("p4"));
        // Answered before its sync ended: saved with it.
        let c = positions.begin();
        positions.answered(c);
        assert_eq!(now().as_deref(), Some("p4"));
        positions.synced("p5".into());
        assert_eq!(now().as_deref(), Some("p5"));
        // A stray answer changes nothing.
        positions.answered(99);
        assert_eq!(now().as_deref(), Some("p5"));
    }

    #[test]
    fn homeserver_errors_are_classified() {
        use matrix_sdk::ruma::api::client::uiaa::UiaaResponse;
        use matrix_sdk::ruma::api::error::{
            Error as ApiError, FromHttpResponseError, LimitExceededErrorData,
        };
        use matrix_sdk::ruma::api::error::{ErrorBody, StandardErrorBody};
        use std::time::Duration;
        let api = |status: u16, kind: ErrorKind| {
            let error = ApiError::new(
                matrix_sdk::ruma::exports::http::StatusCode::from_u16(status).unwrap(),
                ErrorBody::Standard(StandardErrorBody::new(kind, "x".into())),
            );
            matrix_sdk::Error::Http(Box::new(HttpError::Api(Box::new(FromHttpResponseError::Server(
                UiaaResponse::MatrixError(error),
            )))))
        };
        let mut limit = LimitExceededErrorData::new();
        limit.retry_after = Some(RetryAfter::Delay(Duration::from_millis(1500)));
        assert_eq!(
            classify(&api(429, ErrorKind::LimitExceeded(limit))),
            Failure::Transient(Some(Duration::from_millis(1500)))
        );
        assert_eq!(
            classify(&api(429, ErrorKind::LimitExceeded(LimitExceededErrorData::new()))),
            Failure::Transient(None)
        );
        assert_eq!(classify(&api(502, ErrorKind::Unknown)), Failure::Transient(None));
        assert_eq!(classify(&api(403, ErrorKind::Forbidden)), Failure::Forbidden);
        assert_eq!(classify(&api(400, ErrorKind::TooLarge)), Failure::Refused);
        assert_eq!(classify(&api(404, ErrorKind::NotFound)), Failure::Refused);
        assert_eq!(classify(&matrix_sdk::Error::InsufficientData), Failure::Refused);
    }
}
