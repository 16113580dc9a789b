//! A spectator in a real browser: headless Chromium, driven through its WebDriver
//! (`chromedriver`), follows a published tournament. The standings show the players and their
//! points; a game page steps back and forth with the arrow keys, showing the right picture and
//! marking the right move; a result set in chat appears on the open page without a reload.
//! Screenshots of both pages are kept under `target/web-screenshots/`.
//!
//! Without Chromium the test says "skipped: no chromium" and passes, unless
//! `TESSERA_REQUIRE_BROWSER=1` (as CI sets), where it fails.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use support::*;
use tessera_web::{WebOptions, serve};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The driver's process, ended with the test however it ends.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts chromedriver on a free port and opens a headless Chromium session through it.
async fn browser() -> (Driver, Client) {
    let port = free_port();
    let driver = Driver(
        Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1100,1400", "--lang=en-GB"],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a Chromium session");
    (driver, client)
}

/// Where screenshots go: `target/web-screenshots/` of the build's target directory.
fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("web-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let path = screenshot_dir().join(name);
    std::fs::write(&path, png).unwrap();
    println!("screenshot: {}", path.display());
}

/// Waits up to `limit` for `check` to hold, reading the page each tenth of a second.
async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while !check().await {
        assert!(Instant::now() < deadline, "not within {limit:?}: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn js(client: &Client, script: &str) -> serde_json::Value {
    client.execute(script, vec![]).await.unwrap()
}

/// The `ETag` of `path` on `site` (`http://host:port`), asked over HTTP.
fn etag_over_http(site: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(site.trim_start_matches("http://")).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let head = String::from_utf8_lossy(&answer[..answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap()])
        .to_string();
    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
    head.lines()
        .find_map(|l| l.strip_prefix("etag: ").or_else(|| l.strip_prefix("ETag: ")))
        .unwrap_or_else(|| panic!("{path}: no etag in {head}"))
        .to_string()
}

/// The `ETag` of the picture the page shows, once it is loaded: the very response the browser
/// drew it from, out of its own cache (the pictures are cacheable), not fetched anew.
async fn etag_shown(client: &Client) -> String {
    eventually(Duration::from_secs(5), "the picture loaded", || async {
        js(client, "const b = document.getElementById('board'); return b.complete && b.naturalWidth > 0")
            .await
            == json!(true)
    })
    .await;
    let got = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const b = document.getElementById('board');
             fetch(b.currentSrc, { cache: 'only-if-cached', mode: 'same-origin' })
               .then(r => done(r.status + ' ' + (r.headers.get('etag') || '')))
               .catch(e => done('failed ' + e));",
            vec![],
        )
        .await
        .unwrap();
    let got = got.as_str().unwrap().to_string();
    got.strip_prefix("200 ")
        .unwrap_or_else(|| panic!("the shown picture is not in the cache: {got}"))
        .to_string()
}

/// The ply the game page shows: from the picture's address, the marked move, and the address bar.
async fn shown(client: &Client) -> (String, Option<String>, String) {
    let src = client.find(Locator::Id("board")).await.unwrap().attr("src").await.unwrap().unwrap();
    let src = src.rsplit('/').next().unwrap().to_string();
    let marked = match client.find(Locator::Css("a.move.current")).await {
        Ok(a) => a.attr("data-ply").await.unwrap(),
        Err(_) => None,
    };
    let url = client.current_url().await.unwrap();
    (src, marked, url.query().unwrap_or("").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_follows_a_tournament_in_chromium() {
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        assert!(
            std::env::var("TESSERA_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "TESSERA_REQUIRE_BROWSER=1 but {CHROMIUM} or {CHROMEDRIVER} is missing"
        );
        println!("skipped: no chromium");
        return;
    }
    let club = Club::new();
    let players = [("ann", "Ann Alder"), ("ben", "Ben Birch"), ("cat", "Cat Cedar"), ("dan", "Dan Dogwood")];
    let t = club.tournament("swiss chess rounds 3 3d casual name Autumn Swiss", &players);
    let token = club.publish(t);
    let games = club.games(t);
    club.play(games[0], &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    let decided = club.say("org", &format!("!t tournament result #{} 1-0", games[1]));
    assert!(decided.contains("1-0"), "{decided}");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(club.service.clone(), listener, WebOptions::default(), async {
        let _ = stopped.await;
    }));
    let (_driver, client) = browser().await;

    // The standings: every player, with points. (Round 1 asked for: its last result pairs round
    // 2, which the page would show by default.)
    client.goto(&format!("{site}/t/{token}?round=1")).await.unwrap();
    let rows = client.find_all(Locator::Css("table.standings tbody tr")).await.unwrap();
    assert_eq!(rows.len(), 4);
    let mut standings = Vec::new();
    for row in &rows {
        let cells = row.find_all(Locator::Css("td")).await.unwrap();
        standings.push((cells[2].text().await.unwrap(), cells[4].text().await.unwrap()));
    }
    let (white, black) = club.players_of(games[1]);
    let name_of = |id: &str| players.iter().find(|(p, _)| *p == id).unwrap().1.to_string();
    assert_eq!(standings[0], (name_of(&white), "1".to_string()), "{standings:?}");
    for (_, name) in &players {
        let points = if *name == name_of(&white) { "1" } else { "0" };
        assert!(
            standings.contains(&(name.to_string(), points.to_string())),
            "{name} {points}: {standings:?}"
        );
    }
    assert!(standings.iter().any(|s| s.0 == name_of(&black)));
    screenshot(&client, "tournament.png").await;

    // A result set in chat reaches the open page without a reload.
    js(&client, "window.notReloaded = true; return true").await;
    let pending = format!("a[href='/t/{token}/g/{}']", games[0]);
    assert_eq!(client.find(Locator::Css(&pending)).await.unwrap().text().await.unwrap(), "*");
    let set = club.say("org", &format!("!t tournament result #{} 0-1", games[0]));
    assert!(set.contains("0-1"), "{set}");
    let started = Instant::now();
    eventually(Duration::from_secs(10), "the result on the open page", || async {
        // The element found may be swapped out before its text is read: then ask again.
        match client.find(Locator::Css(&pending)).await {
            Ok(a) => matches!(a.text().await.as_deref(), Ok("0-1")),
            Err(_) => false,
        }
    })
    .await;
    println!("the result appeared after {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(
        js(&client, "return window.notReloaded === true").await,
        json!(true),
        "the page was not reloaded"
    );
    let rows = client.find_all(Locator::Css("table.standings tbody tr td.points")).await.unwrap();
    let mut points = Vec::new();
    for cell in rows {
        points.push(cell.text().await.unwrap());
    }
    assert_eq!(points.iter().filter(|p| *p == "1").count(), 2, "{points:?}");
    // The round's last result paired the next: the page offers it.
    eventually(Duration::from_secs(10), "round 2 offered", || async {
        client.find(Locator::Css(&format!("a[href='/t/{token}?round=2']"))).await.is_ok()
    })
    .await;
    screenshot(&client, "tournament-live.png").await;

    // The game page: at the last move; the arrow keys step back and forth.
    client.goto(&format!("{site}/t/{token}/g/{}", games[0])).await.unwrap();
    assert_eq!(shown(&client).await, ("5.png".into(), Some("5".into()), String::new()));
    let body = client.find(Locator::Css("body")).await.unwrap();
    body.send_keys(&Key::Left).await.unwrap();
    assert_eq!(shown(&client).await, ("4.png".into(), Some("4".into()), "ply=4".into()));
    body.send_keys(&Key::Left).await.unwrap();
    body.send_keys(&Key::Left).await.unwrap();
    assert_eq!(shown(&client).await, ("2.png".into(), Some("2".into()), "ply=2".into()));
    let marked = client.find(Locator::Css("a.move.current")).await.unwrap().text().await.unwrap();
    assert_eq!(marked, "e5");
    // The position shown is the one drawn for ply 2, not only a picture so named.
    let game_base = format!("/t/{token}/g/{}", games[0]);
    let etag = |ply: usize| etag_over_http(&site, &format!("{game_base}/ply/{ply}.png"));
    assert_eq!(etag_shown(&client).await, etag(2), "ply 2 shown");
    body.send_keys(&Key::Right).await.unwrap();
    assert_eq!(shown(&client).await, ("3.png".into(), Some("3".into()), "ply=3".into()));
    assert_eq!(etag_shown(&client).await, etag(3), "ply 3 shown");
    assert_ne!(etag(2), etag(3), "plies differ");
    assert_eq!(client.find(Locator::Id("caption")).await.unwrap().text().await.unwrap(), "2. Nf3");
    body.send_keys(&Key::Home).await.unwrap();
    assert_eq!(shown(&client).await, ("0.png".into(), None, "ply=0".into()));
    assert_eq!(etag_shown(&client).await, etag(0), "the start shown");
    // The start of another game is the same picture (pictures are by content).
    assert_eq!(etag(0), etag_over_http(&site, &format!("/t/{token}/g/{}/ply/0.png", games[1])));
    body.send_keys(&Key::Left).await.unwrap();
    assert_eq!(shown(&client).await.0, "0.png", "nothing before the start");
    body.send_keys(&Key::End).await.unwrap();
    body.send_keys(&Key::Left).await.unwrap();
    body.send_keys(&Key::Left).await.unwrap();
    assert_eq!(shown(&client).await, ("3.png".into(), Some("3".into()), "ply=3".into()));
    // The picture the page shows is the one drawn for that ply.
    eventually(Duration::from_secs(5), "the picture loaded", || async {
        js(&client, "const b = document.getElementById('board'); return b.complete && b.naturalWidth > 0")
            .await
            == json!(true)
    })
    .await;
    let width = js(&client, "return document.getElementById('board').naturalWidth").await;
    assert!(width.as_u64().unwrap() >= 256, "{width}");
    // A click on a move shows it too.
    client.find(Locator::Css("a.move[data-ply='1']")).await.unwrap().click().await.unwrap();
    assert_eq!(shown(&client).await, ("1.png".into(), Some("1".into()), "ply=1".into()));
    // Reloaded, the address keeps the ply.
    client.refresh().await.unwrap();
    assert_eq!(shown(&client).await, ("1.png".into(), Some("1".into()), "ply=1".into()));
    screenshot(&client, "game.png").await;

    // On a phone's width both pages fit: nothing wider than the screen but the tables' own scroll.
    client.set_window_size(390, 844).await.unwrap();
    for (page, name) in [
        (format!("/t/{token}"), "tournament-phone.png"),
        (format!("/t/{token}/g/{}", games[0]), "game-phone.png"),
    ] {
        client.goto(&format!("{site}{page}")).await.unwrap();
        let fits = js(&client, "return document.documentElement.scrollWidth <= window.innerWidth").await;
        assert_eq!(fits, json!(true), "{page} is wider than a phone");
        screenshot(&client, name).await;
    }

    client.close().await.unwrap();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), server).await.unwrap().unwrap().unwrap();
}
