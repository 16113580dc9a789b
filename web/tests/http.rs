//! The web face over HTTP: a club plays through the service on an in-memory SQLite store, and
//! the router answers as a browser (or an attacker) asks.

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use std::net::SocketAddr;
use std::sync::Arc;
use support::*;

use axum::extract::ConnectInfo;
use tessera_web::{Rate, WebOptions, router, router_over};

const CSP: &str = "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; \
                   base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn four() -> Vec<(&'static str, &'static str)> {
    vec![("ann", "Ann"), ("ben", "Ben"), ("cat", "Cat"), ("dan", "Dan")]
}

/// A published Swiss of four with one game under way (1. e4 e5 2. Nf3): the club, tournament, token.
fn published_swiss() -> (Club, i64, String) {
    let club = Club::new();
    let t = club.tournament("swiss chess rounds 3 3d casual name Spring Swiss", &four());
    let token = club.publish(t);
    let game = club.games(t)[0];
    club.play(game, &["e4", "e5", "Nf3"]);
    (club, t, token)
}

fn assert_safe_headers(got: &Got, what: &str) {
    assert_eq!(got.header("content-security-policy"), Some(CSP), "{what}");
    assert_eq!(got.header("x-content-type-options"), Some("nosniff"), "{what}");
    assert_eq!(got.header("referrer-policy"), Some("no-referrer"), "{what}");
    assert!(got.header("set-cookie").is_none(), "{what}");
}

#[tokio::test]
async fn a_published_tournament_shows_standings_rounds_and_downloads() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let page = get(&web, &format!("/t/{token}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    let html = page.text();
    assert!(html.contains("<bdi>Spring Swiss</bdi>"), "{html}");
    assert!(html.contains("Swiss") && html.contains("Round 1 of 3"), "{html}");
    for name in ["Ann", "Ben", "Cat", "Dan"] {
        assert!(html.contains(&format!("<bdi>{name}</bdi>")), "{name} missing");
    }
    assert!(html.contains(r#"<table class="standings">"#));
    assert!(
        html.contains(
            r#"title="Buchholz Cut 1: the opponents' scores added up, less the lowest">BH-C1</th>"#
        ),
        "{html}"
    );
    // Each game of the round is linked.
    for game in club.games(t) {
        assert!(html.contains(&format!(r#"href="/t/{token}/g/{game}""#)), "game {game} not linked");
    }
    for download in ["trf", "pgn", "json"] {
        assert!(html.contains(&format!(r#"href="/t/{token}/{download}""#)));
    }
    // The page names its stream and what it shows, for the script.
    assert!(html.contains(&format!(r#"data-events="/t/{token}/events""#)));

    let trf = get(&web, &format!("/t/{token}/trf")).await;
    assert_eq!(trf.status, StatusCode::OK);
    assert_eq!(trf.header("content-type"), Some("text/plain; charset=utf-8"));
    assert!(trf.header("content-disposition").unwrap().starts_with("attachment; filename="));
    assert!(trf.text().contains("012 Spring Swiss"), "{}", trf.text());
    let pgn = get(&web, &format!("/t/{token}/pgn")).await;
    assert_eq!(pgn.status, StatusCode::OK);
    assert!(pgn.text().contains("1. e4 e5 2. Nf3"), "{}", pgn.text());
    assert_eq!(pgn.text().matches("[Event ").count(), 2, "both games of round 1");
    let json = get(&web, &format!("/t/{token}/json")).await;
    assert_eq!(json.header("content-type"), Some("application/json"));
    let value: serde_json::Value = serde_json::from_slice(&json.body).unwrap();
    assert_eq!(value["name"], "Spring Swiss");
    assert_eq!(value["standings"].as_array().unwrap().len(), 4);
    assert_eq!(value["pairings"].as_array().unwrap().len(), 2);
    assert!(value["pairings"][0]["game"].as_str().unwrap().starts_with(&format!("/t/{token}/g/")));
    // Nothing of the chat's places reaches the page.
    for page in [&html, &json.text()] {
        assert!(!page.contains("club"), "the channel is shown");
    }
}

#[tokio::test]
async fn a_result_shows_in_the_standings_and_changes_the_fingerprint() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let before: serde_json::Value =
        serde_json::from_slice(&get(&web, &format!("/t/{token}/json")).await.body).unwrap();
    let game = club.games(t)[1];
    let set = club.say("org", &format!("!t tournament result #{game} 1-0"));
    assert!(set.contains("1-0"), "{set}");
    // The page data is kept for a second, then served while it is built again: the change shows
    // within seconds.
    let started = std::time::Instant::now();
    let after = loop {
        let now: serde_json::Value =
            serde_json::from_slice(&get(&web, &format!("/t/{token}/json")).await.body).unwrap();
        if now["fingerprint"] != before["fingerprint"] {
            break now;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "the result never showed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(after["standings"][0]["points"], "1");
    let html = get(&web, &format!("/t/{token}")).await.text();
    assert!(html.contains(&format!(r#"<a href="/t/{token}/g/{game}" title="The game">1-0</a>"#)), "{html}");
}

#[tokio::test]
async fn a_game_page_links_every_ply_and_marks_the_one_shown() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let game = club.games(t)[0];
    let base = format!("/t/{token}/g/{game}");
    let html = get(&web, &base).await.text();
    // The last ply by default.
    assert!(html.contains(&format!(r#"src="{base}/ply/3.png""#)), "{html}");
    assert!(html.contains(&format!(r#"<a class="move current" href="{base}?ply=3" data-ply="3" aria-current="step" title="2. Nf3">Nf3</a>"#)), "{html}");
    for ply in 1..=3 {
        assert!(html.contains(&format!(r#"href="{base}?ply={ply}""#)));
    }
    assert!(html.contains(r#"<span class="num">1.</span>"#));
    assert!(html.contains("Black to move"), "{html}");
    assert!(html.contains("<span>3 days a move</span>"), "{html}");
    // Three days from the last move (the club plays at T0 and on, a minute a message).
    assert!(
        html.contains(r#"<span class="clock">"#) && html.contains(r#"(until <time datetime="2027-01-18T"#),
        "{html}"
    );
    assert!(html.contains(&format!(r#"href="/t/{token}?round=1""#)), "the tournament and round are linked");
    let first = get(&web, &format!("{base}?ply=1")).await.text();
    assert!(first.contains(&format!(r#"src="{base}/ply/1.png""#)));
    assert!(first.contains(r#"<a class="move current" href=""#));
    assert!(first.contains(r#"title="1. e4">e4</a>"#));
    assert!(first.contains(r#"<figcaption id="caption">1. e4</figcaption>"#), "{first}");
    let start = get(&web, &format!("{base}?ply=0")).await.text();
    assert!(start.contains(&format!(r#"src="{base}/ply/0.png""#)));
    assert!(!start.contains("move current"));
    let pgn = get(&web, &format!("{base}/pgn")).await;
    assert!(pgn.text().contains("1. e4 e5 2. Nf3"));
    assert!(pgn.header("content-disposition").is_some());
}

#[tokio::test]
async fn a_shared_game_has_a_page_of_its_own_until_unshared() {
    let (club, t, _) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let game = club.games(t)[0];
    let (white, _) = club.players_of(game);
    let shared = club.say(&white, &format!("!t share #{game}"));
    let token = token(&shared, "/g/");
    let page = get(&web, &format!("/g/{token}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains(&format!(r#"src="/g/{token}/ply/3.png""#)));
    assert!(page.text().contains(&format!(r#"data-events="/g/{token}/events""#)));
    let png = get(&web, &format!("/g/{token}/ply/2.png")).await;
    assert_eq!(png.status, StatusCode::OK);
    assert!(png.body.starts_with(b"\x89PNG\r\n\x1a\n"));

    let gone = club.say(&white, &format!("!t unshare #{game}"));
    assert!(gone.contains("no web page any more"), "{gone}");
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let after = get(&web, &format!("/g/{token}")).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn pictures_are_cached_by_content_with_an_etag() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let [one, two] = club.games(t)[..] else { panic!() };
    let png = get(&web, &format!("/t/{token}/g/{one}/ply/1.png")).await;
    assert_eq!(png.status, StatusCode::OK);
    assert_eq!(png.header("content-type"), Some("image/png"));
    assert_eq!(png.header("cache-control"), Some("public, max-age=60"));
    let etag = png.header("etag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.len() == 18, "{etag}");
    let again = send(
        &web,
        Request::get(format!("/t/{token}/g/{one}/ply/1.png"))
            .header("if-none-match", &etag)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    assert_safe_headers(&again, "304");
    // The same position in another game is the same picture.
    let start_one = get(&web, &format!("/t/{token}/g/{one}/ply/0.png")).await;
    let start_two = get(&web, &format!("/t/{token}/g/{two}/ply/0.png")).await;
    assert_eq!(start_one.header("etag"), start_two.header("etag"));
    assert_eq!(start_one.body, start_two.body);
    assert_ne!(start_one.header("etag"), png.header("etag"));
    // Past the last ply, or not a ply at all: nothing.
    for bad in ["4.png", "x.png", "1.gif", "99999999999999999999.png", "-1.png"] {
        assert_eq!(
            get(&web, &format!("/t/{token}/g/{one}/ply/{bad}")).await.status,
            StatusCode::NOT_FOUND,
            "{bad}"
        );
    }
}

#[tokio::test]
async fn a_round_robin_has_a_crosstable_and_a_knockout_a_bracket() {
    let club = Club::new();
    let rr = club.tournament("round-robin chess casual name Robin", &four());
    let rr_token = club.publish(rr);
    let game = club.games(rr)[0];
    club.say("org", &format!("!t tournament result #{game} 0-1 t{rr}"));
    let ko = club.tournament("knockout chess casual name Cup", &four());
    let ko_token = club.publish(ko);
    let ko_game = club.games(ko)[0];
    club.say("org", &format!("!t tournament result #{ko_game} 1-0 t{ko}"));
    let web = router(club.service.clone(), WebOptions::default());

    let html = get(&web, &format!("/t/{rr_token}")).await.text();
    assert!(html.contains(r#"<table class="crosstable">"#), "{html}");
    assert_eq!(html.matches(r#"<td class="self">×</td>"#).count(), 4);
    assert!(html.contains(&format!(r#"<a href="/t/{rr_token}/g/{game}">1</a>"#)), "the winner's cell");
    assert!(html.contains(&format!(r#"<a href="/t/{rr_token}/g/{game}">0</a>"#)), "the loser's cell");

    let html = get(&web, &format!("/t/{ko_token}")).await.text();
    assert!(html.contains(r#"<div class="bracket">"#), "{html}");
    assert!(html.contains("<h3>Round 1</h3>"));
    assert_eq!(html.matches(r#"<div class="match">"#).count(), 2);
    assert!(html.contains(r#"<div class="side winner">"#), "the winner marked");
    assert!(html.contains(&format!(r#"<a href="/t/{ko_token}/g/{ko_game}" title="White: "#)), "{html}");
    // A game of one tournament is not reached through another's address.
    assert_eq!(get(&web, &format!("/t/{rr_token}/g/{ko_game}")).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn standings_of_many_players_are_paged() {
    let club = Club::new();
    let players: Vec<(String, String)> =
        (0..130).map(|i| (format!("p{i:03}"), format!("Player {i:03}"))).collect();
    let refs: Vec<(&str, &str)> = players.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let t = club.tournament("swiss chess rounds 5 casual name Big", &refs);
    let token = club.publish(t);
    let web = router(club.service.clone(), WebOptions::default());
    let first = get(&web, &format!("/t/{token}")).await.text();
    assert!(first.contains("Players 1–100 of 130"), "{first}");
    assert_eq!(
        first.matches(r#"<td class="player"><bdi>Player"#).count(),
        100 + 2 * 65,
        "100 lines and 65 boards"
    );
    assert!(first.contains(&format!(r#"<a rel="next" href="/t/{token}?page=2">"#)), "{first}");
    let second = get(&web, &format!("/t/{token}?page=2")).await.text();
    assert!(second.contains("Players 101–130 of 130"));
    // A page past the last shows the last; a number past any type's range too.
    for huge in ["3", "4294967296", "99999999999999999999999999"] {
        let page = get(&web, &format!("/t/{token}?page={huge}")).await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(page.text().contains("Players 101–130 of 130"), "page={huge}");
    }
    let rounds = get(&web, &format!("/t/{token}?round=99999999999&boards=99999999999")).await;
    assert_eq!(rounds.status, StatusCode::OK);
    assert!(rounds.text().contains("<h2>Round 1</h2>"));
}

#[tokio::test]
async fn hostile_names_are_escaped_isolated_and_cut() {
    let club = Club::new();
    // The core keeps 32 characters of a name typed in chat: the pages' own cutting is tested
    // by `names_past_any_length_the_core_keeps_are_cut_by_the_pages`.
    let long = "x".repeat(10_000);
    let players = [
        ("mallory", "<script>alert(1)</script>"),
        ("eve", "\u{202E}evil\u{202C} name"),
        ("long", long.as_str()),
        ("dan", "Dan"),
    ];
    // A message is at most 2,000 characters: the tournament's name is as long as one can be.
    let t = club.tournament(
        &format!("swiss chess rounds 3 casual name <img src=x onerror=alert(1)> {}", "x".repeat(1_900)),
        &players,
    );
    let token = club.publish(t);
    let game = club.games(t)[0];
    let web = router(club.service.clone(), WebOptions::default());
    let pages = [
        get(&web, &format!("/t/{token}")).await.text(),
        get(&web, &format!("/t/{token}/g/{game}")).await.text(),
        get(&web, &format!("/t/{token}/json")).await.text(),
    ];
    for page in &pages {
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("<img src=x"), "{page}");
        assert!(!page.contains('\u{202E}') && !page.contains('\u{202C}'), "a bidi control got through");
        assert!(!page.contains(&"x".repeat(100)), "a long name is cut");
        assert!(page.len() < 40_000, "{}", page.len());
    }
    let json: serde_json::Value = serde_json::from_str(&pages[2]).unwrap();
    assert_eq!(json["standings"][0]["name"], "<script>alert(1)</script>", "JSON keeps the name, escaped");
    let html = &pages[0];
    assert!(html.contains("<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>"), "{html}");
    assert!(html.contains("<bdi>evil name</bdi>"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    // The tournament's name is shown cut, whole in its title.
    let h1 = html.split("<h1>").nth(1).unwrap().split("</h1>").next().unwrap();
    assert!(h1.starts_with("<bdi title=\"&lt;img src=x onerror=alert(1)&gt; xxx"), "{h1}");
    assert!(h1.ends_with("…</bdi>"), "{h1}");
    // Every name the page shows sits in its own isolate.
    assert!(html.matches("<bdi").count() >= 4 + 4, "standings and pairings");
    // The page runs no script of its own and carries no style attribute.
    for page in &pages[..2] {
        assert_eq!(page.matches("<script").count(), 1, "only the script file");
        assert!(page.contains(r#"<script src="/static/tessera.js?v="#));
        assert!(!page.contains(" style=") && !page.contains("<style") && !page.contains(" onclick="));
    }
}

#[tokio::test]
async fn only_get_and_head_are_answered() {
    let (club, _, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH, Method::OPTIONS] {
        for path in [format!("/t/{token}"), "/nowhere".to_string(), "/healthz".to_string()] {
            let got = send(
                &web,
                Request::builder().method(method.clone()).uri(&path).body(Body::from("x=1")).unwrap(),
            )
            .await;
            assert_eq!(got.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
            assert_eq!(got.header("allow"), Some("GET, HEAD"));
            assert_safe_headers(&got, "405");
        }
    }
    let head = send(&web, Request::head(format!("/t/{token}")).body(Body::empty()).unwrap()).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
}

#[tokio::test]
async fn unknown_withdrawn_and_wrong_addresses_answer_the_same_404() {
    let (club, t, token) = published_swiss();
    let other = club.tournament("swiss chess rounds 3 casual name Other", &four());
    let other_game = club.games(other)[0];
    let web = router(club.service.clone(), WebOptions::default());
    let reference = get(&web, "/t/abcdefghijkmnpqrstuvwxyz23").await;
    assert_eq!(reference.status, StatusCode::NOT_FOUND);
    let game = club.games(t)[0];
    let mut asked = vec![
        "/".to_string(),
        "/nowhere".to_string(),
        "/t/".to_string(),
        "/t/%3Cscript%3E".to_string(),
        "/t/..%2f..%2fetc%2fpasswd".to_string(),
        "/static/../Cargo.toml".to_string(),
        "/static/other.js".to_string(),
        format!("/g/{token}"),
        format!("/t/{token}/g/{other_game}"),
        format!("/t/{token}/g/{other_game}/ply/0.png"),
        format!("/t/{token}/g/{other_game}/pgn"),
        format!("/t/{token}/g/abc"),
        format!("/t/{token}/g/{game}/ply/0.jpg"),
        format!("/t/{token}/nothing"),
        format!("/t/{}", token.to_uppercase()),
    ];
    club.say("org", &format!("!t tournament unpublish t{t}"));
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    asked.extend([
        format!("/t/{token}"),
        format!("/t/{token}/trf"),
        format!("/t/{token}/g/{game}"),
        format!("/t/{token}/events"),
    ]);
    for path in asked {
        let got = get(&web, &path).await;
        assert_eq!(got.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(got.body, reference.body, "{path}");
        assert_safe_headers(&got, &path);
    }
    // Published again: a new address, the old one still unknown.
    let again = club.publish(t);
    assert_ne!(again, token);
    assert_eq!(get(&web, &format!("/t/{again}")).await.status, StatusCode::OK);
}

#[tokio::test]
async fn long_addresses_and_huge_numbers_are_bounded() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let long = get(&web, &format!("/t/{}", "a".repeat(5_000))).await;
    assert_eq!(long.status, StatusCode::URI_TOO_LONG);
    assert_safe_headers(&long, "414");
    let query = get(&web, &format!("/t/{token}?{}", "page=1&".repeat(1_000))).await;
    assert_eq!(query.status, StatusCode::URI_TOO_LONG);
    let game = club.games(t)[0];
    let last = get(&web, &format!("/t/{token}/g/{game}?ply=99999999999999999999999")).await;
    assert_eq!(last.status, StatusCode::OK);
    assert!(last.text().contains(&format!(r#"src="/t/{token}/g/{game}/ply/3.png""#)));
    let game_number = get(&web, &format!("/t/{token}/g/99999999999999999999999")).await;
    assert_eq!(game_number.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn too_many_requests_from_one_address_get_429() {
    let (club, _, token) = published_swiss();
    let opts = WebOptions { rate: Rate { burst: 3, per_second: 0.5 }, ..WebOptions::default() };
    let web = router(club.service.clone(), opts);
    for _ in 0..3 {
        assert_eq!(get(&web, &format!("/t/{token}")).await.status, StatusCode::OK);
    }
    let refused = get(&web, &format!("/t/{token}")).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.header("retry-after"), Some("2"));
    assert_safe_headers(&refused, "429");
    // Health checks are not counted.
    assert_eq!(get(&web, "/healthz").await.status, StatusCode::OK);
    // Behind a proxy each forwarded client has its own bucket.
    let proxied = router(
        club.service.clone(),
        WebOptions {
            behind_proxy: true,
            ..WebOptions { rate: Rate { burst: 1, per_second: 0.01 }, ..WebOptions::default() }
        },
    );
    // The proxy connects from this host; a client reaching the port directly, from elsewhere.
    let via = |peer: &str, ip: &str| {
        let peer: SocketAddr = format!("{peer}:40000").parse().unwrap();
        let mut request = Request::get(format!("/t/{token}"))
            .header("x-forwarded-for", format!("10.9.9.9, {ip}"))
            .body(Body::empty())
            .unwrap();
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    };
    assert_eq!(send(&proxied, via("127.0.0.1", "192.0.2.1")).await.status, StatusCode::OK);
    assert_eq!(send(&proxied, via("127.0.0.1", "192.0.2.1")).await.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(send(&proxied, via("127.0.0.1", "192.0.2.2")).await.status, StatusCode::OK);
    // Direct: the header names a new address each time, in vain.
    assert_eq!(send(&proxied, via("203.0.113.7", "192.0.2.3")).await.status, StatusCode::OK);
    assert_eq!(send(&proxied, via("203.0.113.7", "192.0.2.4")).await.status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn every_kind_of_response_carries_the_policy_and_no_cookie() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let game = club.games(t)[0];
    for path in [
        format!("/t/{token}"),
        format!("/t/{token}/trf"),
        format!("/t/{token}/pgn"),
        format!("/t/{token}/json"),
        format!("/t/{token}/g/{game}"),
        format!("/t/{token}/g/{game}/pgn"),
        format!("/t/{token}/g/{game}/ply/0.png"),
        "/static/tessera.css".to_string(),
        "/static/tessera.js".to_string(),
        "/healthz".to_string(),
        "/nowhere".to_string(),
    ] {
        let got = get(&web, &path).await;
        assert!(got.status == StatusCode::OK || path == "/nowhere", "{path}: {}", got.status);
        assert_safe_headers(&got, &path);
    }
    // The stream too (its headers come before any event).
    let stream = web.clone().oneshot_stream(&format!("/t/{token}/events")).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    assert_eq!(stream.headers()["content-security-policy"], CSP);
    assert!(stream.headers().get("set-cookie").is_none());
}

trait Stream {
    async fn oneshot_stream(self, path: &str) -> axum::http::Response<Body>;
}

impl Stream for axum::Router {
    async fn oneshot_stream(self, path: &str) -> axum::http::Response<Body> {
        use tower::ServiceExt;
        self.oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap()
    }
}

#[tokio::test]
async fn a_tournament_taking_entries_has_a_page_too() {
    let club = Club::new();
    let created = club.say("org", "!t tournament create swiss chess rounds 3 casual name Open Door");
    let t: i64 = created
        .split("Tournament t")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    club.say_named("ann", "Ann", &format!("!t tournament join t{t}"));
    let token = club.publish(t);
    let web = router(club.service.clone(), WebOptions::default());
    let page = get(&web, &format!("/t/{token}")).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = page.text();
    assert!(html.contains("Taking entries") && html.contains("<bdi>Ann</bdi>"), "{html}");
    assert!(!html.contains("id=\"rounds\""), "no rounds yet");
    assert_eq!(get(&web, &format!("/t/{token}/pgn")).await.status, StatusCode::OK);
    assert_eq!(get(&web, &format!("/t/{token}/trf")).await.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_reads_are_bounded_however_many_ask() {
    let (club, _, token) = published_swiss();
    let spy = Arc::new(Spy { delay: Duration::from_millis(150), ..Spy::new(&club.service) });
    // Requests give up long before their reads are done: the reads still count.
    let opts = WebOptions { timeout: Duration::from_millis(100), ..WebOptions::default() };
    let web = router_over(spy.clone(), opts);
    let mut asks = Vec::new();
    for i in 0..24 {
        let web = web.clone();
        // Each a different address, so none shares another's read.
        let path = if i == 0 { format!("/t/{token}") } else { format!("/t/unknown{i}") };
        asks.push(tokio::spawn(async move { get(&web, &path).await.status }));
    }
    for ask in asks {
        let status = ask.await.unwrap();
        assert!(status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::NOT_FOUND, "{status}");
    }
    // Every read abandoned runs to its end.
    let started = std::time::Instant::now();
    while spy.calls("publication") < 24 || spy.running.load(std::sync::atomic::Ordering::SeqCst) > 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "the reads never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(spy.most_running(), 4, "at most four reads of the store at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_download_is_built_once_per_change() {
    let (club, t, token) = published_swiss();
    let spy = Arc::new(Spy { delay: Duration::from_millis(100), ..Spy::new(&club.service) });
    let web = router_over(spy.clone(), WebOptions::default());
    let mut asks = Vec::new();
    for i in 0..9 {
        let web = web.clone();
        let path = format!("/t/{token}/{}", ["pgn", "trf", "json"][i % 3]);
        asks.push(tokio::spawn(async move { get(&web, &path).await }));
    }
    for ask in asks {
        assert_eq!(ask.await.unwrap().status, StatusCode::OK);
    }
    assert_eq!((spy.calls("tournament_pgn"), spy.calls("trf")), (1, 1), "each built once");
    assert_eq!(spy.most_running(), 1, "a tournament's downloads are built one at a time");
    // A change of the tournament's data: built again, once.
    let game = club.games(t)[1];
    club.say("org", &format!("!t tournament result #{game} 0-1"));
    let started = std::time::Instant::now();
    loop {
        let pgn = get(&web, &format!("/t/{token}/pgn")).await.text();
        if pgn.matches("[Result \"0-1\"]").count() == 1 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "the result never reached the PGN");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(spy.calls("tournament_pgn"), 2);
    get(&web, &format!("/t/{token}/pgn")).await;
    assert_eq!(spy.calls("tournament_pgn"), 2);
}

#[tokio::test]
async fn a_foreign_game_number_under_a_tournament_builds_nothing() {
    let (club, t, token) = published_swiss();
    let other = club.tournament("swiss chess rounds 3 casual name Other", &four());
    let other_game = club.games(other)[0];
    let spy = Arc::new(Spy::new(&club.service));
    let web = router_over(spy.clone(), WebOptions::default());
    for path in [
        format!("/t/{token}/g/{other_game}"),
        format!("/t/{token}/g/{other_game}/ply/0.png"),
        format!("/t/{token}/g/{other_game}/pgn"),
        format!("/t/{token}/g/{other_game}/events"),
        format!("/t/{token}/g/999999999"),
    ] {
        assert_eq!(get(&web, &path).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(spy.calls("game"), 0, "no game was read");
    assert_eq!(spy.calls("tournament"), 0, "nor the tournament built: one indexed look a number");
    assert_eq!(spy.calls("game_tournament"), 5);
    let own = club.games(t)[0];
    assert_eq!(get(&web, &format!("/t/{token}/g/{own}")).await.status, StatusCode::OK);
    assert_eq!(spy.calls("game"), 1);
}

#[tokio::test]
async fn an_organisers_reason_is_isolated() {
    let (club, t, token) = published_swiss();
    let web = router(club.service.clone(), WebOptions::default());
    let game = club.games(t)[1];
    let set = club.say("org", &format!("!t tournament result #{game} 1-0 لم يحضر اللاعب"));
    assert!(set.contains("1-0"), "{set}");
    let html = get(&web, &format!("/t/{token}/g/{game}")).await.text();
    assert!(
        html.contains(
            r#"<span class="ending"><bdi>White wins, set by the organiser (لم يحضر اللاعب)</bdi></span>"#
        ),
        "{html}"
    );
}

#[tokio::test]
async fn names_past_any_length_the_core_keeps_are_cut_by_the_pages() {
    // The core keeps names short; the pages cut whatever they are given, here 10,000 characters.
    let (club, t, token) = published_swiss();
    let long = || format!("{}{}", "\u{202E}", "y".repeat(10_000));
    let spy = Spy {
        alter_tournament: Some(|t| {
            let long = format!("{}{}", "\u{202E}", "y".repeat(10_000));
            t.row.name = long.clone();
            for e in &mut t.snapshot.entries {
                e.name = long.clone();
            }
            for l in &mut t.standings.lines {
                l.name = long.clone();
            }
        }),
        alter_game: Some(|g| {
            let long = format!("{}{}", "\u{202E}", "y".repeat(10_000));
            g.white.name = long.clone();
            g.black.name = long.clone();
            if let Some((_, name, _)) = g.tournament.as_mut() {
                *name = long;
            }
        }),
        ..Spy::new(&club.service)
    };
    assert_eq!(long().chars().count(), 10_001);
    let web = router_over(Arc::new(spy), WebOptions::default());
    let game = club.games(t)[0];
    for path in [format!("/t/{token}"), format!("/t/{token}/g/{game}"), format!("/t/{token}/json")] {
        let page = get(&web, &path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        let text = page.text();
        assert!(!text.contains(&"y".repeat(301)), "{path}: a name is not cut");
        assert!(!text.contains('\u{202E}'), "{path}: a bidi control got through");
        assert!(text.len() < 40_000, "{path}: {}", text.len());
        if !path.ends_with("json") {
            assert!(
                text.contains(&format!("<bdi title=\"{}…\">{}…</bdi>", "y".repeat(299), "y".repeat(59))),
                "{path}"
            );
        }
    }
}

#[tokio::test]
async fn an_analysed_game_shows_its_graph_and_its_marked_turns() {
    let mut service = tessera_core::service::Service::new(tessera_store::SqliteStore::in_memory().unwrap());
    // A depth, not a time: the same judgement on any machine.
    service.analysis_limits.depth = Some(4);
    service.analysis_limits.movetime = None;
    let club = Club::over(service);
    let game = club.game_between("ann", "ben", &["e4", "e5", "Nf3", "Qg5", "a3"]);
    club.say("ben", &format!("!t resign #{game}"));
    let token = token(&club.say("ann", &format!("!t share #{game}")), "/g/");
    let web = router(club.service.clone(), WebOptions::default());
    let before = get(&web, &format!("/g/{token}")).await;
    assert!(!before.text().contains("analysis.png") && !before.text().contains("glyph"));
    assert_eq!(get(&web, &format!("/g/{token}/analysis.png")).await.status, StatusCode::NOT_FOUND);

    let queued = club.say("ann", &format!("!t analyse #{game}"));
    assert!(queued.contains("queued for analysis"), "{queued}");
    let job = club.service.practice_queue().try_pop_later().unwrap();
    club.service.practice_job(&job, T0, &mut || true);
    // Past the page cache's second.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let page = get(&web, &format!("/g/{token}")).await;
    let html = page.text();
    assert!(html.contains(&format!(r#"src="/g/{token}/analysis.png""#)), "{html}");
    // Both blunders marked in the move list, each with the engine's better turn below.
    assert_eq!(html.matches(r#"class="glyph blunder""#).count(), 2, "{html}");
    assert!(html.contains("Qg5<span class=\"glyph blunder\" title=\"blunder\">??</span>"), "{html}");
    assert!(html.contains("better Nxg5"), "{html}");
    assert!(!html.contains("<script>"), "no inline script needed");
    let png = get(&web, &format!("/g/{token}/analysis.png")).await;
    assert_eq!(png.status, StatusCode::OK);
    assert_eq!(png.header("content-type"), Some("image/png"));
    assert!(png.body.starts_with(b"\x89PNG\r\n\x1a\n"));
}
