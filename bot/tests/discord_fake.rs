//! The Discord adapter at the wire, against a FAKE Discord server on 127.0.0.1: it speaks Discord's
//! real protocol (REST `GET /gateway/bot`, `POST /channels/{id}/messages` with multipart uploads;
//! gateway websocket HELLO, IDENTIFY, READY, heartbeats, MESSAGE_CREATE dispatches) well enough for
//! serenity, which is pointed at it through its HTTP builder's proxy setting. A whole game is played
//! through it and the bot's real requests, uploaded PNGs included, are checked.

use std::net::TcpListener;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tessera_bot::service::Service;
use tessera_bot::store::SqliteStore;

const BOT_ID: &str = "1000";
const CHANNEL: &str = "500";

fn user(id: &str, name: &str, bot: bool) -> Value {
    json!({"id": id, "username": name, "discriminator": "0", "global_name": name, "avatar": null, "bot": bot})
}

fn message(id: u64, author: Value, content: &str, mentions: Vec<Value>) -> Value {
    json!({
        "id": id.to_string(), "channel_id": CHANNEL, "author": author, "content": content,
        "timestamp": "2026-11-22T20:00:00.000000+00:00", "edited_timestamp": null, "tts": false,
        "mention_everyone": false, "mentions": mentions, "mention_roles": [], "attachments": [],
        "embeds": [], "pinned": false, "type": 0, "flags": 0
    })
}

/// A request the bot made to the fake REST API.
#[derive(Debug, Clone)]
struct Posted {
    path: String,
    body: Vec<u8>,
}

impl Posted {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn has_png(&self) -> bool {
        self.body.windows(8).any(|w| w == b"\x89PNG\r\n\x1a\n")
    }
}

/// The fake: REST on one port, the gateway on another.
struct FakeDiscord {
    api: String,
    posted: Arc<Mutex<Vec<Posted>>>,
    to_gateway: Sender<Value>,
    identified: Receiver<Value>,
}

fn start_fake() -> FakeDiscord {
    let ws = TcpListener::bind("127.0.0.1:0").unwrap();
    let ws_port = ws.local_addr().unwrap().port();
    let rest = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let api = format!("http://127.0.0.1:{}", rest.server_addr().to_ip().unwrap().port());
    let posted = Arc::new(Mutex::new(Vec::new()));

    let log = Arc::clone(&posted);
    std::thread::spawn(move || {
        for mut req in rest.incoming_requests() {
            let path = req.url().to_string();
            let mut body = Vec::new();
            let _ = std::io::Read::read_to_end(req.as_reader(), &mut body);
            let reply = if path.contains("/gateway") {
                json!({"url": format!("ws://127.0.0.1:{ws_port}"), "shards": 1,
                       "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}})
            } else if path.ends_with("/users/@me") {
                user(BOT_ID, "tessera", true)
            } else if path.contains("/channels/") && path.ends_with("/messages") {
                log.lock().unwrap().push(Posted { path: path.clone(), body: body.clone() });
                message(9000 + log.lock().unwrap().len() as u64, user(BOT_ID, "tessera", true), "ok", vec![])
            } else {
                json!({})
            };
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = req.respond(tiny_http::Response::from_string(reply.to_string()).with_header(header));
        }
    });

    let (to_gateway, events) = channel::<Value>();
    let (identify_tx, identified) = channel::<Value>();
    std::thread::spawn(move || {
        let (stream, _) = ws.accept().unwrap();
        let mut socket = tungstenite::accept(stream).unwrap();
        let send = |s: &mut tungstenite::WebSocket<std::net::TcpStream>, v: Value| {
            s.send(tungstenite::Message::text(v.to_string())).unwrap();
        };
        send(&mut socket, json!({"op": 10, "d": {"heartbeat_interval": 41250}}));
        socket.get_ref().set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        let mut seq = 0;
        loop {
            match socket.read() {
                Ok(tungstenite::Message::Text(t)) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    match v["op"].as_u64() {
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
                Err(_) => return,
            }
            while let Ok(event) = events.try_recv() {
                seq += 1;
                send(&mut socket, json!({"op": 0, "t": "MESSAGE_CREATE", "s": seq, "d": event}));
            }
        }
    });
    FakeDiscord { api, posted, to_gateway, identified }
}

impl FakeDiscord {
    /// Waits for the bot to post a message containing `needle`; returns it.
    fn wait_for(&self, needle: &str) -> Posted {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(p) = self.posted.lock().unwrap().iter().find(|p| p.text().contains(needle)) {
                return p.clone();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let said: Vec<String> =
            self.posted.lock().unwrap().iter().map(|p| p.text().chars().take(200).collect()).collect();
        panic!("the bot never said {needle:?}; it said {said:#?}");
    }
}

#[test]
fn a_whole_game_through_a_fake_discord() {
    let fake = start_fake();
    let dir = std::env::temp_dir().join(format!("tessera-discord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let service = Arc::new(Service::new(SqliteStore::open(&dir.join("games.sqlite")).unwrap()));
    let api = fake.api.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let _ = rt.block_on(tessera_bot::discord::run(service, "fake-token", Some(&api)));
    });
    let identify = fake.identified.recv_timeout(Duration::from_secs(30)).expect("the bot identifies");
    assert_eq!(identify["d"]["token"], "Bot fake-token");
    let intents = identify["d"]["intents"].as_u64().unwrap();
    assert_ne!(intents & (1 << 15), 0, "the message content intent is asked for");

    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let mut id = 100;
    let mut say = |who: &Value, text: &str, mentions: Vec<Value>| {
        id += 1;
        fake.to_gateway.send(message(id, who.clone(), text, mentions)).unwrap();
    };
    say(&alice, "!t challenge <@2> chess white", vec![bob.clone()]);
    fake.wait_for("alice challenges bob");
    say(&bob, "!t accept", vec![]);
    let begins = fake.wait_for("begins");
    assert!(begins.has_png(), "the board is uploaded as an attachment");
    assert_eq!(begins.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    for (who, mv) in [(&alice, "f3"), (&bob, "e5"), (&alice, "g4")] {
        say(who, mv, vec![]);
        assert!(fake.wait_for(&format!("played {mv}")).has_png());
    }
    say(&alice, "e4", vec![]);
    fake.wait_for("it is bob's turn");
    say(&bob, "Qh4#", vec![]);
    let end = fake.wait_for("Black wins by checkmate");
    assert!(end.has_png());
    std::fs::remove_dir_all(&dir).ok();
}
