//! Posting replies: in the channel, as an interaction's answer and follow-ups, or privately. Every
//! request goes through the one send path ([`crate::outgoing`]): tried again on a server or network
//! error, never on a refusal. A message the channel refuses with its files (no Attach Files) is
//! sent again as text, a reply to a message since deleted as a plain message.

use anyhow::Result;
use serenity::all::{
    ChannelId, CreateAttachment, CreateInteractionResponse, CreateInteractionResponseFollowup,
    CreateInteractionResponseMessage, CreateMessage, EditInteractionResponse, InteractionId, Message,
    MessageId, MessageReference, Nonce, UserId,
};
use serenity::builder::Builder as _;
use serenity::http::{Http, HttpError};

use crate::outgoing::{Failure, Target, retrying};
use tessera_core::service::Reply;

use super::PLATFORM;
use super::buttons::*;
use super::text::*;

/// Discord's upload limit for a message in a server without boosts.
pub(super) const UPLOAD_LIMIT: usize = 10 * 1024 * 1024;

/// How the send path meets a Discord error.
pub(super) fn classify(e: &serenity::Error) -> Failure {
    match e {
        serenity::Error::Http(HttpError::UnsuccessfulRequest(r)) => match r.status_code.as_u16() {
            // serenity's own rate limiter waits these out; one that reaches us is tried again.
            429 | 500.. => Failure::Transient(None),
            403 => Failure::Forbidden,
            _ => Failure::Refused,
        },
        serenity::Error::Http(HttpError::Request(_)) | serenity::Error::Io(_) => Failure::Transient(None),
        _ => Failure::Refused,
    }
}

/// Why a post failed: the error, and how the send path classified it.
#[derive(Debug)]
pub(super) struct NotSent {
    pub(super) error: serenity::Error,
    pub(super) failure: Failure,
}

impl std::fmt::Display for NotSent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.error, self.failure)
    }
}

impl std::error::Error for NotSent {}

/// The files of a reply's last message: the board, a finished game's GIF, and the reply's own.
fn files(reply: &Reply) -> Vec<CreateAttachment> {
    let pictures = [(&reply.image, "board.png"), (&reply.animation, "game.gif")]
        .into_iter()
        .filter_map(|(bytes, name)| bytes.as_ref().map(|b| CreateAttachment::bytes(b.clone(), name)));
    let own = reply.files.iter().map(|f| CreateAttachment::bytes(f.bytes.clone(), f.name.as_str()));
    pictures.chain(own).collect()
}

/// Files in groups one message can carry ([`UPLOAD_LIMIT`]): most often one group.
fn upload_groups(files: Vec<CreateAttachment>) -> Vec<Vec<CreateAttachment>> {
    let mut groups: Vec<Vec<CreateAttachment>> = Vec::new();
    let mut size = 0;
    for file in files {
        let len = file.data.len();
        match groups.last_mut() {
            Some(group) if size + len <= UPLOAD_LIMIT => group.push(file),
            _ => {
                groups.push(vec![file]);
                size = 0;
            }
        }
        size += len;
    }
    groups
}

/// What is said in place of the files a channel does not take: which were left out, and the board
/// drawn as text.
fn without_files(reply: &Reply) -> String {
    let board = reply.diagram.as_deref().map(|d| format!("\n```\n{d}\n```")).unwrap_or_default();
    let names: Vec<&str> = reply.files.iter().map(|f| f.name.as_str()).collect();
    let left_out = if names.is_empty() { String::new() } else { format!(" Left out: {}.", names.join(", ")) };
    format!(
        "(I may not attach files in this channel: give me Attach Files to see the pictures.{left_out}){board}"
    )
}

/// The nonce a message is posted with, Discord then taking a second post with the same nonce as
/// the first (within minutes) instead of showing it twice: a try whose answer was lost, or a
/// notice posted again after its post was cut off. Derived from the notice where the message posts
/// one; otherwise unique to this post.
fn nonce(outbox: Option<i64>, piece: usize, with_files: bool) -> String {
    static POSTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let variant = if with_files { "" } else { "t" };
    match outbox {
        Some(notice) => format!("n{notice}.{piece}{variant}"),
        None => {
            let n = POSTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // Within Discord's 25 characters: 1 + 8 + 10 + 1 + a piece's digits + 1.
            format!("p{:08x}{:x}.{piece}{variant}", process_tag(), n & 0xff_ffff_ffff)
        }
    }
}

/// Posts a reply where it goes: in its game's thread where it names one ([`Reply::thread`]),
/// else in `channel`, answering `answering` there. Should the thread refuse it (removed, locked,
/// no permission), it goes to `channel`: a committed move is never left unannounced. Says where
/// it was posted, and its first message.
pub(super) async fn send_placed(
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
    answering: Option<&Message>,
) -> (ChannelId, Result<Option<MessageId>, NotSent>) {
    match thread_of(reply).filter(|&t| t != channel) {
        Some(thread) => match send(http, thread, reply, None).await {
            Err(NotSent { failure: Failure::Forbidden | Failure::Refused, error }) => {
                tracing::warn!(%thread, about = reply.about(), "the game's thread refused a post ({error}); posting in its channel");
                (channel, send(http, channel, reply, answering).await)
            }
            other => (thread, other),
        },
        None => (channel, send(http, channel, reply, answering).await),
    }
}

/// The thread a reply goes to ([`Reply::thread`]), as a Discord channel.
pub(super) fn thread_of(reply: &Reply) -> Option<ChannelId> {
    reply.thread.as_deref().and_then(|t| t.parse::<u64>().ok()).filter(|&t| t != 0).map(ChannelId::new)
}

/// Posts a reply in a channel: text in pieces, the board, files and buttons with the last piece;
/// `answering` makes the first piece a reply to that message (a plain message if it is gone).
/// Returns the first message posted (a game's thread is started from it).
pub(super) async fn send(
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
    answering: Option<&Message>,
) -> Result<Option<MessageId>, NotSent> {
    let about = reply.about();
    let channel_text = channel.to_string();
    let to = Target { platform: PLATFORM, channel: &channel_text, about: about.as_deref() };
    let pieces = pieces(reply);
    let last = pieces.len() - 1;
    let mut groups = upload_groups(files(reply)).into_iter();
    let last_files = groups.next().unwrap_or_default();
    let mut files_refused = false;
    let mut first = None;
    for (i, piece) in pieces.into_iter().enumerate() {
        let answering =
            answering.filter(|_| i == 0).map(|m| MessageReference::from(m).fail_if_not_exists(false));
        let message = |with_files: bool, text: &str| {
            let mut message = CreateMessage::new()
                .content(text)
                .allowed_mentions(piece.allowed_mentions())
                .nonce(Nonce::String(nonce(reply.outbox, i, with_files)))
                .enforce_nonce(true);
            if let Some(reference) = answering.clone() {
                message = message.reference_message(reference);
            }
            if i == last {
                message = message.components(buttons(reply.actions));
                if with_files {
                    message = message.files(last_files.clone());
                }
            }
            message
        };
        let has_files = i == last && !last_files.is_empty();
        let posted = post(http, to, channel, || message(true, &piece.text)).await;
        match posted {
            Err(NotSent { failure: Failure::Forbidden, .. }) if has_files => {
                // Most often Attach Files is what is missing: the words still go, with the board as text.
                files_refused = true;
                let text = format!("{}\n{}", piece.text, without_files(reply));
                let mut texts = chunks(&text).into_iter();
                let opening = texts.next().unwrap_or_default();
                let posted = post(http, to, channel, || message(false, &opening)).await?;
                first.get_or_insert(posted.id);
                for more in texts {
                    post(http, to, channel, || CreateMessage::new().content(more.clone())).await?;
                }
            }
            other => {
                first.get_or_insert(other?.id);
            }
        }
    }
    // Files beyond what the last message could carry, each group in a message of its own (none,
    // where the channel refuses files: the text said so).
    for group in groups.filter(|_| !files_refused) {
        post(http, to, channel, || CreateMessage::new().files(group.clone())).await?;
    }
    Ok(first)
}

/// One message through the send path.
async fn post(
    http: &Http,
    to: Target<'_>,
    channel: ChannelId,
    message: impl Fn() -> CreateMessage,
) -> Result<Message, NotSent> {
    retrying(to, "posting a message", classify, || channel.send_message(http, message()))
        .await
        .map_err(|(error, failure)| NotSent { error, failure })
}

/// Where an interaction's answer goes.
pub(super) struct Answering<'a> {
    pub(super) id: InteractionId,
    pub(super) token: &'a str,
    pub(super) channel: ChannelId,
}

/// How far an interaction was answered before its replies are posted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opening {
    /// Not yet: the first piece is the interaction's response.
    Fresh,
    /// "Thinking…" shows in the channel (a slow slash command): the first public reply takes its
    /// place; a private first reply removes it and follows privately.
    Deferred,
    /// Answered already (a button's message updated, or acknowledged while a slow press ran):
    /// everything follows up.
    Answered,
}

/// Answers an interaction: the first piece as the response, the rest as follow-ups; private
/// replies are ephemeral. Should Discord refuse (the interaction expired, say), the public replies
/// still reach the channel as messages: a committed move is never left unannounced. Says which
/// replies were taken, so that the caller marks their notices sent before anything else (the
/// players' direct messages) is sent.
pub(super) async fn respond(
    http: &Http,
    to: Answering<'_>,
    replies: &[Reply],
    opening: Opening,
) -> Vec<bool> {
    if replies.is_empty() {
        // Discord wants an answer to every interaction.
        let done = Reply { text: "Done.".into(), private: true, ..Reply::default() };
        Box::pin(respond(http, to, &[done], opening)).await;
        return Vec::new();
    }
    let mut taken = vec![false; replies.len()];
    let mut opening = opening;
    for (n, reply) in replies.iter().enumerate() {
        if let Err(e) = answer(http, &to, reply, &mut opening).await {
            tracing::warn!(interaction = %to.id, about = reply.about(), "could not answer: {e}; posting in the channel instead");
            for (i, r) in replies.iter().enumerate().skip(n).filter(|(_, r)| !r.private && !r.secret) {
                taken[i] = send_placed(http, to.channel, r, None).await.1.is_ok();
            }
            return taken;
        }
        taken[n] = true;
    }
    taken
}

/// The private words a reply carries, each to its player's direct messages. Where a player takes
/// no direct messages, the announcement in the channel (which pings them) is what they get.
pub(super) async fn send_direct(http: &Http, reply: &Reply) {
    for (user, text) in &reply.direct {
        let Ok(id) = user.parse::<u64>() else { continue };
        if id == 0 {
            continue;
        }
        let _ = direct_message(http, UserId::new(id), text, reply.about().as_deref()).await;
    }
}

/// Sends `text` to a user's direct messages, through the send path.
pub(super) async fn direct_message(
    http: &Http,
    user: UserId,
    text: &str,
    about: Option<&str>,
) -> Result<(), NotSent> {
    let who = format!("@{user}");
    let to = Target { platform: PLATFORM, channel: &who, about };
    let dm = retrying(to, "opening a direct message", classify, || user.create_dm_channel(http))
        .await
        .map_err(|(error, failure)| NotSent { error, failure })?;
    for piece in chunks(&escape_markdown(text)) {
        post(http, to, dm.id, || CreateMessage::new().content(piece.clone())).await?;
    }
    Ok(())
}

/// Posts one reply as (part of) an interaction's answer.
pub(super) async fn answer(
    http: &Http,
    to: &Answering<'_>,
    reply: &Reply,
    opening: &mut Opening,
) -> Result<()> {
    let about = reply.about();
    let channel = to.channel.to_string();
    let target = Target { platform: PLATFORM, channel: &channel, about: about.as_deref() };
    let pieces = pieces(reply);
    let last = pieces.len() - 1;
    let mut groups = upload_groups(files(reply)).into_iter();
    let last_files = groups.next().unwrap_or_default();
    if *opening == Opening::Deferred && reply.private {
        // The "thinking…" is public and cannot become private: it goes, the answer follows privately.
        retrying(target, "removing the deferred answer", classify, || {
            http.delete_original_interaction_response(to.token)
        })
        .await
        .map_err(|(e, _)| e)?;
        *opening = Opening::Answered;
    }
    for (i, piece) in pieces.into_iter().enumerate() {
        let files = if i == last { last_files.clone() } else { Vec::new() };
        let rows = if i == last { buttons(reply.actions) } else { Vec::new() };
        match *opening {
            Opening::Fresh => {
                let response = || {
                    let m = CreateInteractionResponseMessage::new()
                        .content(piece.text.clone())
                        .ephemeral(reply.private)
                        .allowed_mentions(piece.allowed_mentions())
                        .components(rows.clone())
                        .files(files.clone());
                    CreateInteractionResponse::Message(m).execute(http, (to.id, to.token))
                };
                // Not tried again: a response that reached Discord but whose answer was lost
                // cannot be given twice, and the deadline is short.
                response().await?;
            }
            Opening::Deferred => {
                retrying(target, "answering a deferred command", classify, || {
                    let mut m = EditInteractionResponse::new()
                        .content(piece.text.clone())
                        .allowed_mentions(piece.allowed_mentions())
                        .components(rows.clone());
                    for file in files.iter().cloned() {
                        m = m.new_attachment(file);
                    }
                    m.execute(http, to.token)
                })
                .await
                .map_err(|(e, _)| e)?;
            }
            Opening::Answered => {
                retrying(target, "following up", classify, || {
                    CreateInteractionResponseFollowup::new()
                        .content(piece.text.clone())
                        .ephemeral(reply.private)
                        .allowed_mentions(piece.allowed_mentions())
                        .components(rows.clone())
                        .files(files.clone())
                        .execute(http, (None, to.token))
                })
                .await
                .map_err(|(e, _)| e)?;
            }
        }
        *opening = Opening::Answered;
    }
    for group in groups {
        retrying(target, "following up with files", classify, || {
            CreateInteractionResponseFollowup::new()
                .ephemeral(reply.private)
                .files(group.clone())
                .execute(http, (None, to.token))
        })
        .await
        .map_err(|(e, _)| e)?;
    }
    Ok(())
}

/// This process's name among the living ([`tessera_core::process::new_holder`]) in 32 bits: its
/// posts' nonces differ from another's and from an earlier run's.
fn process_tag() -> u32 {
    use std::hash::{Hash, Hasher};
    static TAG: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *TAG.get_or_init(|| {
        let mut hash = std::collections::hash_map::DefaultHasher::new();
        tessera_core::process::new_holder().hash(&mut hash);
        hash.finish() as u32
    })
}
