//! A fake Discord on 127.0.0.1 (REST and gateway) and the bot connected to it: see
//! `discord_fake.rs`.

use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::net::TcpListener;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tessera_bot::config::Shards;
use tessera_core::service::Service;
use tessera_render::{Caption, RenderOptions};
use tessera_rules::view::BoardView;
use tessera_rules::{Color, Position, Variant, notation};
use tessera_store::{AnyStore, SqliteStore};

pub(crate) const BOT_ID: &str = "1000";
pub(crate) const GUILD: &str = "400";
pub(crate) const CHANNEL: &str = "500";

pub(crate) fn user(id: &str, name: &str, bot: bool) -> Value {
    json!({"id": id, "username": name, "discriminator": "0", "global_name": name, "avatar": null, "bot": bot})
}

pub(crate) fn message(id: u64, author: Value, content: &str, mentions: Vec<Value>) -> Value {
    json!({
        "id": id.to_string(), "channel_id": CHANNEL, "author": author, "content": content,
        "timestamp": "2026-11-22T20:00:00.000000+00:00", "edited_timestamp": null, "tts": false,
        "mention_everyone": false, "mentions": mentions, "mention_roles": [], "attachments": [],
        "embeds": [], "pinned": false, "type": 0, "flags": 0
    })
}

/// A message in the server's channel, from a member with these roles (message events carry the
/// member's roles, not their permissions).
pub(crate) fn server_message(id: u64, author: Value, content: &str, roles: &[&str]) -> Value {
    let mut m = message(id, author, content, vec![]);
    m["guild_id"] = json!(GUILD);
    m["member"] = json!({"roles": roles, "joined_at": "2026-01-01T00:00:00.000000+00:00",
                         "deaf": false, "mute": false, "flags": 0});
    m
}

/// The server: everyone has no special permission; role 600 may manage the server.
pub(crate) fn guild() -> Value {
    let role = |id: &str, permissions: &str| {
        json!({"id": id, "name": id, "color": 0, "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
               "hoist": false, "managed": false, "mentionable": false,
               "permissions": permissions, "position": 0, "icon": null, "unicode_emoji": null, "flags": 0})
    };
    json!({
        "id": GUILD, "name": "club", "icon": null, "icon_hash": null, "splash": null, "discovery_splash": null,
        "owner_id": "1", "afk_channel_id": null, "afk_timeout": 300, "widget_enabled": false,
        "widget_channel_id": null, "verification_level": 0, "default_message_notifications": 0,
        "explicit_content_filter": 0, "roles": [role(GUILD, "0"), role("600", "32")], "emojis": [],
        "features": [], "mfa_level": 0, "application_id": null, "system_channel_id": null,
        "system_channel_flags": 0, "rules_channel_id": null, "max_presences": null, "max_members": 100,
        "vanity_url_code": null, "description": null, "banner": null, "premium_tier": 0,
        "premium_subscription_count": 0, "preferred_locale": "en-US", "public_updates_channel_id": null,
        "max_video_channel_users": 25, "max_stage_video_channel_users": 25, "nsfw_level": 0,
        "stickers": [], "premium_progress_bar_enabled": false, "safety_alerts_channel_id": null
    })
}

/// A request the bot made to the fake REST API.
#[derive(Debug, Clone)]
pub(crate) struct Posted {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) body: Vec<u8>,
    /// What the fake answered.
    pub(crate) status: u16,
}

impl Posted {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn has_png(&self) -> bool {
        self.body.windows(8).any(|w| w == b"\x89PNG\r\n\x1a\n")
    }

    /// The uploaded PNG, cut out of the multipart body.
    pub(crate) fn png(&self) -> Vec<u8> {
        let start = self.body.windows(8).position(|w| w == b"\x89PNG\r\n\x1a\n").expect("a PNG upload");
        let end = start + self.body[start..].windows(4).position(|w| w == b"IEND").expect("a whole PNG") + 8;
        self.body[start..end].to_vec()
    }

    /// Whether the upload is exactly the picture of alice's (White's) game with bob after `moves`:
    /// last move marked, seen from the side to move (Black's turns flipped), the names around the
    /// board and a finished game's result above, drawn independently of the bot here.
    pub(crate) fn shows(&self, variant: Variant, moves: &[&str]) -> bool {
        let mut before = Position::start(variant);
        let mut view_of = (before.clone(), None);
        for text in moves {
            let mv = notation::parse(text).unwrap().resolve(&before).unwrap();
            let after = before.played(&mv);
            view_of = (after.clone(), Some((before, mv)));
            before = after;
        }
        let (pos, last) = view_of;
        let view = BoardView::new(&pos, last.as_ref().map(|(p, m)| (p, m)));
        let outcome = tessera_rules::replay(variant, &moves.join(" ")).unwrap().game.outcome();
        let result = outcome.map(|o| match o {
            tessera_rules::Outcome::Win { winner, .. } => (Some(winner), o.to_string()),
            tessera_rules::Outcome::Draw { .. } => (None, o.to_string()),
        });
        let caption = Caption { names: ["alice".into(), "bob".into()], clocks: [None, None], result };
        let opts = RenderOptions {
            flip: pos.turn() == Color::Black,
            caption: Some(caption),
            ..RenderOptions::default()
        };
        self.png() == tessera_render::render_png(&view, &opts).unwrap()
    }

    /// The JSON payload: the body itself, or a multipart upload's `payload_json` part.
    pub(crate) fn json(&self) -> Value {
        let text = self.text();
        if let Ok(v) = serde_json::from_str(&text) {
            return v;
        }
        let part = text.find("name=\"payload_json\"").expect("a JSON body or a payload_json part");
        let start = part + text[part..].find("\r\n\r\n").unwrap() + 4;
        let end = start + text[start..].find("\r\n--").unwrap();
        serde_json::from_str(&text[start..end]).unwrap()
    }

    /// The custom ids of the buttons the message carries.
    pub(crate) fn buttons(&self) -> Vec<String> {
        let json = self.json();
        let data = if json["data"].is_object() { &json["data"] } else { &json };
        let rows = data["components"].as_array().cloned().unwrap_or_default();
        rows.iter()
            .flat_map(|r| r["components"].as_array().cloned().unwrap_or_default())
            .map(|b| b["custom_id"].as_str().unwrap().to_string())
            .collect()
    }

    /// Whether an interaction response is visible only to the one who asked.
    pub(crate) fn ephemeral(&self) -> bool {
        self.json()["data"]["flags"].as_u64().unwrap_or(0) & 64 != 0
    }
}

/// How the fake misbehaves, as Discord does: the tests set it.
#[derive(Debug, Default)]
pub(crate) struct Trouble {
    /// An interaction's first answer must come within this long of its dispatch, as Discord's
    /// three seconds; a later one is refused as an unknown interaction.
    pub(crate) deadline: Option<Duration>,
    /// When each interaction was dispatched, by id.
    pub(crate) dispatched: HashMap<String, Instant>,
    /// Statuses the next channel messages are answered with (a rate limit, server errors).
    pub(crate) fail_next: Vec<u16>,
    /// Channels where the bot lacks Attach Files: a message with files is refused.
    pub(crate) no_attachments: HashSet<String>,
    /// Channels the bot may not post in at all.
    pub(crate) forbidden: HashSet<String>,
    /// Channels where the bot may not create threads (Missing Access).
    pub(crate) no_threads: HashSet<String>,
}

/// The first thread the fake makes; each next one is numbered on.
pub(crate) const FIRST_THREAD: u64 = 7700;

/// A message id that names a deleted message: a reply to it fails unless it may fall back.
pub(crate) const DELETED_MESSAGE: u64 = 999_999;

/// The fake: REST on one port, the gateway on another.
pub(crate) struct FakeDiscord {
    pub(crate) api: String,
    pub(crate) posted: Arc<Mutex<Vec<Posted>>>,
    pub(crate) trouble: Arc<Mutex<Trouble>>,
    pub(crate) to_gateway: Sender<(&'static str, Value)>,
    pub(crate) identified: Receiver<Value>,
}

/// Starts the fake; `refuse_message_content` plays a bot whose portal settings lack the Message
/// Content intent.
pub(crate) fn start_fake(refuse_message_content: bool) -> FakeDiscord {
    let ws = TcpListener::bind("127.0.0.1:0").unwrap();
    let ws_port = ws.local_addr().unwrap().port();
    let rest = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let api = format!("http://127.0.0.1:{}", rest.server_addr().to_ip().unwrap().port());
    let posted = Arc::new(Mutex::new(Vec::new()));
    let trouble = Arc::new(Mutex::new(Trouble::default()));

    let log = Arc::clone(&posted);
    let troubles = Arc::clone(&trouble);
    std::thread::spawn(move || {
        for mut req in rest.incoming_requests() {
            let path = req.url().to_string();
            let method = req.method().to_string();
            let mut body = Vec::new();
            let _ = std::io::Read::read_to_end(req.as_reader(), &mut body);
            let mut logged =
                Posted { method: method.clone(), path: path.clone(), body: body.clone(), status: 200 };
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let refuse = |req: tiny_http::Request, status: u16, code: u64, message: &str| {
                let error = json!({"message": message, "code": code});
                let _ = req.respond(
                    tiny_http::Response::from_string(error.to_string())
                        .with_status_code(status)
                        .with_header(header.clone()),
                );
            };
            if path.contains("/interactions/") && path.ends_with("/callback") {
                let id = path.split('/').nth(4).unwrap_or_default().to_string();
                let late = {
                    let t = troubles.lock().unwrap();
                    t.deadline.zip(t.dispatched.get(&id)).is_some_and(|(d, at)| at.elapsed() > d)
                };
                logged.status = if path.contains("expired") || late { 404 } else { 204 };
                log.lock().unwrap().push(logged);
                // Discord's answer to a response that comes too late.
                if path.contains("expired") || late {
                    let unknown = json!({"message": "Unknown interaction", "code": 10062});
                    let _ = req.respond(
                        tiny_http::Response::from_string(unknown.to_string())
                            .with_status_code(404)
                            .with_header(header),
                    );
                } else {
                    let _ = req.respond(tiny_http::Response::empty(204));
                }
                continue;
            }
            let reply = if path.contains("/gateway") {
                json!({"url": format!("ws://127.0.0.1:{ws_port}"), "shards": 1,
                       "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}})
            } else if path.ends_with(&format!("/guilds/{GUILD}")) {
                guild()
            } else if path.ends_with("/users/@me") {
                user(BOT_ID, "tessera", true)
            } else if path.ends_with("/users/@me/channels") {
                // A direct-message channel with the recipient: its id is 8000 + theirs.
                log.lock().unwrap().push(logged);
                let recipient: Value = serde_json::from_slice(&body).unwrap_or_default();
                let who = recipient["recipient_id"].as_str().unwrap_or("0").to_string();
                let id = 8000 + who.parse::<u64>().unwrap_or(0);
                json!({"id": id.to_string(), "type": 1, "recipients": [user(&who, "someone", false)]})
            } else if path.contains("/webhooks/") && method == "DELETE" {
                log.lock().unwrap().push(logged);
                let _ = req.respond(tiny_http::Response::empty(204));
                continue;
            } else if path.contains("/channels/") && path.contains("/messages/") && path.ends_with("/threads")
            {
                // A thread started from a message: a channel of its own, under the message's.
                let parent = path.split("/channels/").nth(1).and_then(|p| p.split('/').next()).unwrap_or("");
                let parent = parent.to_string();
                if troubles.lock().unwrap().no_threads.contains(&parent) {
                    logged.status = 403;
                    log.lock().unwrap().push(logged);
                    refuse(req, 403, 50001, "Missing Access");
                    continue;
                }
                let asked: Value = serde_json::from_slice(&body).unwrap_or_default();
                let made = {
                    let mut log = log.lock().unwrap();
                    let made =
                        FIRST_THREAD + log.iter().filter(|p| p.path.ends_with("/threads")).count() as u64;
                    log.push(logged);
                    made
                };
                json!({"id": made.to_string(), "type": 11, "guild_id": GUILD, "parent_id": parent,
                       "name": asked["name"], "owner_id": BOT_ID,
                       "thread_metadata": {"archived": false, "auto_archive_duration": 10080,
                                           "archive_timestamp": "2026-11-22T20:00:00.000000+00:00", "locked": false}})
            } else if path.contains("/channels/") && path.ends_with("/messages")
                || path.contains("/webhooks/")
            {
                let channel = path.split("/channels/").nth(1).and_then(|p| p.split('/').next()).unwrap_or("");
                let text = String::from_utf8_lossy(&body).into_owned();
                let with_files = text.contains("filename=");
                let refusal = {
                    let mut t = troubles.lock().unwrap();
                    if path.contains("/webhooks/") {
                        None
                    } else if t.forbidden.contains(channel)
                        || with_files && t.no_attachments.contains(channel)
                    {
                        Some((403, 50013, "Missing Permissions"))
                    } else if !t.fail_next.is_empty() {
                        let status = t.fail_next.remove(0);
                        Some((
                            status,
                            0,
                            if status == 429 { "You are being rate limited." } else { "Server error" },
                        ))
                    } else if text.contains(&format!("\"message_id\":\"{DELETED_MESSAGE}\""))
                        && !text.contains("\"fail_if_not_exists\":false")
                    {
                        Some((400, 50035, "Invalid Form Body: message_reference: Unknown message"))
                    } else {
                        None
                    }
                };
                if let Some((status, code, why)) = refusal {
                    logged.status = status;
                    log.lock().unwrap().push(logged);
                    refuse(req, status, code, why);
                    continue;
                }
                log.lock().unwrap().push(logged);
                message(9000 + log.lock().unwrap().len() as u64, user(BOT_ID, "tessera", true), "ok", vec![])
            } else if path.ends_with("/commands") && req.method() == &tiny_http::Method::Put {
                log.lock().unwrap().push(logged);
                // Discord answers with the commands as stored: ids, version and application added.
                let sent: Vec<Value> = serde_json::from_slice(&body).unwrap_or_default();
                let stored: Vec<Value> = sent
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut c)| {
                        c["id"] = json!((7000 + i).to_string());
                        c["application_id"] = json!(BOT_ID);
                        c["version"] = json!("1");
                        c["type"] = json!(1);
                        c
                    })
                    .collect();
                json!(stored)
            } else {
                json!({})
            };
            let _ = req.respond(tiny_http::Response::from_string(reply.to_string()).with_header(header));
        }
    });

    let (to_gateway, events) = channel::<(&'static str, Value)>();
    let (identify_tx, identified) = channel::<Value>();
    let events = Arc::new(Mutex::new(events));
    std::thread::spawn(move || {
        // A thread per connection: each shard connects on its own; the bot reconnects after a
        // refusal. Events go to whichever connection reads them first.
        for stream in ws.incoming() {
            let Ok(stream) = stream else { return };
            let (identify_tx, events) = (identify_tx.clone(), Arc::clone(&events));
            std::thread::spawn(move || {
                connection(stream, ws_port, refuse_message_content, identify_tx, events)
            });
        }
    });
    FakeDiscord { api, posted, trouble, to_gateway, identified }
}

/// One gateway connection of the fake: HELLO, READY after IDENTIFY, heartbeats, and the events.
pub(crate) fn connection(
    stream: std::net::TcpStream,
    ws_port: u16,
    refuse_message_content: bool,
    identify_tx: Sender<Value>,
    events: Arc<Mutex<Receiver<(&'static str, Value)>>>,
) {
    let mut socket = tungstenite::accept(stream).unwrap();
    let send = |s: &mut tungstenite::WebSocket<std::net::TcpStream>, v: Value| {
        let _ = s.send(tungstenite::Message::text(v.to_string()));
    };
    send(&mut socket, json!({"op": 10, "d": {"heartbeat_interval": 41250}}));
    socket.get_ref().set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let mut seq = 0;
    loop {
        match socket.read() {
            Ok(tungstenite::Message::Text(t)) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                match v["op"].as_u64() {
                    Some(2)
                        if refuse_message_content && v["d"]["intents"].as_u64().unwrap() & (1 << 15) != 0 =>
                    {
                        // What Discord does when the portal has not enabled a privileged intent.
                        let _ = identify_tx.send(v);
                        let close = tungstenite::protocol::CloseFrame {
                            code: tungstenite::protocol::frame::coding::CloseCode::from(4014),
                            reason: "Disallowed intent(s).".into(),
                        };
                        let _ = socket.close(Some(close));
                        let _ = socket.flush();
                        break;
                    }
                    Some(2) => {
                        seq += 1;
                        let ready = json!({"op": 0, "t": "READY", "s": seq, "d": {
                        "v": 10, "user": user(BOT_ID, "tessera", true), "guilds": [],
                        "session_id": "fake-session", "resume_gateway_url": format!("ws://127.0.0.1:{ws_port}"),
                        "application": {"id": BOT_ID, "flags": 0}}});
                        send(&mut socket, ready);
                        let _ = identify_tx.send(v);
                    }
                    Some(1) => send(&mut socket, json!({"op": 11})),
                    _ => {}
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
        while let Ok((kind, event)) = events.lock().unwrap().try_recv() {
            seq += 1;
            send(&mut socket, json!({"op": 0, "t": kind, "s": seq, "d": event}));
        }
    }
}

impl FakeDiscord {
    /// Waits for the bot to make a request that `wanted` picks; returns it.
    pub(crate) fn wait_until(&self, what: &str, wanted: impl Fn(&Posted) -> bool) -> Posted {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(p) = self.posted.lock().unwrap().iter().find(|p| wanted(p)) {
                return p.clone();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let said: Vec<String> = self
            .posted
            .lock()
            .unwrap()
            .iter()
            .map(|p| format!("{} {}", p.path, p.text().chars().take(300).collect::<String>()))
            .collect();
        panic!("the bot never sent {what}; it sent {said:#?}");
    }

    /// Waits for the bot to post a message containing `needle`; returns it.
    pub(crate) fn wait_for(&self, needle: &str) -> Posted {
        self.wait_until(&format!("{needle:?}"), |p| p.text().contains(needle))
    }

    /// Waits for a follow-up message to interaction `id` (sent by [`FakeDiscord::interact`]).
    pub(crate) fn follow_up(&self, id: u64, needle: &str) -> Posted {
        let path = format!("/api/v10/webhooks/{BOT_ID}/token-{id}");
        self.wait_until(&format!("a follow-up {needle:?}"), |p| p.path == path && p.text().contains(needle))
    }

    /// Sends an interaction as Discord would, and waits for the bot's answer to it.
    pub(crate) fn interact(
        &self,
        id: u64,
        who: &Value,
        kind: u8,
        data: Value,
        message: Option<Value>,
    ) -> Posted {
        self.interact_with_token(id, &format!("token-{id}"), who, kind, data, message)
    }

    pub(crate) fn interact_with_token(
        &self,
        id: u64,
        token: &str,
        who: &Value,
        kind: u8,
        data: Value,
        message: Option<Value>,
    ) -> Posted {
        // A `nick` on the test's user is the member's server nickname.
        let mut who = who.clone();
        let nick = who.as_object_mut().unwrap().remove("nick").unwrap_or(Value::Null);
        let mut event = json!({
            "id": id.to_string(), "application_id": BOT_ID, "type": kind, "data": data,
            "guild_id": GUILD, "channel_id": CHANNEL,
            "member": {"user": who, "nick": nick, "roles": [], "joined_at": "2026-01-01T00:00:00.000000+00:00",
                       "deaf": false, "mute": false, "flags": 0, "permissions": "1024"},
            "token": token, "version": 1, "app_permissions": "1024",
            "locale": "en-GB", "guild_locale": "en-GB", "entitlements": [], "attachment_size_limit": 10485760
        });
        if let Some(m) = message {
            event["message"] = m;
        }
        self.trouble.lock().unwrap().dispatched.insert(id.to_string(), Instant::now());
        self.to_gateway.send(("INTERACTION_CREATE", event)).unwrap();
        let path = format!("/api/v10/interactions/{id}/{token}/callback");
        self.wait_until(&format!("an answer to interaction {id}"), |p| p.path == path)
    }
}

/// A fake Discord and the bot connected to it, on a fresh database in `dir`; returns the IDENTIFY.
pub(crate) fn bot_on_fake(dir: &std::path::Path, refuse_message_content: bool) -> (FakeDiscord, Value) {
    let (fake, identify, _, _) = clocked_bot_on_fake(dir, refuse_message_content);
    (fake, identify)
}

pub(crate) type Shared = Arc<Service<AnyStore>>;

/// As [`bot_on_fake`], with the process's clock (serving Discord) and the service, to tick by hand.
pub(crate) fn clocked_bot_on_fake(
    dir: &std::path::Path,
    refuse_message_content: bool,
) -> (FakeDiscord, Value, tessera_bot::clock::Clock, Shared) {
    sharded_bot_on_fake(dir, refuse_message_content, Shards::Auto)
}

/// As [`clocked_bot_on_fake`], the process running `shards`.
pub(crate) fn sharded_bot_on_fake(
    dir: &std::path::Path,
    refuse_message_content: bool,
    shards: Shards,
) -> (FakeDiscord, Value, tessera_bot::clock::Clock, Shared) {
    let options = tessera_bot::discord::DiscordOptions { shards, ..Default::default() };
    bot_on_fake_with(dir, refuse_message_content, options)
}

/// A fake Discord and the bot connected to it with `options` (the fake's address is filled in).
pub(crate) fn bot_on_fake_with(
    dir: &std::path::Path,
    refuse_message_content: bool,
    options: tessera_bot::discord::DiscordOptions,
) -> (FakeDiscord, Value, tessera_bot::clock::Clock, Shared) {
    let fake = start_fake(refuse_message_content);
    let _ = std::fs::remove_dir_all(dir);
    let store: AnyStore = Box::new(SqliteStore::open(&dir.join("games.sqlite")).unwrap());
    let service = Arc::new(Service::new(store));
    let options = tessera_bot::discord::DiscordOptions { api: Some(fake.api.clone()), ..options };
    let mut clock = tessera_bot::clock::Clock::new();
    let inbox = clock.serve(tessera_bot::discord::PLATFORM);
    let bot = Arc::clone(&service);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let _ = rt.block_on(tessera_bot::discord::run(bot, "fake-token", options, inbox));
    });
    let identify = fake.identified.recv_timeout(Duration::from_secs(30)).expect("the bot identifies");
    (fake, identify, clock, service)
}
