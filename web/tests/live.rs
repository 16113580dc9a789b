//! Live updates on a real listener: a stream starts with the page's fingerprint, sends a new one
//! within seconds of a result set in chat, a stream opened after a drop catches up at once, and
//! shutdown ends every stream and the server.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use support::token as token_of;
use support::*;
use tessera_web::{WebOptions, serve};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// A plain GET on a fresh connection: the status code and the body (chunked bodies unparsed).
async fn fetch(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    (status, text.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default())
}

/// An open event stream, read line by line.
struct Events(BufReader<TcpStream>);

impl Events {
    async fn open(addr: SocketAddr, path: &str) -> Events {
        let mut events = Events::ask(addr, path, "").await;
        let status = events.line().await.unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        events
    }

    /// The request sent with `headers` (each line ending in CRLF), nothing read yet.
    async fn ask(addr: SocketAddr, path: &str, headers: &str) -> Events {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(
                format!("GET {path} HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n{headers}\r\n")
                    .as_bytes(),
            )
            .await
            .unwrap();
        Events(BufReader::new(stream))
    }

    /// Whether the stream ends (its last chunk, or the connection closed) within `wait`, no
    /// event coming before.
    async fn ends(&mut self, wait: Duration) -> bool {
        timeout(wait, async {
            loop {
                match self.line().await.as_deref() {
                    None | Some("0") => return true,
                    Some(data) if data.starts_with("data:") => return false,
                    Some(_) => {}
                }
            }
        })
        .await
        .unwrap_or(false)
    }

    async fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        (self.0.read_line(&mut line).await.unwrap() > 0).then(|| line.trim_end().to_string())
    }

    /// The next event's data, waiting at most `wait`.
    async fn next(&mut self, wait: Duration) -> Option<String> {
        timeout(wait, async {
            loop {
                let line = self.line().await?;
                if let Some(data) = line.strip_prefix("data: ") {
                    return Some(data.to_string());
                }
            }
        })
        .await
        .ok()
        .flatten()
    }
}

fn fingerprint_of(json: &str) -> String {
    let value: serde_json::Value =
        serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("{e}: {json}"));
    value["fingerprint"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_set_in_chat_reaches_an_open_stream_and_shutdown_ends_it() {
    let club = Club::new();
    let t = club.tournament(
        "swiss chess rounds 3 casual name Live",
        &[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")],
    );
    let token = club.publish(t);
    let games = club.games(t);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // All the streams come from this one address.
    let opts = WebOptions { max_streams_per_client: 100, ..WebOptions::default() };
    let server = tokio::spawn(serve(club.service.clone(), listener, opts, async {
        let _ = stopped.await;
    }));

    let (status, json) = fetch(addr, &format!("/t/{token}/json")).await;
    assert_eq!(status, 200);
    let before = fingerprint_of(&json);
    let mut tournament = Events::open(addr, &format!("/t/{token}/events")).await;
    assert_eq!(
        tournament.next(Duration::from_secs(5)).await.as_deref(),
        Some(before.as_str()),
        "the first event"
    );
    let mut game = Events::open(addr, &format!("/t/{token}/g/{}/events", games[0])).await;
    let game_before = game.next(Duration::from_secs(5)).await.unwrap();
    // Many listeners of one page share its poller.
    let mut crowd = Vec::new();
    for _ in 0..20 {
        crowd.push(Events::open(addr, &format!("/t/{token}/events")).await);
    }
    for events in &mut crowd {
        assert_eq!(events.next(Duration::from_secs(5)).await.as_deref(), Some(before.as_str()));
    }

    let said = club.say("org", &format!("!t tournament result #{} 1-0", games[0]));
    assert!(said.contains("1-0"), "{said}");
    let changed = tournament.next(Duration::from_secs(5)).await.expect("an event within seconds");
    assert_ne!(changed, before);
    let (_, json) = fetch(addr, &format!("/t/{token}/json")).await;
    assert_eq!(changed, fingerprint_of(&json), "the event is the page's new fingerprint");
    assert_ne!(game.next(Duration::from_secs(5)).await.expect("the game's page too"), game_before);
    for events in &mut crowd {
        assert_eq!(events.next(Duration::from_secs(5)).await.as_deref(), Some(changed.as_str()));
    }
    // A page that lost its stream and connects again learns at once where things stand.
    drop(tournament);
    let mut back = Events::open(addr, &format!("/t/{token}/events")).await;
    assert_eq!(back.next(Duration::from_secs(2)).await.as_deref(), Some(changed.as_str()));
    // Nothing new: no event.
    assert_eq!(back.next(Duration::from_millis(2_500)).await, None);

    stop.send(()).unwrap();
    timeout(Duration::from_secs(10), server).await.expect("the server stops").unwrap().unwrap();
    // Every stream was ended by the server.
    assert_eq!(
        timeout(Duration::from_secs(2), back.line()).await.expect("ended").filter(|l| l.starts_with("data")),
        None
    );
    assert!(TcpStream::connect(addr).await.is_err(), "nothing listens any more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_past_the_bound_are_refused() {
    let club = Club::new();
    let t = club.tournament("swiss chess rounds 3 casual name Full", &[("a", "A"), ("b", "B")]);
    let token = club.publish(t);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = WebOptions { max_streams: 2, ..WebOptions::default() };
    let server = tokio::spawn(serve(club.service.clone(), listener, opts, std::future::pending()));
    let _one = Events::open(addr, &format!("/t/{token}/events")).await;
    let _two = Events::open(addr, &format!("/t/{token}/events")).await;
    let (status, _) = fetch(addr, &format!("/t/{token}/events")).await;
    assert_eq!(status, 503);
    // Pages are still served.
    assert_eq!(fetch(addr, &format!("/t/{token}")).await.0, 200);
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_when_its_address_is_withdrawn() {
    let club = Club::new();
    let t = club.tournament(
        "swiss chess rounds 3 casual name Withdrawn",
        &[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")],
    );
    let token = club.publish(t);
    let games = club.games(t);
    let (white, _) = club.players_of(games[1]);
    let shared = token_of(&club.say(&white, &format!("!t share #{}", games[1])), "/g/");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server =
        tokio::spawn(serve(club.service.clone(), listener, WebOptions::default(), std::future::pending()));

    let mut tournament = Events::open(addr, &format!("/t/{token}/events")).await;
    let mut its_game = Events::open(addr, &format!("/t/{token}/g/{}/events", games[0])).await;
    let mut game = Events::open(addr, &format!("/g/{shared}/events")).await;
    for events in [&mut tournament, &mut its_game, &mut game] {
        assert!(events.next(Duration::from_secs(5)).await.is_some(), "the first event");
    }
    // Still shown: the streams stay open.
    assert!(!tournament.ends(Duration::from_millis(1_500)).await);

    let gone = club.say(&white, &format!("!t unshare #{}", games[1]));
    assert!(gone.contains("no web page any more"), "{gone}");
    let started = std::time::Instant::now();
    assert!(game.ends(Duration::from_secs(3)).await, "the shared game's stream ends");
    println!("ended {:.1} s after the game was unshared", started.elapsed().as_secs_f64());
    assert_eq!(fetch(addr, &format!("/g/{shared}/events")).await.0, 404, "and is not opened again");

    club.say("org", &format!("!t tournament unpublish t{t}"));
    assert!(tournament.ends(Duration::from_secs(3)).await, "the tournament's stream ends");
    assert!(its_game.ends(Duration::from_secs(3)).await, "so does its game's");
    assert_eq!(fetch(addr, &format!("/t/{token}/events")).await.0, 404);
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_take_every_stream() {
    let club = Club::new();
    let t = club.tournament("swiss chess rounds 3 casual name Greedy", &[("a", "A"), ("b", "B")]);
    let token = club.publish(t);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // Behind a proxy on this host: each forwarded address is a client.
    let opts = WebOptions { behind_proxy: true, max_streams_per_client: 2, ..WebOptions::default() };
    let server = tokio::spawn(serve(club.service.clone(), listener, opts, std::future::pending()));
    let path = format!("/t/{token}/events");
    let from = |ip: &str| format!("X-Forwarded-For: {ip}\r\n");
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut events = Events::ask(addr, &path, &from("192.0.2.1")).await;
        assert!(events.line().await.unwrap().starts_with("HTTP/1.1 200"));
        assert!(events.next(Duration::from_secs(5)).await.is_some());
        open.push(events);
    }
    let mut third = Events::ask(addr, &path, &from("192.0.2.1")).await;
    assert!(third.line().await.unwrap().starts_with("HTTP/1.1 429"), "a third from one client");
    let mut other = Events::ask(addr, &path, &from("192.0.2.2")).await;
    assert!(other.line().await.unwrap().starts_with("HTTP/1.1 200"), "another client");
    // A stream that ends gives its place back.
    club.say("org", &format!("!t tournament unpublish t{t}"));
    for events in &mut open {
        assert!(events.ends(Duration::from_secs(3)).await);
    }
    let token = club.publish(t);
    let mut again = Events::ask(addr, &format!("/t/{token}/events"), &from("192.0.2.1")).await;
    assert!(again.line().await.unwrap().starts_with("HTTP/1.1 200"), "a place was given back");
    server.abort();
}
