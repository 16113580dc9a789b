//! The Discord adapter: serenity events in, the game service's replies out. It translates only:
//! messages, slash commands and button presses become service commands; replies become messages
//! (boards as PNG attachments, buttons from [`Actions`]), errors from interactions become
//! ephemeral replies that only the author sees. No game logic here.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use serenity::all::{
    ButtonStyle, ChannelId, ClientBuilder, CommandDataOptionValue, CommandInteraction, CommandOptionType,
    ComponentInteraction, Context, CreateActionRow, CreateAllowedMentions, CreateAttachment,
    CreateAutocompleteResponse, CreateButton, CreateCommand, CreateCommandOption, CreateInteractionResponse,
    CreateInteractionResponseFollowup, CreateInteractionResponseMessage, CreateMessage, EventHandler,
    GatewayIntents, GuildId, HttpBuilder, Interaction, InteractionId, Member, Message, Permissions, Ready,
    ResolvedOption, ResolvedValue, UserId,
};
use serenity::async_trait;
use serenity::builder::Builder as _;
use serenity::http::Http;

use crate::command_table::{
    self, ButtonSpec, COMMANDS, Kind, MAX_DELAY_HOURS, OptionSpec, Raw, Tone, button_command, button_spec,
    by_path,
};
use crate::commands::{Command, Offer};
use crate::config::Shards;
use crate::service::{Actions, Incoming, Reply, Service, Suggestion, User, suggest_variants, unix_now};
use crate::store::AnyStore;

pub const PLATFORM: &str = "discord";

/// Discord's limits: characters in a message, choices in an autocomplete answer.
const MAX_CONTENT: usize = 2000;
const MAX_CHOICES: usize = 25;

type Shared = Arc<Service<AnyStore>>;

/// How to reach Discord.
#[derive(Clone, Debug, Default)]
pub struct DiscordOptions {
    /// Register the slash commands in this server only (they appear at once there); otherwise
    /// they are registered globally.
    pub guild: Option<u64>,
    /// Replaces Discord's API address (the tests' fake server).
    pub api: Option<String>,
    /// The shards this process connects.
    pub shards: Shards,
}

/// The leases that keep each shard to one process ([`crate::lease::Standing`]): two connections
/// of one shard would both receive, and answer, every message of its servers.
pub fn shard_leases(first: u32, last: u32, total: u32) -> Vec<String> {
    (first..=last).map(|shard| format!("discord:shard:{shard}/{total}")).collect()
}

/// Refuses to run shards of `total` while other processes run shards of another total: Discord
/// gives a server to shard `(server id >> 22) % total`, so ranges of different totals overlap and
/// some servers would be answered twice (or never).
pub fn check_shard_total<S: crate::store::Store + ?Sized>(store: &S, total: u32) -> Result<()> {
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

fn user_of(u: &serenity::all::User) -> User {
    User::new(u.id.to_string(), u.global_name.clone().unwrap_or_else(|| u.name.clone()))
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
        if crate::commands::addressed_command(&asker.text).is_some_and(|c| c.moderated) {
            asker.is_admin = moderates(&ctx.http, &msg).await;
        }
        let replies = asker.ask(&self.service, |s, m| s.handle(m)).await;
        for reply in replies {
            match send(&ctx.http, msg.channel_id, &reply, reply.private.then_some(&msg)).await {
                Ok(()) => crate::delivery::mark_posted(&self.service, reply.outbox).await,
                Err(e) => tracing::warn!(channel = %msg.channel_id, "could not answer: {e}"),
            }
            send_direct(&ctx.http, &reply).await;
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let outcome = match interaction {
            Interaction::Command(c) => self.slash(&ctx.http, &c).await,
            Interaction::Autocomplete(c) => self.autocomplete(&ctx.http, &c).await,
            Interaction::Component(c) => self.button(&ctx.http, &c).await,
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
    async fn slash(&self, http: &Http, c: &CommandInteraction) -> Result<()> {
        let replies = match slash_to_command(&c.data.name, &c.data.options(), self.me.get().copied()) {
            Ok((cmd, mentions)) => {
                let asker = Asker { mentions, ..Asker::new(c.channel_id, &c.user, c.member.as_deref()) };
                asker.ask(&self.service, |s, m| s.run(m, cmd)).await
            }
            Err(e) => vec![Reply { text: e, private: true, ..Reply::default() }],
        };
        let notices: Vec<i64> = replies.iter().filter_map(|r| r.outbox).collect();
        respond(http, Answering { id: c.id, token: &c.token, channel: c.channel_id }, replies).await?;
        for notice in notices {
            crate::delivery::mark_posted(&self.service, Some(notice)).await;
        }
        Ok(())
    }

    async fn autocomplete(&self, http: &Http, c: &CommandInteraction) -> Result<()> {
        let Some(focused) = c.data.autocomplete() else { return Ok(()) };
        let (field, typed) = (focused.name.to_string(), focused.value.to_string());
        let command = c.data.name.clone();
        let game = c.data.options.iter().find(|o| o.name == "game").and_then(|o| match &o.value {
            CommandDataOptionValue::Integer(n) => Some(*n),
            CommandDataOptionValue::Autocomplete { value, .. } => value.trim_start_matches('#').parse().ok(),
            _ => None,
        });
        let asker = Asker::new(c.channel_id, &c.user, c.member.as_deref());
        let suggestions = asker
            .ask(&self.service, move |s, m| match (command.as_str(), field.as_str()) {
                (_, "variant") => suggest_variants(&typed, MAX_CHOICES),
                ("rematch", "opponent") => s.suggest_opponents(m, &typed, MAX_CHOICES),
                (_, "move") => s.suggest_moves(m, game, &typed, MAX_CHOICES),
                (_, "game") => s.suggest_games(m, &typed, MAX_CHOICES),
                ("cancel", "challenge") => s.suggest_challenges(m, true, &typed, MAX_CHOICES),
                (_, "tournament") => s.suggest_tournaments(m, &typed, MAX_CHOICES),
                (_, "challenge") => s.suggest_challenges(m, false, &typed, MAX_CHOICES),
                _ => Vec::new(),
            })
            .await;
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
        let replies = match button_press(&c.data.custom_id) {
            Some(Press::Confirm(game, id)) => {
                // Only a player is asked to confirm; anyone else hears why not.
                match asker.ask(&self.service, move |s, m| s.refusal_to_act(m, Some(game))).await {
                    Some(why) => vec![Reply { text: why, private: true, ..Reply::default() }],
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
                let flip = matches!(cmd, Command::Board { .. });
                let settles = settles(&cmd);
                let mut replies = asker.ask(&self.service, |s, m| s.run(m, cmd)).await;
                // A flipped board is for the one who asked.
                replies.iter_mut().filter(|_| flip).for_each(|r| r.private = true);
                if settles && replies.first().is_some_and(|r| !r.private) {
                    // Answered: its buttons go, so nobody presses them again; the news follows.
                    let cleared = CreateInteractionResponseMessage::new().components(Vec::new());
                    let to = Answering { id: c.id, token: &c.token, channel: c.channel_id };
                    let updated = CreateInteractionResponse::UpdateMessage(cleared)
                        .execute(http, (c.id, &c.token))
                        .await;
                    if let Err(e) = &updated {
                        tracing::warn!(interaction = %c.id, "could not clear the buttons: {e}");
                    }
                    let notices: Vec<i64> = replies.iter().filter_map(|r| r.outbox).collect();
                    respond_after(http, to, replies, updated.is_ok()).await?;
                    for notice in notices {
                        crate::delivery::mark_posted(&self.service, Some(notice)).await;
                    }
                    return Ok(());
                }
                replies
            }
            None => vec![Reply {
                text: "that button is not one of mine any more; use `/board` for a fresh board".into(),
                private: true,
                ..Reply::default()
            }],
        };
        let notices: Vec<i64> = replies.iter().filter_map(|r| r.outbox).collect();
        respond(http, Answering { id: c.id, token: &c.token, channel: c.channel_id }, replies).await?;
        for notice in notices {
            crate::delivery::mark_posted(&self.service, Some(notice)).await;
        }
        Ok(())
    }
}

/// What a button press asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Press {
    /// Ask first, privately: the game, and the button whose `confirm` says how.
    Confirm(i64, &'static str),
    Run(Command),
}

/// Whether a command answers the message its button is on (a challenge, an offer, the resignation
/// prompt), so that the message's buttons are spent once it succeeds.
fn settles(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Accept(_)
            | Command::Decline(_)
            | Command::Resign(_)
            | Command::Draw(Offer::Accept | Offer::Decline, _)
            | Command::Takeback(Offer::Accept | Offer::Decline, _)
    )
}

/// Reads a button's custom id (`tessera:<id>:<number>`), by the command table.
fn button_press(custom_id: &str) -> Option<Press> {
    let mut parts = custom_id.split(':');
    if parts.next()? != "tessera" {
        return None;
    }
    let spec = button_spec(parts.next()?)?;
    let number: i64 = parts.next()?.parse().ok()?;
    if spec.confirm.is_some() {
        return Some(Press::Confirm(number, spec.id));
    }
    button_command(spec, number).ok().map(Press::Run)
}

/// A button from the table, on game or tournament `number`.
fn make_button(spec: &ButtonSpec, number: i64) -> CreateButton {
    let style = match spec.tone {
        Tone::Go => ButtonStyle::Success,
        Tone::Neutral => ButtonStyle::Secondary,
        Tone::Danger => ButtonStyle::Danger,
    };
    CreateButton::new(format!("tessera:{}:{number}", spec.id)).label(spec.label).style(style)
}

/// The buttons a reply's actions put under it, by their ids in the table.
fn button_ids(actions: Actions) -> (i64, &'static [&'static str]) {
    match actions {
        Actions::Challenge(id) => (id, &["accept", "decline"]),
        Actions::Game(id) => (id, &["resign", "draw", "flip"]),
        Actions::Confirm(id) => (id, &["confirm"]),
        Actions::DrawOffer(id) => (id, &["draw-yes", "draw-no"]),
        Actions::TakebackOffer(id) => (id, &["takeback-yes", "takeback-no"]),
        Actions::Tournament(id) => (id, &["t-join", "t-leave"]),
    }
}

/// The buttons under a reply.
fn buttons(actions: Option<Actions>) -> Vec<CreateActionRow> {
    let Some((number, ids)) = actions.map(button_ids) else { return Vec::new() };
    let row = ids.iter().filter_map(|id| button_spec(id)).map(|b| make_button(b, number)).collect();
    vec![CreateActionRow::Buttons(row)]
}

/// Splits text into pieces Discord accepts, at line ends where it can, else at spaces. A code
/// block cut in two is closed at the end of its first piece and opened again in the next, so each
/// piece shows it as a block (a big Swiss's standings are longer than one message).
fn chunks(text: &str) -> Vec<String> {
    const FENCE: &str = "```";
    let mut out = Vec::new();
    let mut rest = text;
    // Whether a block is open where the last piece ended.
    let mut open = false;
    // What the last piece needs besides its text: the block reopened, the block closed.
    let extra = |open: bool, rest: &str| {
        4 * usize::from(open) + 4 * ((usize::from(open) + rest.matches(FENCE).count()) % 2)
    };
    while rest.trim_end_matches(['\n', ' ']).chars().count() + extra(open, rest) > MAX_CONTENT {
        let head = if open { "```\n" } else { "" };
        let cut_at = |room: usize| {
            let limit = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
            let part = &rest[..limit];
            part.rfind('\n').or_else(|| part.rfind(' ')).filter(|&i| i > 0).unwrap_or(limit)
        };
        let leaves_open = |cut: usize| (usize::from(open) + rest[..cut].matches(FENCE).count()) % 2 == 1;
        let mut cut = cut_at(MAX_CONTENT - head.len());
        if leaves_open(cut) {
            // Room for the "\n```" that closes it.
            cut = cut_at(MAX_CONTENT - head.len() - 4);
        }
        let closes = leaves_open(cut);
        out.push(format!("{head}{}{}", &rest[..cut], if closes { "\n```" } else { "" }));
        // The line end or space cut at goes; a line's leading spaces stay (a table's columns).
        let after = &rest[cut..];
        rest = if after.starts_with('\n') {
            after.trim_start_matches('\n')
        } else {
            after.strip_prefix(' ').unwrap_or(after)
        };
        open = closes;
    }
    let closing = extra(open, rest) - 4 * usize::from(open) > 0;
    let rest = rest.trim_end_matches(['\n', ' ']);
    if !rest.is_empty() || out.is_empty() {
        // A block the text leaves open (cut short) is closed too.
        let (head, tail) = (if open { "```\n" } else { "" }, if closing { "\n```" } else { "" });
        out.push(format!("{head}{rest}{tail}"));
    }
    out
}

/// The text of a reply, in Discord-sized pieces, and whom it may ping: the players it concerns
/// (named in front of the first piece), and nobody else whatever the text says. The text is
/// escaped ([`escape_markdown`]): names and echoed words show as typed.
fn pieces(reply: &Reply) -> (Vec<String>, CreateAllowedMentions) {
    let users: Vec<UserId> = if reply.private {
        Vec::new()
    } else {
        reply.notify.iter().filter_map(|id| id.parse::<u64>().ok()).map(UserId::new).collect()
    };
    let pings: String = users.iter().map(|u| format!("<@{u}> ")).collect();
    (chunks(&format!("{pings}{}", escape_markdown(&reply.text))), CreateAllowedMentions::new().users(users))
}

/// The bot's text as Discord shows it literally. The bot's own markup is kept: inline code and
/// ` ``` ` blocks (commands, standings, TRF), which show their contents as they are, and channel
/// links `<#id>`; a block left open runs to the end. Everywhere else, whatever Discord would read as Markdown is escaped with a
/// backslash: `\ * _ ~ | [ ] < >` and backticks that open no code, and at a line's start a
/// heading's `#` and a list's `-` or `+`. Web addresses are left whole (an escape inside one
/// would change it). So a player named `**x** [y](http://e) ||z||` is shown by that name, not in
/// bold, as a link or as a spoiler. Names hold no backtick ([`crate::names::clean`]), so none
/// can end a code block.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut at_line_start = true;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        // Code, as Discord reads it: a run of backticks up to the next run as long.
        if c == '`' {
            let run = rest.len() - rest.trim_start_matches('`').len();
            match closing_backticks(&rest[run..], run) {
                Some(end) => {
                    let code = run + end + run;
                    out.push_str(&rest[..code]);
                    rest = &rest[code..];
                }
                // A block the text leaves open (a long reply cut short) runs to the end; the
                // message closes it ([`chunks`]).
                None if run >= 3 => {
                    out.push_str(rest);
                    rest = "";
                }
                None => {
                    out.push_str(&"\\`".repeat(run));
                    rest = &rest[run..];
                }
            }
            at_line_start = false;
            continue;
        }
        if let Some(len) = web_address(rest).or_else(|| channel_link(rest)) {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            at_line_start = false;
            continue;
        }
        if at_line_start && c != ' ' && c != '\n' {
            let after = rest.trim_start_matches('#');
            let heading = c == '#' && after.starts_with(' ') && rest.len() - after.len() <= 3;
            let list = matches!(c, '-' | '+') && rest[1..].starts_with([' ', '#']);
            if heading || list {
                out.push('\\');
            }
        }
        if matches!(c, '\\' | '*' | '_' | '~' | '|' | '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
        at_line_start = c == '\n' || (at_line_start && c == ' ');
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Where a run of exactly `run` backticks starts in `text`, closing a code span.
fn closing_backticks(text: &str, run: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find('`').map(|i| i + from) {
        let len = text[i..].len() - text[i..].trim_start_matches('`').len();
        if len == run {
            return Some(i);
        }
        from = i + len;
    }
    None
}

/// The length of the web address `text` starts with, if it does.
fn web_address(text: &str) -> Option<usize> {
    if !(text.starts_with("https://") || text.starts_with("http://")) {
        return None;
    }
    Some(text.find(char::is_whitespace).unwrap_or(text.len()))
}

/// The length of the channel link (`<#123>`) `text` starts with, if it does.
fn channel_link(text: &str) -> Option<usize> {
    let digits = text.strip_prefix("<#")?;
    let n = digits.len() - digits.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (n > 0 && digits[n..].starts_with('>')).then_some(2 + n + 1)
}

/// Posts a reply in a channel: text in pieces, the board and buttons with the last piece.
async fn send(http: &Http, channel: ChannelId, reply: &Reply, answering: Option<&Message>) -> Result<()> {
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
struct Answering<'a> {
    id: InteractionId,
    token: &'a str,
    channel: ChannelId,
}

/// Answers an interaction: the first piece as the response, the rest as follow-ups; private
/// replies are ephemeral. Should Discord refuse (the interaction expired, say), the public replies
/// still reach the channel as messages: a committed move is never left unannounced.
async fn respond(http: &Http, to: Answering<'_>, replies: Vec<Reply>) -> Result<()> {
    respond_after(http, to, replies, false).await
}

/// [`respond`], when the interaction may already have been answered (`answered`): then every
/// reply is a follow-up.
async fn respond_after(http: &Http, to: Answering<'_>, replies: Vec<Reply>, answered: bool) -> Result<()> {
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
async fn send_direct(http: &Http, reply: &Reply) {
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

async fn answer(http: &Http, to: &Answering<'_>, reply: &Reply, first: &mut bool) -> Result<()> {
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

/// The slash commands, read off the command table: a group's commands become its subcommands.
fn slash_commands() -> Vec<CreateCommand> {
    let mut list: Vec<CreateCommand> = Vec::new();
    let mut groups_done: Vec<&str> = Vec::new();
    for spec in COMMANDS.iter().filter(|c| c.slash) {
        match spec.group {
            None => list.push(
                spec.options.iter().fold(CreateCommand::new(spec.name).description(spec.summary), |c, o| {
                    c.add_option(slash_option(o))
                }),
            ),
            Some(group) if !groups_done.contains(&group.name) => {
                groups_done.push(group.name);
                let subs =
                    COMMANDS.iter().filter(|c| c.slash && c.group.is_some_and(|g| g.name == group.name));
                list.push(subs.fold(CreateCommand::new(group.name).description(group.summary), |c, sub| {
                    let start =
                        CreateCommandOption::new(CommandOptionType::SubCommand, sub.name, sub.summary);
                    c.add_option(sub.options.iter().fold(start, |s, o| s.add_sub_option(slash_option(o))))
                }));
            }
            Some(_) => {}
        }
    }
    list
}

/// An option as Discord shows it: its type, bounds and choices follow from its kind.
fn slash_option(o: &OptionSpec) -> CreateCommandOption {
    let kind = match o.kind {
        Kind::Game | Kind::Tournament | Kind::Number { .. } | Kind::Days | Kind::Delay => {
            CommandOptionType::Integer
        }
        Kind::User { .. } => CommandOptionType::User,
        Kind::Flag { .. } => CommandOptionType::Boolean,
        Kind::Opponent | Kind::Variant | Kind::Choice { .. } | Kind::Text { .. } => CommandOptionType::String,
    };
    let mut option = CreateCommandOption::new(kind, o.name, o.about).required(o.required);
    if o.autocomplete {
        option = option.set_autocomplete(true);
    }
    let (min, max) = match o.kind {
        Kind::Game | Kind::Tournament => (Some(1), None),
        Kind::Number { min, max } => (Some(min), max),
        Kind::Days => (Some(1), Some(30)),
        Kind::Delay => (Some(1), Some(MAX_DELAY_HOURS)),
        _ => (None, None),
    };
    if let Some(min) = min {
        option = option.min_int_value(min as u64);
    }
    if let Some(max) = max {
        option = option.max_int_value(max as u64);
    }
    match o.kind {
        Kind::Choice { choices, .. } => {
            choices.iter().fold(option, |opt, c| opt.add_string_choice(c.label, c.value))
        }
        Kind::Text { max } => option.max_length(max as u16),
        _ => option,
    }
}

/// A slash command as a service command, and the users it names. Users are kept aside (the
/// service reads them as mentions); the other options are decoded by the command table.
fn slash_to_command(
    name: &str,
    options: &[ResolvedOption],
    bot: Option<UserId>,
) -> Result<(Command, Vec<User>), String> {
    let (path, options) = match options.iter().find_map(|o| match &o.value {
        ResolvedValue::SubCommand(inner) => Some((o.name, inner.as_slice())),
        _ => None,
    }) {
        Some((sub, inner)) => (format!("{name} {sub}"), inner),
        None if COMMANDS.iter().any(|c| c.group.is_some_and(|g| g.name == name)) => {
            return Err(format!("say what to do, like `/{name} join`"));
        }
        None => (name.to_string(), options),
    };
    let mut users = Vec::new();
    let mut given: Vec<(&str, Raw)> = Vec::new();
    for o in options {
        let raw = match &o.value {
            ResolvedValue::Integer(n) => Raw::Number(*n),
            ResolvedValue::String(s) => Raw::Word(s),
            ResolvedValue::Boolean(b) => Raw::Flag(*b),
            ResolvedValue::User(u, _) => {
                let person = by_path(&path)
                    .and_then(|c| c.option(o.name))
                    .is_some_and(|spec| matches!(spec.kind, Kind::User { person: true }));
                // Other bots cannot play; this one can (a practice game).
                if person && u.bot && Some(u.id) != bot {
                    let name = crate::names::clean(&u.name);
                    return Err(format!("{name} is a bot and cannot play; challenge a person, or me"));
                }
                users.push(user_of(u));
                Raw::User
            }
            _ => continue,
        };
        given.push((o.name, raw));
    }
    let cmd = command_table::from_slash(&path, &given).map_err(|e| e.0)?;
    Ok((cmd, users))
}

/// Posts the notices nobody's message asked for (reminders, losses on time, tournament rounds,
/// the bot's own moves) as they come.
async fn deliver(service: Shared, http: Arc<Http>, mut notices: crate::clock::Inbox) {
    while let Some(notice) = notices.recv().await {
        let Ok(id) = notice.channel.parse::<u64>() else { continue };
        // Posted only under a claim still held, renewed for the post, and within its time: never
        // by two at once (see [`crate::outbox`]).
        if !crate::delivery::holds_for_post(&service, &notice).await {
            continue;
        }
        let reply = notice.into_reply();
        match tokio::time::timeout(crate::outbox::POST_TIMEOUT, send(&http, ChannelId::new(id), &reply, None))
            .await
        {
            Ok(Ok(())) => {
                crate::delivery::mark_posted(&service, reply.outbox).await;
                // The players' own words go with a notice the channel got, once.
                send_direct(&http, &reply).await;
            }
            Ok(Err(e)) => tracing::warn!(channel = id, "a notice could not be posted: {e}"),
            Err(_) => tracing::warn!(channel = id, "a notice was not taken in time; it is tried again later"),
        }
    }
}

/// Runs the bot on Discord until the process ends.
/// The process's clock hands it this platform's notices through `notices`.
pub async fn run(
    service: Shared,
    token: &str,
    options: DiscordOptions,
    notices: crate::clock::Inbox,
) -> Result<()> {
    let http = || options.http(token);
    tokio::spawn(deliver(Arc::clone(&service), Arc::new(http()), notices));
    let (first, last, total) = options.shard_range(token).await?;
    tracing::info!(shards = %Shards::Range { first, last, total }, "connecting to Discord");
    let connect = |intents| {
        let handler = Handler {
            service: Arc::clone(&service),
            guild: options.guild.map(GuildId::new),
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
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_where_discord_accepts_it() {
        assert_eq!(chunks("short"), ["short"]);
        assert_eq!(chunks(""), [""]);
        let lines: String = (0..300).map(|i| format!("{i}. e4 e5 Nf3\n")).collect();
        let pieces = chunks(&lines);
        assert!(pieces.len() > 1);
        assert!(pieces.iter().all(|p| p.chars().count() <= MAX_CONTENT && !p.is_empty()));
        assert!(pieces.iter().all(|p| p.ends_with("Nf3")), "cut at line ends");
        assert_eq!(pieces.concat().replace('\n', ""), lines.replace('\n', ""));
        let unbroken = "é".repeat(4500);
        let pieces = chunks(&unbroken);
        assert_eq!(pieces.iter().map(|p| p.chars().count()).collect::<Vec<_>>(), [2000, 2000, 500]);
    }

    #[test]
    fn markdown_in_prose_is_escaped_and_the_bots_own_markup_kept() {
        let name = "**x** [y](http://e) ||z|| <b>h</b> ~~s~~ __u__ \\";
        assert_eq!(
            escape_markdown(name),
            r"\*\*x\*\* \[y\](http://e) \|\|z\|\| \<b\>h\</b\> \~\~s\~\~ \_\_u\_\_ \\"
        );
        // Code spans and blocks are shown as they are: nothing in them is escaped.
        let text = "alice: `!t accept` or `!t decline`\n```\n  1  **bob** |x|\n```after *x*";
        assert_eq!(
            escape_markdown(text),
            "alice: `!t accept` or `!t decline`\n```\n  1  **bob** |x|\n```after \\*x\\*"
        );
        assert_eq!(escape_markdown("``a`b``"), "``a`b``", "a longer run closes only a run as long");
        // A backtick that opens no code is shown as one.
        assert_eq!(escape_markdown("a ` b"), r"a \` b");
        assert_eq!(escape_markdown("``x"), r"\`\`x");
        assert_eq!(escape_markdown("*a* ```\n*b*"), "\\*a\\* ```\n*b*", "an open block runs to the end");
        // Headings, subtext, lists and quotes at a line's start; not a game's number.
        assert_eq!(
            escape_markdown("# big\n## b\n-# small\n- item\n+ item\n> quote"),
            "\\# big\n\\## b\n\\-# small\n\\- item\n\\+ item\n\\> quote"
        );
        assert_eq!(
            escape_markdown("#12 chess vs bob\n  # x\na - b #1"),
            "#12 chess vs bob\n  \\# x\na - b #1"
        );
        // Channel links and web addresses stay whole.
        assert_eq!(
            escape_markdown("in <#500> see https://matrix.to/#/!a_b:x"),
            "in <#500> see https://matrix.to/#/!a_b:x"
        );
        assert_eq!(escape_markdown("<#x> <@1>"), r"\<#x\> \<@1\>");
        // Plain text and PGN are left alone but for what would be markup.
        assert_eq!(escape_markdown("1. f3 e5 2. g4 Qh4# 0-1"), "1. f3 e5 2. g4 Qh4# 0-1");
        assert_eq!(escape_markdown("[White \"bob\"]"), r#"\[White "bob"\]"#);
        assert_eq!(escape_markdown(""), "");
        assert_eq!(escape_markdown("é ✓ 李"), "é ✓ 李");
    }

    #[test]
    fn a_reply_is_escaped_after_its_pings() {
        let reply = Reply { text: "*bob* to move".into(), notify: vec!["2".into()], ..Reply::default() };
        let (sent, _) = pieces(&reply);
        assert_eq!(sent, [r"<@2> \*bob\* to move"]);
        // A reply cut short inside its block (a long TRF) still shows as a closed block.
        let cut = Reply {
            text: "t1 as TRF:\n```\n012 x\n… 9 more lines are not shown here".into(),
            ..Reply::default()
        };
        assert_eq!(pieces(&cut).0, ["t1 as TRF:\n```\n012 x\n… 9 more lines are not shown here\n```"]);
    }

    #[test]
    fn a_code_block_cut_between_pieces_stays_a_block_in_each() {
        let rows: Vec<String> =
            (1..=150).map(|i| format!("{i:>3}  {:<20} 1500     3  **x** |y|", "W".repeat(20))).collect();
        let text = format!("t1 Big Swiss, after round 3 of 5\n```\n{}\n```\nask for more", rows.join("\n"));
        let pieces = chunks(&text);
        assert!(pieces.len() > 2, "{}", pieces.len());
        for p in &pieces {
            assert!(p.chars().count() <= MAX_CONTENT, "{}", p.chars().count());
            assert_eq!(p.matches("```").count() % 2, 0, "{p}");
        }
        assert!(pieces[1].starts_with("```\n") && pieces[0].ends_with("\n```"));
        // Every row is in one piece, inside a block, whole.
        let shown: Vec<&str> = pieces.iter().flat_map(|p| p.lines()).filter(|l| l.ends_with("|y|")).collect();
        assert_eq!(shown, rows.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(pieces.last().unwrap().ends_with("```\nask for more"));
        // A block the text leaves open (a reply cut short) is closed at its end.
        let unclosed = format!("```\n{}", "x\n".repeat(1500));
        let pieces = chunks(&unclosed);
        assert_eq!(pieces.len(), 2);
        assert!(pieces.iter().all(|p| p.chars().count() <= MAX_CONTENT));
        assert!(pieces.iter().all(|p| p.starts_with("```\n") && p.ends_with("x\n```")), "{pieces:?}");
        assert_eq!(chunks("see ```x"), ["see ```x\n```"]);
        // Text that just fits is one piece, whether or not it must close a block.
        let full = format!("```\n{}```", "y".repeat(MAX_CONTENT - 7));
        assert_eq!(chunks(&full), vec![full.clone()]);
        let open = format!("```\n{}", "y".repeat(MAX_CONTENT - 8));
        assert_eq!(chunks(&open), [format!("{open}\n```")]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn any_text_is_sent_in_whole_blocks_within_the_limit(
            parts in proptest::collection::vec(("[ -~\n]{0,300}", "[^`]{0,60}", 0u8..4), 0..40),
        ) {
            // Prose, names and code blocks in any order and length, as replies mix them.
            let mut text = String::new();
            for (prose, name, kind) in &parts {
                match kind {
                    0 => text.push_str(prose),
                    1 => text.push_str(&format!("\n```\n{prose}\n```\n")),
                    2 => text.push_str(&format!(" `{}` ", prose.replace('`', "'"))),
                    _ => text.push_str(name),
                }
            }
            let escaped = escape_markdown(&text);
            let pieces = chunks(&escaped);
            proptest::prop_assert!(!pieces.is_empty());
            for p in &pieces {
                proptest::prop_assert!(p.chars().count() <= MAX_CONTENT, "{} characters", p.chars().count());
            }
            if !escaped.contains("````") {
                for p in &pieces {
                    proptest::prop_assert_eq!(p.matches("```").count() % 2, 0, "{:?}", p);
                }
            }
        }
    }

    #[test]
    fn a_leading_mention_of_the_bot_addresses_it() {
        let bot = Some(UserId::new(1000));
        assert_eq!(addressed_by_mention("<@1000> challenge <@2> hans38", bot), "!t challenge <@2> hans38");
        assert_eq!(addressed_by_mention("  <@!1000>help", bot), "!t help");
        assert_eq!(addressed_by_mention("<@1000>", bot), "!t ");
        assert_eq!(addressed_by_mention("hi <@1000>", bot), "hi <@1000>", "only at the start");
        assert_eq!(addressed_by_mention("<@2> e4", bot), "<@2> e4", "someone else");
        assert_eq!(addressed_by_mention("<@1000> e4", None), "<@1000> e4", "before READY");
    }

    #[test]
    fn buttons_read_back_as_the_commands_they_stand_for() {
        assert_eq!(button_press("tessera:accept:3"), Some(Press::Run(Command::Accept(Some(3)))));
        assert_eq!(button_press("tessera:resign:7"), Some(Press::Confirm(7, "resign")));
        assert_eq!(button_press("tessera:resign-yes:7"), Some(Press::Run(Command::Resign(Some(7)))));
        assert_eq!(
            button_press("tessera:flip:7"),
            Some(Press::Run(Command::Board { game: Some(7), flip: true }))
        );
        for junk in ["", "tessera", "tessera:accept", "tessera:accept:x", "other:accept:3", "tessera:nuke:3"]
        {
            assert_eq!(button_press(junk), None, "{junk}");
        }
        // Every button the bot puts up is in the table and reads back; every table button is used.
        let all = [
            Actions::Challenge(1),
            Actions::Game(2),
            Actions::Confirm(2),
            Actions::DrawOffer(3),
            Actions::TakebackOffer(4),
            Actions::Tournament(5),
        ];
        let used: Vec<&str> = all.iter().flat_map(|a| button_ids(*a).1.iter().copied()).collect();
        for b in command_table::BUTTONS {
            let confirming =
                command_table::BUTTONS.iter().any(|o| o.confirm.is_some_and(|(yes, _)| yes == b.id));
            assert!(used.contains(&b.id) || confirming, "{} is never shown", b.id);
        }
        for actions in all {
            let json = serde_json::to_value(buttons(Some(actions))).unwrap();
            let ids: Vec<&str> = json[0]["components"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["custom_id"].as_str().unwrap())
                .collect();
            assert!(!ids.is_empty());
            assert!(ids.iter().all(|id| button_press(id).is_some()), "{ids:?}");
        }
    }

    /// The registered form of a command: `challenge`, or `tournament join` inside `tournament`.
    fn registered(all: &serde_json::Value, path: &str) -> serde_json::Value {
        let mut parts = path.split(' ');
        let top = parts.next().unwrap();
        let mut found = all.as_array().unwrap().iter().find(|c| c["name"] == top).cloned().unwrap();
        for sub in parts {
            found = found["options"].as_array().unwrap().iter().find(|o| o["name"] == sub).cloned().unwrap();
        }
        found
    }

    #[test]
    fn the_registered_slash_commands_are_the_table() {
        let json = serde_json::to_value(slash_commands()).unwrap();
        let mut shape = Vec::new();
        for spec in COMMANDS.iter().filter(|c| c.slash) {
            let r = registered(&json, &spec.path());
            assert_eq!(r["description"], spec.summary, "{}", spec.path());
            let options = r["options"].as_array().cloned().unwrap_or_default();
            assert_eq!(options.len(), spec.options.len(), "{}", spec.path());
            for (o, j) in spec.options.iter().zip(&options) {
                assert_eq!(j["name"], o.name);
                assert_eq!(j["required"], o.required, "{} {}", spec.path(), o.name);
                assert_eq!(j["autocomplete"], o.autocomplete, "{} {}", spec.path(), o.name);
                let values: Vec<&str> = match o.kind {
                    Kind::Choice { choices, .. } => choices.iter().map(|c| c.value).collect(),
                    _ => Vec::new(),
                };
                let registered: Vec<&str> =
                    j["choices"].as_array().unwrap().iter().map(|c| c["value"].as_str().unwrap()).collect();
                assert_eq!(registered, values, "{} {}", spec.path(), o.name);
            }
            let names: Vec<&str> = spec.options.iter().map(|o| o.name).collect();
            shape.push(format!("{}({})", spec.path(), names.join(",")));
        }
        // Users' clients cache these names: renaming one is a visible change, not a refactoring.
        assert_eq!(
            shape.join(" "),
            concat!(
                "challenge(opponent,variant,color,days,rated,level) rematch(opponent) accept(challenge) ",
                "decline(challenge) cancel(challenge) move(move,game) board(game,flip) moves(game,start) confirm(game) settings(change) channel(change) resign(game) ",
                "draw(action,game) claim(game) takeback(action,game) games(scope) history(game) variants() ",
                "rules(variant) help() rating(player,variant) leaderboard(variant) profile(player) ",
                "tournament create(format,variant,rounds,days,rated,limit,starts_in_hours,bye,name) ",
                "tournament list(page) tournament join(tournament) tournament leave(tournament) ",
                "tournament start(tournament) tournament standings(tournament) tournament pairings(tournament,round) ",
                "tournament withdraw(tournament,player,name) tournament result(game,result,correct,reason,tournament) ",
                "tournament pause(tournament) tournament resume(tournament) tournament cancel(tournament) ",
                "tournament export(tournament)"
            )
        );
        let groups = json.as_array().unwrap().iter().filter(|c| c["options"][0]["type"] == 1).count();
        assert_eq!(
            json.as_array().unwrap().len() - groups,
            COMMANDS.iter().filter(|c| c.slash && c.group.is_none()).count()
        );
    }

    #[test]
    fn examples_read_the_same_by_text_and_by_slash() {
        let json = serde_json::to_value(slash_commands()).unwrap();
        for spec in COMMANDS.iter().filter(|c| c.slash) {
            // The table's example takes what a challenge to a person may say; `level` is only for
            // one to the bot, so it has an example of its own here.
            let bot_example = (spec.path() == "challenge").then_some("@tessera chess black level 2");
            let mut shown = std::collections::HashSet::new();
            for example in std::iter::once(spec.example).chain(bot_example) {
                let text = format!("!t {} {example}", spec.path());
                let by_text = match crate::commands::parse(&text) {
                    Ok(crate::commands::Parsed::Command(c)) => c,
                    other => panic!("{text}: {other:?}"),
                };
                let words: Vec<String> = example
                    .split_whitespace()
                    .filter(|w| !w.starts_with(['@', '#']))
                    .map(str::to_string)
                    .collect();
                let game = example.split_whitespace().find_map(|w| w.strip_prefix('#')?.parse().ok());
                let args = command_table::read_text(spec, &words, game).unwrap();
                let r = registered(&json, &spec.path());
                let options = r["options"].as_array().cloned().unwrap_or_default();
                let mut given: Vec<(&str, Raw)> = Vec::new();
                for (name, value) in args.values() {
                    shown.insert(name);
                    let j = options.iter().find(|o| o["name"] == name).unwrap();
                    let kind = spec.option(name).unwrap().kind;
                    // As Discord would send it: the registered type, within its bounds and choices.
                    let raw = match (value, j["type"].as_u64().unwrap()) {
                        (command_table::Value::Number(n), 4) => {
                            let n = if matches!(kind, Kind::Delay) { n / 3600 } else { *n };
                            assert!(j["min_value"].as_i64().is_none_or(|min| n >= min), "{name}");
                            assert!(j["max_value"].as_i64().is_none_or(|max| n <= max), "{name}");
                            Raw::Number(n)
                        }
                        (command_table::Value::Word(w), 3) => {
                            let choices = j["choices"].as_array().unwrap();
                            assert!(
                                choices.is_empty() || choices.iter().any(|c| c["value"] == w.as_str()),
                                "{name}"
                            );
                            Raw::Word(w)
                        }
                        (command_table::Value::Flag(b), 5) => Raw::Flag(*b),
                        other => panic!("{}: {name} is {other:?}", spec.path()),
                    };
                    given.push((name, raw));
                }
                for o in spec.options.iter().filter(|o| matches!(o.kind, Kind::User { .. })) {
                    given.push((o.name, Raw::User));
                }
                assert_eq!(command_table::from_slash(&spec.path(), &given), Ok(by_text), "{text}");
            }
            // The examples show every option text can give (users and opponents come as mentions).
            for o in spec.options.iter().filter(|o| !matches!(o.kind, Kind::User { .. } | Kind::Opponent)) {
                assert!(shown.contains(o.name), "the examples of {} leave out {}", spec.path(), o.name);
            }
        }
    }

    #[test]
    fn the_slash_commands_are_valid_for_discord() {
        let json = serde_json::to_value(slash_commands()).unwrap();
        let list = json.as_array().unwrap();
        assert!(list.len() <= 100);
        let mut names = std::collections::HashSet::new();
        for c in list {
            let name = c["name"].as_str().unwrap();
            assert!(names.insert(name), "{name} twice");
            assert!(name.len() <= 32 && name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-'));
            let description = c["description"].as_str().unwrap();
            assert!((1..=100).contains(&description.chars().count()), "{name}");
            let options = c["options"].as_array().cloned().unwrap_or_default();
            assert!(options.len() <= 25);
            // Required options come first, as Discord demands.
            let required: Vec<bool> =
                options.iter().map(|o| o["required"].as_bool().unwrap_or(false)).collect();
            assert!(required.windows(2).all(|w| w[0] || !w[1]), "{name}");
            for o in &options {
                assert!((1..=100).contains(&o["description"].as_str().unwrap().chars().count()), "{name}");
                // A subcommand's own options follow the same rules.
                let inner = o["options"].as_array().cloned().unwrap_or_default();
                assert!(inner.len() <= 25, "{name}");
                let required: Vec<bool> =
                    inner.iter().map(|o| o["required"].as_bool().unwrap_or(false)).collect();
                assert!(required.windows(2).all(|w| w[0] || !w[1]), "{name} {}", o["name"]);
                for i in &inner {
                    let option = i["name"].as_str().unwrap();
                    assert!(option.len() <= 32 && option.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
                    assert!(
                        (1..=100).contains(&i["description"].as_str().unwrap().chars().count()),
                        "{option}"
                    );
                }
            }
            // Every command the service knows is reachable, and every slash command reads.
            if name != "challenge" && name != "tournament" {
                assert!(
                    slash_to_command(name, &[], None).is_ok() || name == "move" || name == "rules",
                    "{name}"
                );
            }
        }
        for autocompleted in ["challenge", "rematch", "move", "rules", "board", "accept"] {
            let c = list.iter().find(|c| c["name"] == autocompleted).unwrap();
            assert!(
                c["options"].as_array().unwrap().iter().any(|o| o["autocomplete"] == true),
                "{autocompleted}"
            );
        }
    }
}
