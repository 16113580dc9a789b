//! Posting replies: in the channel, as an interaction's answer and follow-ups, or privately.

use anyhow::Result;
use serenity::all::{
    ChannelId, CreateAttachment, CreateInteractionResponse, CreateInteractionResponseFollowup,
    CreateInteractionResponseMessage, CreateMessage, InteractionId, Message, UserId,
};
use serenity::builder::Builder as _;
use serenity::http::Http;

use tessera_core::service::Reply;

use super::buttons::*;
use super::text::*;

/// Posts a reply in a channel: text in pieces, the board and buttons with the last piece.
pub(super) async fn send(
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
    answering: Option<&Message>,
) -> Result<()> {
    let (pieces, pings) = pieces(reply);
    let last = pieces.len() - 1;
    for (i, piece) in pieces.into_iter().enumerate() {
        let mut message = CreateMessage::new().content(piece).allowed_mentions(pings.clone());
        if let Some(m) = answering.filter(|_| i == 0) {
            message = message.reference_message(m);
        }
        if i == last {
            if let Some(png) = &reply.image {
                message = message.add_file(CreateAttachment::bytes(png.clone(), "board.png"));
            }
            if let Some(gif) = &reply.animation {
                message = message.add_file(CreateAttachment::bytes(gif.clone(), "game.gif"));
            }
            message = message.components(buttons(reply.actions));
        }
        channel.send_message(http, message).await?;
    }
    Ok(())
}

/// Where an interaction's answer goes.
pub(super) struct Answering<'a> {
    pub(super) id: InteractionId,
    pub(super) token: &'a str,
    pub(super) channel: ChannelId,
}

/// Answers an interaction: the first piece as the response, the rest as follow-ups; private
/// replies are ephemeral. Should Discord refuse (the interaction expired, say), the public replies
/// still reach the channel as messages: a committed move is never left unannounced.
pub(super) async fn respond(http: &Http, to: Answering<'_>, replies: Vec<Reply>) -> Result<()> {
    respond_after(http, to, replies, false).await
}

/// [`respond`], when the interaction may already have been answered (`answered`): then every
/// reply is a follow-up.
pub(super) async fn respond_after(
    http: &Http,
    to: Answering<'_>,
    replies: Vec<Reply>,
    answered: bool,
) -> Result<()> {
    if replies.is_empty() && !answered {
        // Discord wants an answer to every interaction.
        let m = CreateInteractionResponseMessage::new().content("Done.").ephemeral(true);
        CreateInteractionResponse::Message(m).execute(http, (to.id, to.token)).await?;
        return Ok(());
    }
    let mut first = !answered;
    for (n, reply) in replies.iter().enumerate() {
        if let Err(e) = answer(http, &to, reply, &mut first).await {
            tracing::warn!(interaction = %to.id, "could not answer: {e}; posting in the channel instead");
            for r in replies[n..].iter().filter(|r| !r.private) {
                send(http, to.channel, r, None).await?;
            }
            for r in &replies[n..] {
                send_direct(http, r).await;
            }
            break;
        }
        send_direct(http, reply).await;
    }
    Ok(())
}

/// The private words a reply carries, each to its player's direct messages. Where a player takes
/// no direct messages, the announcement in the channel (which pings them) is what they get.
pub(super) async fn send_direct(http: &Http, reply: &Reply) {
    for (user, text) in &reply.direct {
        let Ok(id) = user.parse::<u64>() else { continue };
        let channel = match UserId::new(id).create_dm_channel(http).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(user = %id, "could not open a direct message: {e}");
                continue;
            }
        };
        let message = CreateMessage::new().content(escape_markdown(text));
        if let Err(e) = channel.id.send_message(http, message).await {
            tracing::warn!(user = %id, "could not send a direct message: {e}");
        }
    }
}

pub(super) async fn answer(http: &Http, to: &Answering<'_>, reply: &Reply, first: &mut bool) -> Result<()> {
    let (pieces, pings) = pieces(reply);
    let last = pieces.len() - 1;
    for (i, piece) in pieces.into_iter().enumerate() {
        let files: Vec<CreateAttachment> = [(&reply.image, "board.png"), (&reply.animation, "game.gif")]
            .into_iter()
            .filter(|_| i == last)
            .filter_map(|(bytes, name)| bytes.as_ref().map(|b| CreateAttachment::bytes(b.clone(), name)))
            .collect();
        let rows = if i == last { buttons(reply.actions) } else { Vec::new() };
        if *first {
            let mut m = CreateInteractionResponseMessage::new()
                .content(piece)
                .ephemeral(reply.private)
                .allowed_mentions(pings.clone())
                .components(rows);
            for file in files.iter().cloned() {
                m = m.add_file(file);
            }
            CreateInteractionResponse::Message(m).execute(http, (to.id, to.token)).await?;
            *first = false;
        } else {
            let mut m = CreateInteractionResponseFollowup::new()
                .content(piece)
                .ephemeral(reply.private)
                .allowed_mentions(pings.clone())
                .components(rows);
            for file in files {
                m = m.add_file(file);
            }
            m.execute(http, (None, to.token)).await?;
        }
    }
    Ok(())
}
