//! The Discord adapter: serenity events in, the game service's replies out (boards as image
//! attachments). No game logic here.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use serenity::all::{
    ChannelId, ClientBuilder, Context, CreateAttachment, CreateMessage, EventHandler, GatewayIntents,
    HttpBuilder, Message, Ready,
};
use serenity::async_trait;

use crate::service::{Incoming, Reply, Service, User};
use crate::store::SqliteStore;

pub const PLATFORM: &str = "discord";

type Shared = Arc<Service<SqliteStore>>;

struct Handler {
    service: Shared,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

#[async_trait]
impl EventHandler for Handler {
    async fn message(&self, ctx: Context, msg: Message) {
        if msg.author.bot {
            return;
        }
        let service = Arc::clone(&self.service);
        let author = User::new(
            msg.author.id.to_string(),
            msg.author.global_name.clone().unwrap_or(msg.author.name.clone()),
        );
        let mentioned: Vec<User> = msg
            .mentions
            .iter()
            .map(|u| User::new(u.id.to_string(), u.global_name.clone().unwrap_or(u.name.clone())))
            .collect();
        let channel = msg.channel_id.to_string();
        let text = msg.content.clone();
        // The service talks to SQLite synchronously: keep it off the async workers.
        let replies = tokio::task::spawn_blocking(move || {
            let incoming = Incoming {
                platform: PLATFORM,
                channel: &channel,
                author: &author,
                is_admin: false,
                text: &text,
                mentions: &mentioned,
                now: now(),
            };
            service.handle(&incoming)
        })
        .await
        .unwrap_or_default();
        for reply in replies {
            if let Err(e) = send(&ctx, msg.channel_id, &reply).await {
                eprintln!("could not answer in channel {}: {e}", msg.channel_id);
            }
        }
    }

    async fn ready(&self, _ctx: Context, ready: Ready) {
        eprintln!("Tessera is on Discord as {}", ready.user.name);
    }
}

async fn send(ctx: &Context, channel: ChannelId, reply: &Reply) -> Result<()> {
    let mut message = CreateMessage::new().content(&reply.text);
    if let Some(png) = &reply.image {
        message = message.add_file(CreateAttachment::bytes(png.clone(), "board.png"));
    }
    channel.send_message(&ctx.http, message).await?;
    Ok(())
}

/// Reminders and losses on time, every few minutes.
async fn clock(http: Arc<serenity::http::Http>, service: Shared) {
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(300)).await;
        let s = Arc::clone(&service);
        let notices = tokio::task::spawn_blocking(move || s.tick(now())).await;
        for notice in notices.into_iter().flatten().flatten().filter(|n| n.platform == PLATFORM) {
            let Ok(id) = notice.channel.parse::<u64>() else { continue };
            let _ = ChannelId::new(id).say(&http, &notice.text).await;
        }
    }
}

/// Runs the bot on Discord until the process ends. `api` replaces Discord's address (tests).
pub async fn run(service: Shared, token: &str, api: Option<&str>) -> Result<()> {
    let mut http = HttpBuilder::new(token);
    if let Some(api) = api {
        http = http.proxy(api).ratelimiter_disabled(true);
    }
    // Reading messages needs the privileged message-content intent, enabled in the developer portal.
    let intents =
        GatewayIntents::GUILD_MESSAGES | GatewayIntents::DIRECT_MESSAGES | GatewayIntents::MESSAGE_CONTENT;
    let mut client = ClientBuilder::new_with_http(http.build(), intents)
        .event_handler(Handler { service: Arc::clone(&service) })
        .await
        .context("setting up the Discord client")?;
    tokio::spawn(clock(Arc::clone(&client.http), service));
    client.start().await.context("connecting to Discord")?;
    Ok(())
}
