//! The Discord adapter: serenity events in, the game service's replies out. It translates only:
//! messages, slash commands and button presses become service commands; replies become messages
//! (boards as PNG attachments, buttons from [`Actions`]), errors from interactions become
//! ephemeral replies that only the author sees. No game logic here.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use serenity::all::{
    AutoArchiveDuration, ChannelId, ClientBuilder, CommandDataOptionValue, CommandInteraction,
    CommandOptionType, ComponentInteraction, Context, CreateActionRow, CreateAutocompleteResponse,
    CreateButton, CreateInteractionResponse, CreateInteractionResponseMessage, CreateThread,
    EditInteractionResponse, EventHandler, GatewayIntents, GuildId, HttpBuilder, Interaction, InteractionId,
    Member, Message, MessageId, ModalInteraction, Permissions, Ready, UserId,
};
use serenity::async_trait;
use serenity::builder::Builder as _;
use serenity::http::Http;

use crate::config::Shards;
use crate::outgoing::Failure;
use tessera_core::commands::{button_spec, suggestion};
use tessera_core::service::{Incoming, Reply, Service, Suggestion, ThreadOpening, User, unix_now};
use tessera_store::AnyStore;

mod buttons;
mod send;
mod slash;
mod text;

use buttons::*;
use send::*;
use slash::*;

pub const PLATFORM: &str = "discord";

const MAX_CHOICES: usize = 25;

type Shared = Arc<Service<AnyStore>>;

/// How long an interaction's work may run before Discord is told to wait for it: well inside the
/// three seconds Discord gives an interaction's first answer.
pub const DEFER_AFTER: Duration = Duration::from_millis(1500);

/// How to reach Discord.
#[derive(Clone, Debug)]
pub struct DiscordOptions {
    /// Register the slash commands in this server only (they appear at once there); otherwise
    /// they are registered globally.
    pub guild: Option<u64>,
    /// Replaces Discord's API address (the tests' fake server).
    pub api: Option<String>,
    /// The shards this process connects.
    pub shards: Shards,
    /// How long a slash command or button may work before its answer is deferred ([`DEFER_AFTER`]).
    pub defer_after: Duration,
    /// Fault injection for the tests: every interaction's work takes this much longer, as a slow
    /// command's does (a big tournament's round, a long game's GIF).
    pub slow_interactions: Option<Duration>,
}

impl Default for DiscordOptions {
    fn default() -> DiscordOptions {
        DiscordOptions {
            guild: None,
            api: None,
            shards: Shards::default(),
            defer_after: DEFER_AFTER,
            slow_interactions: None,
        }
    }
}

/// The leases that keep each shard to one process ([`crate::lease::Standing`]): two connections
/// of one shard would both receive, and answer, every message of its servers.
pub fn shard_leases(first: u32, last: u32, total: u32) -> Vec<String> {
    (first..=last).map(|shard| format!("discord:shard:{shard}/{total}")).collect()
}

/// Refuses to run shards of `total` while other processes run shards of another total: Discord
/// gives a server to shard `(server id >> 22) % total`, so ranges of different totals overlap and
/// some servers would be answered twice (or never).
pub fn check_shard_total<S: tessera_core::store::Store + ?Sized>(store: &S, total: u32) -> Result<()> {
    for lease in store.live_leases("discord:shard:", store.clock_ms()?)? {
        let theirs = lease.name.rsplit('/').next().unwrap_or_default();
        if theirs != total.to_string() {
            anyhow::bail!(
                "another process runs Discord shards of {theirs} in all ({}, held by {}); every process \
                 of one bot must give the same total: discord_shards = FIRST-LAST/{theirs}",
                lease.name.trim_start_matches("discord:shard:"),
                lease.holder
            );
        }
    }
    Ok(())
}

impl DiscordOptions {
    fn http(&self, token: &str) -> Http {
        let http = HttpBuilder::new(token);
        match &self.api {
            Some(api) => http.proxy(api).ratelimiter_disabled(true),
            None => http,
        }
        .build()
    }

    /// The shards to connect, `(first, last, total)`: `auto` is every shard Discord recommends
    /// for the bot (`GET /gateway/bot`), all in this process.
    pub async fn shard_range(&self, token: &str) -> Result<(u32, u32, u32)> {
        match self.shards {
            Shards::Range { first, last, total } => Ok((first, last, total)),
            Shards::Auto => {
                let gateway =
                    self.http(token).get_bot_gateway().await.context("asking Discord how many shards")?;
                let total = gateway.shards.max(1);
                Ok((0, total - 1, total))
            }
        }
    }
}

struct Handler {
    service: Shared,
    guild: Option<GuildId>,
    defer_after: Duration,
    slow_interactions: Option<Duration>,
    /// The bot's own user, known from READY: a message that starts by mentioning it is a command.
    me: std::sync::OnceLock<UserId>,
}

/// `@Tessera challenge @bob` reads as `!t challenge @bob`. Discord shows a bot the content of
/// messages that mention it even without the Message Content intent, so this form always works.
fn addressed_by_mention(content: &str, bot: Option<UserId>) -> String {
    let Some(bot) = bot else { return content.to_string() };
    let trimmed = content.trim_start();
    for form in [format!("<@{bot}>"), format!("<@!{bot}>")] {
        if let Some(rest) = trimmed.strip_prefix(&form) {
            return format!("!t {}", rest.trim_start());
        }
    }
    content.to_string()
}

/// The users a message mentions, in the order its text names them (the first one is the one
/// challenged): people, and the bot itself (a challenge to it is a practice game); other bots
/// cannot play and are left out.
fn mentioned(text: &str, users: &[serenity::all::User], bot: Option<UserId>) -> Vec<User> {
    let mut out: Vec<User> = Vec::new();
    for word in text.split_whitespace() {
        let Some(id) = word.strip_prefix("<@").and_then(|w| w.strip_suffix('>')) else { continue };
        let Ok(id) = id.trim_start_matches('!').parse::<u64>() else { continue };
        let Some(u) = users.iter().find(|u| u.id.get() == id) else { continue };
        if (u.bot && Some(u.id) != bot) || out.iter().any(|o| o.id == u.id.to_string()) {
            continue;
        }
        out.push(user_of(u));
    }
    out
}

/// Server administrators and managers count as admins (tournament administration).
fn administers(p: Permissions) -> bool {
    p.intersects(Permissions::ADMINISTRATOR | Permissions::MANAGE_GUILD)
}

/// Interactions carry the member's permissions, computed by Discord.
fn is_admin(member: Option<&Member>) -> bool {
    member.and_then(|m| m.permissions).is_some_and(administers)
}

/// Whether a message's author administers its server. Messages carry the member's roles but not
/// their permissions, so the server's roles are fetched; any failure counts as no.
async fn moderates(http: &Http, msg: &Message) -> bool {
    let (Some(guild), Some(member)) = (msg.guild_id, msg.member.as_deref()) else { return false };
    match guild.to_partial_guild(http).await {
        Ok(g) => administers(g.partial_member_permissions(msg.author.id, member)),
        Err(e) => {
            eprintln!("could not read the roles of server {guild}: {e}");
            false
        }
    }
}

/// Who asked, where, and what: the parts of an [`Incoming`] that outlive the event. `text` is
/// read only for messages: slash commands and buttons arrive parsed and go to [`Service::run`].
struct Asker {
    channel: ChannelId,
    author: User,
    is_admin: bool,
    text: String,
    mentions: Vec<User>,
}

impl Asker {
    fn new(channel: ChannelId, author: &serenity::all::User, member: Option<&Member>) -> Asker {
        // The name the server knows them by, where they have one there.
        let mut who = user_of(author);
        if let Some(nick) = member.and_then(|m| m.nick.clone()) {
            who.name = nick;
        }
        Asker { channel, author: who, is_admin: is_admin(member), text: String::new(), mentions: Vec::new() }
    }

    /// Runs `f` on a blocking thread: the service talks to its database synchronously.
    async fn ask<T: Send + Default + 'static>(
        self,
        service: &Shared,
        f: impl FnOnce(&Service<AnyStore>, &Incoming) -> T + Send + 'static,
    ) -> T {
        let service = Arc::clone(service);
        tokio::task::spawn_blocking(move || {
            let channel = self.channel.to_string();
            let incoming = Incoming {
                platform: PLATFORM,
                channel: &channel,
                author: &self.author,
                is_admin: self.is_admin,
                text: &self.text,
                mentions: &self.mentions,
                now: unix_now(),
                thread: None,
            };
            f(&service, &incoming)
        })
        .await
        .unwrap_or_default()
    }
}

#[async_trait]
impl EventHandler for Handler {
    async fn message(&self, ctx: Context, msg: Message) {
        if msg.author.bot {
            return;
        }
        let me = self.me.get().copied();
        let text = addressed_by_mention(&msg.content, me);
        let mut asker = Asker {
            mentions: mentioned(&text, &msg.mentions, me),
            text,
            ..Asker::new(msg.channel_id, &msg.author, None)
        };
        if let Some(nick) = msg.member.as_ref().and_then(|m| m.nick.clone()) {
            asker.author.name = nick;
        }
        if tessera_core::commands::addressed_command(&asker.text).is_some_and(|c| c.moderated) {
            asker.is_admin = moderates(&ctx.http, &msg).await;
        }
        let replies = asker.ask(&self.service, |s, m| s.handle(m)).await;
        for reply in replies {
            if reply.secret {
                self.say_privately(&ctx.http, &msg, &reply).await;
                continue;
            }
            let (posted_in, sent) =
                send_placed(&ctx.http, msg.channel_id, &reply, reply.private.then_some(&msg)).await;
            self.sent(posted_in, reply.outbox, sent.as_ref().err().map(|e| e.failure)).await;
            if let (Some(opening), Ok(Some(first))) = (&reply.open_thread, &sent) {
                open_thread(&self.service, &ctx.http, posted_in, *first, opening).await;
            }
            send_direct(&ctx.http, &reply).await;
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let outcome = match interaction {
            Interaction::Command(c) => self.slash(&ctx.http, &c).await,
            Interaction::Autocomplete(c) => self.autocomplete(&ctx.http, &c).await,
            Interaction::Component(c) => self.button(&ctx.http, &c).await,
            Interaction::Modal(m) => self.form(&ctx.http, &m).await,
            _ => Ok(()),
        };
        if let Err(e) = outcome {
            tracing::warn!("could not answer an interaction: {e}");
        }
    }

    async fn ready(&self, ctx: Context, ready: Ready) {
        tracing::info!(user = %ready.user.name, "Tessera is on Discord");
        let _ = self.me.set(ready.user.id);
        self.service.set_bot_account(PLATFORM, &ready.user.id.to_string());
        let registered = match self.guild {
            Some(guild) => guild.set_commands(&ctx.http, slash_commands()).await,
            None => serenity::all::Command::set_global_commands(&ctx.http, slash_commands()).await,
        };
        match registered {
            Ok(list) => tracing::info!("registered {} slash commands", list.len()),
            Err(e) => tracing::error!("could not register the slash commands: {e}"),
        }
    }
}

impl Handler {
    /// A secret answer to a typed command (one that names the opponent's winning reply): by direct
    /// message, with only a word in the channel that it was sent, or why it could not be.
    async fn say_privately(&self, http: &Http, msg: &Message, reply: &Reply) {
        let note = match direct_message(http, msg.author.id, &reply.text, reply.about().as_deref()).await {
            Ok(()) => "I sent you my answer privately, in direct messages.",
            Err(_) => {
                "I could not send you my answer privately (your direct messages are closed to me); the \
                 slash commands answer where only you see it."
            }
        };
        let note = Reply { text: note.into(), private: true, ..Reply::default() };
        let sent = send(http, msg.channel_id, &note, Some(msg)).await;
        self.sent(msg.channel_id, None, sent.as_ref().err().map(|e| e.failure)).await;
    }

    /// After a post in `channel`: the notice it carried marked sent, and the channel's standing
    /// (refused for lack of permission, or writable again) kept.
    async fn sent(&self, channel: ChannelId, notice: Option<i64>, failed: Option<Failure>) {
        if failed.is_none() {
            crate::delivery::mark_posted(&self.service, notice).await;
        }
        crate::delivery::record_post(&self.service, PLATFORM, &channel.to_string(), failed).await;
    }

    /// Posts an interaction's replies; then, in this order, marks the notices of those taken sent
    /// (before anything slow: their claims must not run out), notes that the channel takes posts,
    /// starts the thread of a game the answer begins, and sends the players' direct messages.
    /// Replies for a game's thread go there as messages, the rest answer the interaction. A
    /// game's thread starts from `anchor` (the challenge message whose button was pressed), else
    /// from the answer itself.
    async fn finish(
        &self,
        http: &Http,
        to: Answering<'_>,
        replies: Vec<Reply>,
        opening: Opening,
        anchor: Option<MessageId>,
    ) {
        let (channel, token) = (to.channel, to.token);
        let (threaded, answers): (Vec<Reply>, Vec<Reply>) =
            replies.into_iter().partition(|r| thread_of(r).is_some_and(|t| t != channel));
        let taken = respond(http, to, &answers, opening).await;
        for (reply, _) in answers.iter().zip(&taken).filter(|(_, taken)| **taken) {
            crate::delivery::mark_posted(&self.service, reply.outbox).await;
        }
        if answers.iter().zip(&taken).any(|(r, taken)| *taken && !r.private) {
            self.sent(channel, None, None).await;
        }
        for reply in &threaded {
            let (posted_in, sent) = send_placed(http, channel, reply, None).await;
            self.sent(posted_in, reply.outbox, sent.err().map(|e| e.failure)).await;
        }
        for (reply, _) in answers.iter().zip(&taken).filter(|(r, taken)| **taken && r.open_thread.is_some()) {
            let from = match anchor {
                Some(message) => Some(message),
                None => match http.get_original_interaction_response(token).await {
                    Ok(message) => Some(message.id),
                    Err(e) => {
                        tracing::warn!(
                            about = reply.about(),
                            "could not read the answer to start a thread from: {e}"
                        );
                        None
                    }
                },
            };
            if let (Some(opening), Some(from)) = (&reply.open_thread, from) {
                open_thread(&self.service, http, channel, from, opening).await;
            }
        }
        for reply in answers.iter().chain(&threaded) {
            send_direct(http, reply).await;
        }
    }

    /// Waits for an interaction's `work` up to [`DiscordOptions::defer_after`]; past it, tells
    /// Discord to wait (`defer`) and then waits for the work. The opening says how the answer
    /// goes on: `deferred` once deferred, [`Opening::Answered`] should Discord refuse the deferral
    /// (the answer then reaches the channel as messages).
    async fn in_time<T>(
        &self,
        http: &Http,
        interaction: (InteractionId, &str),
        work: impl Future<Output = T>,
        defer: CreateInteractionResponse,
        deferred: Opening,
    ) -> (T, Opening) {
        let slow = self.slow_interactions;
        let work = async move {
            let answer = work.await;
            if let Some(extra) = slow {
                tokio::time::sleep(extra).await;
            }
            answer
        };
        tokio::pin!(work);
        tokio::select! {
            answer = &mut work => return (answer, Opening::Fresh),
            () = tokio::time::sleep(self.defer_after) => {}
        }
        // Bounded: a stalled connection must not hold the answer past the deadline unnoticed.
        let opening =
            match tokio::time::timeout(Duration::from_secs(1), defer.execute(http, interaction)).await {
                Ok(Ok(())) => deferred,
                Ok(Err(e)) => {
                    tracing::warn!(interaction = %interaction.0, "could not defer a slow answer: {e}");
                    Opening::Answered
                }
                Err(_) => {
                    tracing::warn!(interaction = %interaction.0, "deferring a slow answer took too long");
                    Opening::Answered
                }
            };
        (work.await, opening)
    }

    async fn slash(&self, http: &Http, c: &CommandInteraction) -> Result<()> {
        let (replies, opening) =
            match slash_to_command(&c.data.name, &c.data.options(), self.me.get().copied()) {
                Ok((cmd, mentions)) => {
                    let asker = Asker { mentions, ..Asker::new(c.channel_id, &c.user, c.member.as_deref()) };
                    let work = asker.ask(&self.service, |s, m| s.run(m, cmd));
                    let thinking = CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new());
                    self.in_time(http, (c.id, &c.token), work, thinking, Opening::Deferred).await
                }
                Err(e) => (vec![Reply { text: e, private: true, ..Reply::default() }], Opening::Fresh),
            };
        let to = Answering { id: c.id, token: &c.token, channel: c.channel_id };
        self.finish(http, to, replies, opening, None).await;
        Ok(())
    }

    async fn autocomplete(&self, http: &Http, c: &CommandInteraction) -> Result<()> {
        let Some(focused) = c.data.autocomplete() else { return Ok(()) };
        let typed = focused.value.to_string();
        // The option's declaration says what it suggests; a subcommand's path is `group sub`.
        let path = match c.data.options.first().map(|o| (&o.name, &o.value)) {
            Some((sub, CommandDataOptionValue::SubCommand(_))) => format!("{} {sub}", c.data.name),
            _ => c.data.name.clone(),
        };
        // An option that declares no suggestions still gets an answer: an empty list, where no
        // answer would show the player a failure.
        let what = suggestion(&path, focused.name);
        let game = c.data.options.iter().find(|o| o.name == "game").and_then(|o| match &o.value {
            CommandDataOptionValue::Integer(n) => Some(*n),
            CommandDataOptionValue::Autocomplete { value, .. } => value.trim_start_matches('#').parse().ok(),
            _ => None,
        });
        let asker = Asker::new(c.channel_id, &c.user, c.member.as_deref());
        let suggestions = match what {
            Some(what) => {
                asker.ask(&self.service, move |s, m| s.suggest(m, what, &typed, game, MAX_CHOICES)).await
            }
            None => Vec::new(),
        };
        let integer = focused.kind == CommandOptionType::Integer;
        let mut answer = CreateAutocompleteResponse::new();
        for Suggestion { label, value } in suggestions {
            let label: String = label.chars().take(100).collect();
            answer = match (integer, value.parse::<i64>()) {
                (true, Ok(n)) => answer.add_int_choice(label, n),
                (true, Err(_)) => answer,
                (false, _) => answer.add_string_choice(label, value),
            };
        }
        CreateInteractionResponse::Autocomplete(answer).execute(http, (c.id, &c.token)).await?;
        Ok(())
    }

    async fn button(&self, http: &Http, c: &ComponentInteraction) -> Result<()> {
        let asker = Asker::new(c.channel_id, &c.user, c.member.as_ref());
        let pressed = read_id(&c.data.custom_id);
        let replies = match pressed.and_then(|(spec, number)| press(spec, number)) {
            Some(Press::Form(button, number)) => {
                if let Some(modal) = buttons::form(button, number) {
                    CreateInteractionResponse::Modal(modal).execute(http, (c.id, &c.token)).await?;
                    return Ok(());
                }
                (
                    vec![Reply {
                        text: "that form is not one of mine any more; use `/conditional`".into(),
                        private: true,
                        ..Reply::default()
                    }],
                    Opening::Fresh,
                )
            }
            Some(Press::Confirm(game, id)) => {
                // Only a player is asked to confirm; anyone else hears why not.
                match asker.ask(&self.service, move |s, m| s.refusal_to_act(m, Some(game))).await {
                    Some(why) => {
                        (vec![Reply { text: why, private: true, ..Reply::default() }], Opening::Fresh)
                    }
                    None => {
                        let (yes, question) = button_spec(id).and_then(|b| b.confirm).unwrap_or_default();
                        let row: Vec<CreateButton> =
                            button_spec(yes).into_iter().map(|b| make_button(b, game)).collect();
                        let message = CreateInteractionResponseMessage::new()
                            .content(format!("{question} #{game}? This cannot be undone."))
                            .ephemeral(true)
                            .components(vec![CreateActionRow::Buttons(row)]);
                        CreateInteractionResponse::Message(message).execute(http, (c.id, &c.token)).await?;
                        return Ok(());
                    }
                }
            }
            Some(Press::Run(cmd)) => {
                let (settles, private) = pressed.map_or((false, false), |(b, _)| (b.settles, b.private));
                let work = asker.ask(&self.service, |s, m| s.run(m, cmd));
                // A slow press is acknowledged: no "thinking" message; its answer follows up.
                let ack = CreateInteractionResponse::Acknowledge;
                let (mut replies, opening) =
                    self.in_time(http, (c.id, &c.token), work, ack, Opening::Answered).await;
                replies.iter_mut().filter(|_| private).for_each(|r| r.private = true);
                if settles && replies.first().is_some_and(|r| !r.private) {
                    // Answered: its buttons go, so nobody presses them again; the news follows.
                    let cleared = match opening {
                        Opening::Fresh => {
                            let cleared = CreateInteractionResponseMessage::new().components(Vec::new());
                            CreateInteractionResponse::UpdateMessage(cleared)
                                .execute(http, (c.id, &c.token))
                                .await
                        }
                        _ => EditInteractionResponse::new()
                            .components(Vec::new())
                            .execute(http, &c.token)
                            .await
                            .map(drop),
                    };
                    if let Err(e) = &cleared {
                        tracing::warn!(interaction = %c.id, "could not clear the buttons: {e}");
                    }
                    let opening = if cleared.is_ok() { Opening::Answered } else { opening };
                    (replies, opening)
                } else {
                    (replies, opening)
                }
            }
            None => (
                vec![Reply {
                    text: "that button is not one of mine any more; use `/board` for a fresh board".into(),
                    private: true,
                    ..Reply::default()
                }],
                Opening::Fresh,
            ),
        };
        let (replies, opening) = replies;
        let to = Answering { id: c.id, token: &c.token, channel: c.channel_id };
        // A game begun by a button starts its thread from the challenge the button was under.
        self.finish(http, to, replies, opening, Some(c.message.id)).await;
        Ok(())
    }

    /// A submitted form (a button's modal): its command run with what was written, answered to
    /// the one who wrote it alone.
    async fn form(&self, http: &Http, m: &ModalInteraction) -> Result<()> {
        let (mut replies, opening) = match buttons::form_command(&m.data) {
            Some(cmd) => {
                let asker = Asker::new(m.channel_id, &m.user, m.member.as_ref());
                let work = asker.ask(&self.service, |s, msg| s.run(msg, cmd));
                let thinking =
                    CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new().ephemeral(true));
                self.in_time(http, (m.id, &m.token), work, thinking, Opening::Deferred).await
            }
            None => (
                vec![Reply {
                    text: "that form is not one of mine any more; use `/conditional`".into(),
                    private: true,
                    ..Reply::default()
                }],
                Opening::Fresh,
            ),
        };
        replies.iter_mut().for_each(|r| r.private = true);
        self.finish(
            http,
            Answering { id: m.id, token: &m.token, channel: m.channel_id },
            replies,
            opening,
            None,
        )
        .await;
        Ok(())
    }
}

/// Posts the notices nobody's message asked for (reminders, losses on time, tournament rounds,
/// the bot's own moves) as they come. A channel that keeps refusing them for lack of permission
/// gets no more: each player they concern is told privately instead.
async fn deliver(service: Shared, http: Arc<Http>, mut notices: crate::router::Inbox) {
    while let Some(notice) = notices.recv().await {
        let Some(channel) = notice.channel.parse::<u64>().ok().filter(|&n| n != 0).map(ChannelId::new) else {
            continue;
        };
        // Posted only under a claim still held, renewed for the post, and within its time: never
        // by two at once (see [`tessera_core::outbox`]).
        if !crate::delivery::holds_for_post(&service, &notice).await {
            continue;
        }
        let reply = notice.into_reply();
        // Private words alone (a daily digest): nothing to post in the channel. Marked sent once
        // tried: a player who takes no direct messages is not written to again and again.
        if reply.only_direct() {
            send_direct(&http, &reply).await;
            crate::delivery::mark_posted(&service, reply.outbox).await;
            continue;
        }
        let channel_id = channel.to_string();
        let stopped = crate::delivery::posting_stopped(&service, PLATFORM, &channel_id).await;
        let (posted_in, posted) = if stopped {
            (channel, Err(Failure::Forbidden))
        } else {
            let posted = tokio::time::timeout(
                tessera_core::outbox::POST_TIMEOUT,
                send_placed(&http, channel, &reply, None),
            );
            match posted.await {
                Ok((posted_in, sent)) => (posted_in, sent.map_err(|e| e.failure)),
                Err(_) => {
                    tracing::warn!(%channel, about = reply.about(), "a notice was not taken in time; it is tried again later");
                    (channel, Err(Failure::Transient(None)))
                }
            }
        };
        let stopped = stopped
            || crate::delivery::record_post(&service, PLATFORM, &posted_in.to_string(), posted.err()).await;
        if let Ok(first) = posted {
            crate::delivery::mark_posted(&service, reply.outbox).await;
            if let (Some(opening), Some(first)) = (&reply.open_thread, first) {
                open_thread(&service, &http, posted_in, first, opening).await;
            }
            // The players' own words go with a notice the channel got, once.
            send_direct(&http, &reply).await;
        } else if stopped {
            // No more tries there: what it said goes to the players, once.
            for (user, text) in reply.words_instead(PLATFORM, &channel_id) {
                if let Some(user) = user.parse::<u64>().ok().filter(|&n| n != 0) {
                    let _ = direct_message(&http, UserId::new(user), &text, reply.about().as_deref()).await;
                }
            }
            crate::delivery::mark_posted(&service, reply.outbox).await;
        }
    }
}

/// Starts a game's thread from `from`, a message in `channel`, and records it; where it cannot
/// be made (no permission to create threads, say), records that, and the game goes on in the
/// channel: the failure is logged here once, as no other try follows.
async fn open_thread(
    service: &Shared,
    http: &Http,
    channel: ChannelId,
    from: MessageId,
    opening: &ThreadOpening,
) {
    let game = opening.game;
    let about = format!("game #{game}");
    let channel_text = channel.to_string();
    let to = crate::outgoing::Target { platform: PLATFORM, channel: &channel_text, about: Some(&about) };
    // A week before an idle thread is archived: correspondence moves come days apart (a post
    // in an archived thread brings it back).
    let made = crate::outgoing::retrying(to, "starting a game's thread", classify, || {
        let thread =
            CreateThread::new(opening.name.clone()).auto_archive_duration(AutoArchiveDuration::OneWeek);
        channel.create_thread_from_message(http, from, thread)
    })
    .await;
    let thread = match &made {
        Ok(thread) => Some(thread.id),
        Err((e, _)) => {
            tracing::warn!(game, %channel, "could not start the game's thread ({e}); it is played in the channel");
            None
        }
    };
    let recorded = {
        let (service, id) = (Arc::clone(service), thread.map(|t| t.to_string()));
        tokio::task::spawn_blocking(move || service.thread_made(game, id.as_deref())).await.unwrap_or(false)
    };
    if let (Some(thread), false) = (thread, recorded) {
        // Another process gave the game its thread first: this one goes.
        tracing::info!(game, %thread, "the game has another thread already; removing this one");
        if let Err(e) = thread.delete(http).await {
            tracing::warn!(game, %thread, "could not remove a second thread: {e}");
        }
    }
}

/// Runs the bot on Discord until the process ends.
/// The process's clock hands it this platform's notices through `notices`.
pub async fn run(
    service: Shared,
    token: &str,
    options: DiscordOptions,
    notices: crate::router::Inbox,
) -> Result<()> {
    let http = || options.http(token);
    tokio::spawn(deliver(Arc::clone(&service), Arc::new(http()), notices));
    let (first, last, total) = options.shard_range(token).await?;
    tracing::info!(shards = %Shards::Range { first, last, total }, "connecting to Discord");
    let connect = |intents| {
        let handler = Handler {
            service: Arc::clone(&service),
            guild: options.guild.map(GuildId::new),
            defer_after: options.defer_after,
            slow_interactions: options.slow_interactions,
            me: std::sync::OnceLock::new(),
        };
        async move {
            let mut client = ClientBuilder::new_with_http(http(), intents).event_handler(handler).await?;
            // serenity's range includes its end.
            client.start_shard_range(first..last, total).await
        }
    };
    // `!t` messages and plain moves need the privileged Message Content intent, which the bot's
    // owner enables in the developer portal; slash commands and buttons work without it.
    let all =
        GatewayIntents::GUILD_MESSAGES | GatewayIntents::DIRECT_MESSAGES | GatewayIntents::MESSAGE_CONTENT;
    match connect(all).await {
        Err(serenity::Error::Gateway(serenity::gateway::GatewayError::DisallowedGatewayIntents)) => {
            tracing::warn!(
                "Discord refused the Message Content intent (enable it for the bot in the developer \
                 portal): running with slash commands and buttons only; `!t` messages and plain \
                 moves are not read"
            );
            connect(all - GatewayIntents::MESSAGE_CONTENT).await
        }
        other => other,
    }
    .context("connecting to Discord")
}

#[cfg(test)]
mod tests;
