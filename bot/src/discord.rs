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

use crate::commands::{ColorChoice, Command, GameRef, Offer, Scope, TournamentCommand, TournamentSettings};
use crate::service::{Actions, Incoming, Reply, Service, Suggestion, User, suggest_variants, unix_now};
use crate::store::SqliteStore;
use crate::tournament_store::Format;
use tessera_rules::Variant;

pub const PLATFORM: &str = "discord";

/// Discord's limits: characters in a message, choices in an autocomplete answer.
const MAX_CONTENT: usize = 2000;
const MAX_CHOICES: usize = 25;

type Shared = Arc<Service<SqliteStore>>;

/// How to reach Discord.
#[derive(Clone, Debug, Default)]
pub struct DiscordOptions {
    /// Register the slash commands in this server only (they appear at once there); otherwise
    /// they are registered globally.
    pub guild: Option<u64>,
    /// Replaces Discord's API address (the tests' fake server).
    pub api: Option<String>,
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

fn user_of(u: &serenity::all::User) -> User {
    User::new(u.id.to_string(), u.global_name.clone().unwrap_or_else(|| u.name.clone()))
}

/// Server administrators and managers count as admins (tournament administration).
fn is_admin(member: Option<&Member>) -> bool {
    member
        .and_then(|m| m.permissions)
        .is_some_and(|p| p.intersects(Permissions::ADMINISTRATOR | Permissions::MANAGE_GUILD))
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

    /// Runs `f` on a blocking thread: the service talks to SQLite synchronously.
    async fn ask<T: Send + Default + 'static>(
        self,
        service: &Shared,
        f: impl FnOnce(&Service<SqliteStore>, &Incoming) -> T + Send + 'static,
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
        // A message carries no computed permissions; admin commands come as slash commands.
        let mut asker = Asker {
            text: addressed_by_mention(&msg.content, self.me.get().copied()),
            // Bots (this one included) cannot play, so they are never an opponent.
            mentions: msg.mentions.iter().filter(|u| !u.bot).map(user_of).collect(),
            ..Asker::new(msg.channel_id, &msg.author, None)
        };
        if let Some(nick) = msg.member.as_ref().and_then(|m| m.nick.clone()) {
            asker.author.name = nick;
        }
        let replies = asker.ask(&self.service, |s, m| s.handle(m)).await;
        for reply in replies {
            if let Err(e) = send(&ctx.http, msg.channel_id, &reply, reply.private.then_some(&msg)).await {
                tracing::warn!(channel = %msg.channel_id, "could not answer: {e}");
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
        let replies = match slash_to_command(&c.data.name, &c.data.options()) {
            Ok((cmd, mentions)) => {
                let asker = Asker { mentions, ..Asker::new(c.channel_id, &c.user, c.member.as_deref()) };
                asker.ask(&self.service, |s, m| s.run(m, cmd)).await
            }
            Err(e) => vec![Reply { text: e, private: true, ..Reply::default() }],
        };
        respond(http, Answering { id: c.id, token: &c.token, channel: c.channel_id }, replies).await
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
            Some(Press::ConfirmResign(game)) => {
                // Only a player is asked to confirm; anyone else hears why not.
                match asker.ask(&self.service, move |s, m| s.refusal_to_act(m, Some(game))).await {
                    Some(why) => vec![Reply { text: why, private: true, ..Reply::default() }],
                    None => {
                        let row = CreateActionRow::Buttons(vec![
                            CreateButton::new(format!("tessera:resign-yes:{game}"))
                                .label("Yes, resign")
                                .style(ButtonStyle::Danger),
                        ]);
                        let message = CreateInteractionResponseMessage::new()
                            .content(format!("Resign game #{game}? This cannot be undone."))
                            .ephemeral(true)
                            .components(vec![row]);
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
                    return respond_after(http, to, replies, updated.is_ok()).await;
                }
                replies
            }
            None => vec![Reply {
                text: "that button is not one of mine any more; use `/board` for a fresh board".into(),
                private: true,
                ..Reply::default()
            }],
        };
        respond(http, Answering { id: c.id, token: &c.token, channel: c.channel_id }, replies).await
    }
}

/// What a button press asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Press {
    /// Resigning asks first, privately.
    ConfirmResign(i64),
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

/// Reads a button's custom id (`tessera:<action>:<number>`).
fn button_press(custom_id: &str) -> Option<Press> {
    let mut parts = custom_id.split(':');
    if parts.next()? != "tessera" {
        return None;
    }
    let action = parts.next()?;
    let id: i64 = parts.next()?.parse().ok()?;
    let game = Some(id);
    Some(match action {
        "accept" => Press::Run(Command::Accept(game)),
        "decline" => Press::Run(Command::Decline(game)),
        "resign" => Press::ConfirmResign(id),
        "resign-yes" => Press::Run(Command::Resign(game)),
        "draw" => Press::Run(Command::Draw(Offer::Offer, game)),
        "draw-yes" => Press::Run(Command::Draw(Offer::Accept, game)),
        "draw-no" => Press::Run(Command::Draw(Offer::Decline, game)),
        "takeback-yes" => Press::Run(Command::Takeback(Offer::Accept, game)),
        "takeback-no" => Press::Run(Command::Takeback(Offer::Decline, game)),
        "flip" => Press::Run(Command::Board { game, flip: true }),
        "t-join" => Press::Run(Command::Tournament(TournamentCommand::Join(Some(id)))),
        "t-leave" => Press::Run(Command::Tournament(TournamentCommand::Leave(Some(id)))),
        _ => return None,
    })
}

/// The buttons under a reply.
fn buttons(actions: Option<Actions>) -> Vec<CreateActionRow> {
    let button = |action: &str, id: i64, label: &str, style: ButtonStyle| {
        CreateButton::new(format!("tessera:{action}:{id}")).label(label).style(style)
    };
    let row = match actions {
        None => return Vec::new(),
        Some(Actions::Challenge(id)) => vec![
            button("accept", id, "Accept", ButtonStyle::Success),
            button("decline", id, "Decline", ButtonStyle::Secondary),
        ],
        Some(Actions::Game(id)) => vec![
            button("resign", id, "Resign", ButtonStyle::Danger),
            button("draw", id, "Offer draw", ButtonStyle::Secondary),
            button("flip", id, "Flip board", ButtonStyle::Secondary),
        ],
        Some(Actions::DrawOffer(id)) => vec![
            button("draw-yes", id, "Accept draw", ButtonStyle::Success),
            button("draw-no", id, "Decline", ButtonStyle::Secondary),
        ],
        Some(Actions::TakebackOffer(id)) => vec![
            button("takeback-yes", id, "Allow takeback", ButtonStyle::Success),
            button("takeback-no", id, "Refuse", ButtonStyle::Secondary),
        ],
        Some(Actions::Tournament(id)) => vec![
            button("t-join", id, "Join", ButtonStyle::Success),
            button("t-leave", id, "Leave", ButtonStyle::Secondary),
        ],
    };
    vec![CreateActionRow::Buttons(row)]
}

/// Splits text into pieces Discord accepts, at line ends where it can, else at spaces.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.chars().count() > MAX_CONTENT {
        let limit = rest.char_indices().nth(MAX_CONTENT).map_or(rest.len(), |(i, _)| i);
        let head = &rest[..limit];
        let cut = head.rfind('\n').or_else(|| head.rfind(' ')).filter(|&i| i > 0).unwrap_or(limit);
        out.push(rest[..cut].to_string());
        rest = rest[cut..].trim_start_matches(['\n', ' ']);
    }
    let rest = rest.trim_end_matches(['\n', ' ']);
    if !rest.is_empty() || out.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// The text of a reply, in Discord-sized pieces, and whom it may ping: the players it concerns
/// (named in front of the first piece), and nobody else whatever the text says.
fn pieces(reply: &Reply) -> (Vec<String>, CreateAllowedMentions) {
    let users: Vec<UserId> = if reply.private {
        Vec::new()
    } else {
        reply.notify.iter().filter_map(|id| id.parse::<u64>().ok()).map(UserId::new).collect()
    };
    let pings: String = users.iter().map(|u| format!("<@{u}> ")).collect();
    (chunks(&format!("{pings}{}", reply.text)), CreateAllowedMentions::new().users(users))
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
        if let Err(e) = channel.id.send_message(http, CreateMessage::new().content(text.clone())).await {
            tracing::warn!(user = %id, "could not send a direct message: {e}");
        }
    }
}

async fn answer(http: &Http, to: &Answering<'_>, reply: &Reply, first: &mut bool) -> Result<()> {
    let (pieces, pings) = pieces(reply);
    let last = pieces.len() - 1;
    for (i, piece) in pieces.into_iter().enumerate() {
        let image = reply
            .image
            .as_ref()
            .filter(|_| i == last)
            .map(|png| CreateAttachment::bytes(png.clone(), "board.png"));
        let rows = if i == last { buttons(reply.actions) } else { Vec::new() };
        if *first {
            let mut m = CreateInteractionResponseMessage::new()
                .content(piece)
                .ephemeral(reply.private)
                .allowed_mentions(pings.clone())
                .components(rows);
            if let Some(file) = image {
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
            if let Some(file) = image {
                m = m.add_file(file);
            }
            m.execute(http, (None, to.token)).await?;
        }
    }
    Ok(())
}

/// The slash commands, with autocomplete where the answer depends on the game.
fn slash_commands() -> Vec<CreateCommand> {
    let opt = |kind, name: &str, description: &str| CreateCommandOption::new(kind, name, description);
    let game = || {
        opt(CommandOptionType::Integer, "game", "Which game (when you have several here)")
            .set_autocomplete(true)
            .min_int_value(1)
    };
    let challenge = |what: &str| {
        opt(CommandOptionType::Integer, "challenge", what).set_autocomplete(true).min_int_value(1)
    };
    let offer = |what: &str| {
        opt(CommandOptionType::String, "action", what)
            .add_string_choice("offer", "offer")
            .add_string_choice("accept", "accept")
            .add_string_choice("decline", "decline")
    };
    let cmd = |name: &str, description: &str| CreateCommand::new(name).description(description);
    vec![
        cmd("challenge", "Challenge someone to a game")
            .add_option(opt(CommandOptionType::User, "opponent", "Who you want to play").required(true))
            .add_option(
                opt(CommandOptionType::String, "variant", "Which variant (default: chess)")
                    .set_autocomplete(true),
            )
            .add_option(
                opt(CommandOptionType::String, "color", "Your colour (default: random)")
                    .add_string_choice("white", "white")
                    .add_string_choice("black", "black")
                    .add_string_choice("random", "random"),
            )
            .add_option(
                opt(CommandOptionType::Integer, "days", "Days per move (default: no clock)")
                    .min_int_value(1)
                    .max_int_value(30),
            )
            .add_option(opt(CommandOptionType::Boolean, "rated", "Counts for ratings (default: no)")),
        cmd("rematch", "Challenge someone you played to the same game again, colours swapped").add_option(
            opt(CommandOptionType::String, "opponent", "Whom (default: your last opponent here)")
                .set_autocomplete(true),
        ),
        cmd("accept", "Accept a challenge").add_option(challenge("Which challenge")),
        cmd("decline", "Decline a challenge").add_option(challenge("Which challenge")),
        cmd("cancel", "Withdraw your challenge").add_option(challenge("Which challenge")),
        cmd("move", "Play a move")
            .add_option(
                opt(
                    CommandOptionType::String,
                    "move",
                    "The move, like e4, Nf3 or @@e4 (suggestions are legal)",
                )
                .required(true)
                .set_autocomplete(true)
                .max_length(200),
            )
            .add_option(game()),
        cmd("board", "Show a game's board").add_option(game()).add_option(opt(
            CommandOptionType::Boolean,
            "flip",
            "Seen from the other side",
        )),
        cmd("moves", "List the legal moves").add_option(game()),
        cmd("resign", "Resign a game").add_option(game()),
        cmd("draw", "Offer, accept or decline a draw")
            .add_option(offer("What to do (default: offer)"))
            .add_option(game()),
        cmd("claim", "Claim a draw by repetition or the 50-move rule").add_option(game()),
        cmd("takeback", "Ask to take back your last move, or answer such a request")
            .add_option(offer("What to do (default: ask)"))
            .add_option(game()),
        cmd("games", "List running games").add_option(
            opt(CommandOptionType::String, "scope", "Whose games (default: this channel's)")
                .add_string_choice("this channel", "channel")
                .add_string_choice("mine", "mine"),
        ),
        cmd("history", "A game's record").add_option(game()),
        cmd("variants", "The variants Tessera plays"),
        cmd("rules", "A variant's rules in brief").add_option(
            opt(CommandOptionType::String, "variant", "Which variant").required(true).set_autocomplete(true),
        ),
        cmd("help", "How to play on Tessera"),
        cmd("rating", "A player's ratings")
            .add_option(opt(CommandOptionType::User, "player", "Whose (default: yours)"))
            .add_option(
                opt(CommandOptionType::String, "variant", "Which variant (default: all)")
                    .set_autocomplete(true),
            ),
        cmd("leaderboard", "The best rated players here").add_option(
            opt(CommandOptionType::String, "variant", "Which variant (default: the most played here)")
                .set_autocomplete(true),
        ),
        cmd("profile", "A player's ratings, results and recent games").add_option(opt(
            CommandOptionType::User,
            "player",
            "Whose (default: yours)",
        )),
        tournament_command(),
    ]
}

/// `/tournament` and its subcommands: one per tournament command.
fn tournament_command() -> CreateCommand {
    let opt = |kind, name: &str, description: &str| CreateCommandOption::new(kind, name, description);
    let tournament = || {
        opt(CommandOptionType::Integer, "tournament", "Which tournament (default: the one here)")
            .set_autocomplete(true)
            .min_int_value(1)
    };
    let sub = |name: &str, description: &str| opt(CommandOptionType::SubCommand, name, description);
    let simple = |name: &str, description: &str| sub(name, description).add_sub_option(tournament());
    let create = sub("create", "Create a tournament in this channel")
        .add_sub_option(
            opt(CommandOptionType::String, "format", "How it is paired")
                .required(true)
                .add_string_choice("Swiss (FIDE Dutch)", "swiss")
                .add_string_choice("Round robin", "round-robin")
                .add_string_choice("Double round robin", "double-round-robin")
                .add_string_choice("Knockout", "knockout"),
        )
        .add_sub_option(
            opt(CommandOptionType::String, "variant", "Which variant (default: chess)")
                .set_autocomplete(true),
        )
        .add_sub_option(
            opt(CommandOptionType::Integer, "rounds", "Swiss: how many rounds")
                .min_int_value(1)
                .max_int_value(30),
        )
        .add_sub_option(
            opt(CommandOptionType::Integer, "days", "Days per move (default: no clock)")
                .min_int_value(1)
                .max_int_value(30),
        )
        .add_sub_option(opt(CommandOptionType::Boolean, "rated", "Counts for ratings (default: yes)"))
        .add_sub_option(
            opt(CommandOptionType::Integer, "limit", "Most players (default: no limit)")
                .min_int_value(2)
                .max_int_value(4000),
        )
        .add_sub_option(
            opt(CommandOptionType::Integer, "starts_in_hours", "Starts by itself after this many hours")
                .min_int_value(1)
                .max_int_value(24 * 60),
        )
        .add_sub_option(
            opt(CommandOptionType::String, "bye", "Points for a bye (default: 1)")
                .add_string_choice("1", "1")
                .add_string_choice("½", "1/2")
                .add_string_choice("0", "0"),
        )
        .add_sub_option(opt(CommandOptionType::String, "name", "Its name").max_length(80));
    CreateCommand::new("tournament")
        .description("Community tournaments: Swiss, round robin, knockout")
        .add_option(create)
        .add_option(sub("list", "The tournaments in this channel"))
        .add_option(simple("join", "Enter a tournament"))
        .add_option(simple("leave", "Leave a tournament before it starts"))
        .add_option(simple("start", "Start a tournament (organiser)"))
        .add_option(simple("standings", "The standings, as text and a picture"))
        .add_option(
            simple("pairings", "A round's pairings (default: the current round)")
                .add_sub_option(opt(CommandOptionType::Integer, "round", "Which round").min_int_value(1)),
        )
        .add_option(
            simple("withdraw", "Withdraw from a tournament (organiser: withdraw a player)").add_sub_option(
                opt(CommandOptionType::User, "player", "Whom (organiser only; default: you)"),
            ),
        )
        .add_option(
            sub("result", "Set a game's result (organiser)")
                .add_sub_option(
                    opt(CommandOptionType::Integer, "game", "Which game")
                        .required(true)
                        .set_autocomplete(true)
                        .min_int_value(1),
                )
                .add_sub_option(
                    opt(CommandOptionType::String, "result", "The result")
                        .required(true)
                        .add_string_choice("1-0", "1-0")
                        .add_string_choice("0-1", "0-1")
                        .add_string_choice("½-½", "1/2-1/2")
                        .add_string_choice("White wins by forfeit (+-)", "+-")
                        .add_string_choice("Black wins by forfeit (-+)", "-+")
                        .add_string_choice("Both lose by forfeit (--)", "--"),
                )
                .add_sub_option(
                    opt(CommandOptionType::String, "reason", "Why (kept with the result)").max_length(200),
                )
                .add_sub_option(tournament()),
        )
        .add_option(simple("pause", "Pause pairing new rounds (organiser)"))
        .add_option(simple("resume", "Resume a paused tournament (organiser)"))
        .add_option(simple("cancel", "Cancel a tournament (organiser)"))
        .add_option(simple("export", "The tournament as FIDE TRF-16"))
}

/// The options a slash command was given, read by name.
struct Given<'a>(&'a [ResolvedOption<'a>]);

impl<'a> Given<'a> {
    fn find(&self, key: &str) -> Option<&'a ResolvedValue<'a>> {
        self.0.iter().find(|o| o.name == key).map(|o| &o.value)
    }
    fn text(&self, key: &str) -> Option<String> {
        match self.find(key) {
            Some(ResolvedValue::String(s)) => Some(s.to_string()),
            _ => None,
        }
    }
    fn number(&self, key: &str) -> Option<i64> {
        match self.find(key) {
            Some(ResolvedValue::Integer(n)) => Some(*n),
            _ => None,
        }
    }
    fn flag(&self, key: &str) -> Option<bool> {
        match self.find(key) {
            Some(ResolvedValue::Boolean(b)) => Some(*b),
            _ => None,
        }
    }
}

/// `/tournament <sub>` as a service command, and the users it names.
fn tournament_to_command(options: &[ResolvedOption]) -> Result<(Command, Vec<User>), String> {
    let Some((sub, options)) = options.iter().find_map(|o| match &o.value {
        ResolvedValue::SubCommand(inner) => Some((o.name, inner.as_slice())),
        _ => None,
    }) else {
        return Err("say what to do, like `/tournament join`".into());
    };
    let given = Given(options);
    let (find, text, number) = (|k| given.find(k), |k| given.text(k), |k| given.number(k));
    let flag = |k| given.flag(k);
    let t = number("tournament");
    let mut users = Vec::new();
    let cmd = match sub {
        "create" => {
            let format = text("format")
                .and_then(|f| Format::parse(&f))
                .ok_or("choose a format: swiss, round-robin, double-round-robin or knockout")?;
            let variant = match text("variant") {
                Some(v) => v.trim().parse::<Variant>().map_err(|e| e.to_string())?,
                None => Variant::Chess,
            };
            let rounds = number("rounds").map(|r| r as u32);
            if format == Format::Swiss && rounds.is_none() {
                return Err("a Swiss needs its number of rounds: add the `rounds` option".into());
            }
            if format != Format::Swiss && rounds.is_some() {
                return Err("only a Swiss takes a number of rounds".into());
            }
            TournamentCommand::Create(TournamentSettings {
                format,
                variant,
                rounds,
                days: number("days").map(|d| d as u32),
                rated: flag("rated").unwrap_or(true),
                max_players: number("limit").map(|l| l as u32),
                starts_in: number("starts_in_hours").map(|h| h * 3600),
                bye_halves: match text("bye").as_deref() {
                    Some("1/2") => 1,
                    Some("0") => 0,
                    _ => 2,
                },
                name: text("name").filter(|n| !n.trim().is_empty()),
            })
        }
        "list" => TournamentCommand::List,
        "join" => TournamentCommand::Join(t),
        "leave" => TournamentCommand::Leave(t),
        "start" => TournamentCommand::Start(t),
        "standings" => TournamentCommand::Standings(t),
        "pairings" => TournamentCommand::Pairings(t, number("round").map(|r| r as u32)),
        "withdraw" => {
            if let Some(ResolvedValue::User(u, _)) = find("player") {
                users.push(user_of(u));
            }
            TournamentCommand::Withdraw(t)
        }
        "result" => TournamentCommand::Result {
            tournament: t,
            game: number("game").ok_or("say which game, by its number: `game:12`")?,
            result: text("result").ok_or("say the result: 1-0, 0-1, 1/2-1/2, +-, -+ or --")?,
            reason: text("reason").unwrap_or_else(|| "set by the organiser".into()),
        },
        "pause" => TournamentCommand::Pause(t),
        "resume" => TournamentCommand::Resume(t),
        "cancel" => TournamentCommand::Cancel(t),
        "export" => TournamentCommand::Export(t),
        other => return Err(format!("I have no `/tournament {other}`")),
    };
    Ok((Command::Tournament(cmd), users))
}

/// A slash command and its options as a service command, and the users it names.
fn slash_to_command(name: &str, options: &[ResolvedOption]) -> Result<(Command, Vec<User>), String> {
    let given = Given(options);
    let (find, text, number) = (|k| given.find(k), |k| given.text(k), |k| given.number(k));
    let game: GameRef = number("game").or_else(|| number("challenge"));
    let variant = |required: bool| -> Result<Option<Variant>, String> {
        match text("variant") {
            Some(v) => v.trim().parse::<Variant>().map(Some).map_err(|e| e.to_string()),
            None if required => Err("say which variant; `/variants` lists them".into()),
            None => Ok(None),
        }
    };
    let offer = || match text("action").as_deref() {
        None | Some("offer") => Ok(Offer::Offer),
        Some("accept") => Ok(Offer::Accept),
        Some("decline") => Ok(Offer::Decline),
        Some(other) => Err(format!("\"{other}\": choose offer, accept or decline")),
    };
    let cmd = match name {
        "challenge" => {
            let Some(ResolvedValue::User(opponent, _)) = find("opponent") else {
                return Err(
                    "name your opponent in the `opponent` option, like `/challenge opponent:@bob`".into()
                );
            };
            if opponent.bot {
                return Err(format!("{} is a bot and cannot play; challenge a person", opponent.name));
            }
            let color = match text("color").as_deref() {
                Some("white") => ColorChoice::White,
                Some("black") => ColorChoice::Black,
                _ => ColorChoice::Random,
            };
            let days = match number("days") {
                Some(d @ 1..=30) => Some(d as u32),
                Some(_) => return Err("days per move is a number from 1 to 30".into()),
                None => None,
            };
            let variant = variant(false)?.unwrap_or(Variant::Chess);
            let rated = matches!(find("rated"), Some(ResolvedValue::Boolean(true)));
            return Ok((Command::Challenge { variant, color, days, rated }, vec![user_of(opponent)]));
        }
        "tournament" => return tournament_to_command(options),
        "rating" | "profile" => {
            let users = match find("player") {
                Some(ResolvedValue::User(u, _)) => vec![user_of(u)],
                _ => Vec::new(),
            };
            let cmd = if name == "rating" { Command::Rating(variant(false)?) } else { Command::Profile };
            return Ok((cmd, users));
        }
        "leaderboard" => Command::Leaderboard(variant(false)?),
        "rematch" => Command::Rematch(text("opponent").map(|o| o.trim().to_string())),
        "accept" => Command::Accept(game),
        "decline" => Command::Decline(game),
        "cancel" => Command::Cancel(game),
        "move" => {
            let mv = text("move").unwrap_or_default();
            if mv.trim().is_empty() {
                return Err("say which move, like `e4` or `Ng1-f3`".into());
            }
            Command::Move { game, text: mv.trim().to_string() }
        }
        "board" => Command::Board { game, flip: matches!(find("flip"), Some(ResolvedValue::Boolean(true))) },
        "moves" => Command::Moves(game),
        "resign" => Command::Resign(game),
        "draw" => Command::Draw(offer()?, game),
        "claim" => Command::Claim(game),
        "takeback" => Command::Takeback(offer()?, game),
        "games" => Command::Games(if text("scope").as_deref() == Some("mine") {
            Scope::Mine
        } else {
            Scope::Channel
        }),
        "history" => Command::History(game),
        "variants" => Command::Variants,
        "rules" => Command::Rules(variant(true)?),
        "help" => Command::Help,
        other => return Err(format!("I have no command /{other} any more; `/help` lists mine")),
    };
    Ok((cmd, Vec::new()))
}

/// Posts the clock's notices (reminders, losses on time, tournament rounds) as they come.
async fn deliver(http: Arc<Http>, mut notices: crate::clock::Inbox) {
    while let Some(notice) = notices.recv().await {
        let Ok(id) = notice.channel.parse::<u64>() else { continue };
        let reply = Reply { text: notice.text, notify: notice.notify, ..Reply::default() };
        if let Err(e) = send(&http, ChannelId::new(id), &reply, None).await {
            tracing::warn!(channel = id, "a clock notice could not be posted: {e}");
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
    let http = || {
        let http = HttpBuilder::new(token);
        match &options.api {
            Some(api) => http.proxy(api).ratelimiter_disabled(true),
            None => http,
        }
        .build()
    };
    tokio::spawn(deliver(Arc::new(http()), notices));
    let connect = |intents| {
        let handler = Handler {
            service: Arc::clone(&service),
            guild: options.guild.map(GuildId::new),
            me: std::sync::OnceLock::new(),
        };
        async move {
            let mut client = ClientBuilder::new_with_http(http(), intents).event_handler(handler).await?;
            client.start().await
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
        assert_eq!(button_press("tessera:resign:7"), Some(Press::ConfirmResign(7)));
        assert_eq!(button_press("tessera:resign-yes:7"), Some(Press::Run(Command::Resign(Some(7)))));
        assert_eq!(
            button_press("tessera:flip:7"),
            Some(Press::Run(Command::Board { game: Some(7), flip: true }))
        );
        for junk in ["", "tessera", "tessera:accept", "tessera:accept:x", "other:accept:3", "tessera:nuke:3"]
        {
            assert_eq!(button_press(junk), None, "{junk}");
        }
        // Every button the bot puts up reads back.
        for actions in
            [Actions::Challenge(1), Actions::Game(2), Actions::DrawOffer(3), Actions::TakebackOffer(4)]
        {
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
                assert!(slash_to_command(name, &[]).is_ok() || name == "move" || name == "rules", "{name}");
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
