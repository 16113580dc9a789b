//! The handlers: each finds what its address shows (an unknown, withdrawn or wrong address is the
//! one 404 page), reads the data through the page cache, and answers.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, LazyLock};

use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::Markup;
use tessera_core::model::{GameId, TournamentId};
use tessera_core::names;
use tessera_core::public::{PublicGame, PublicTournament, Publication};
use tessera_core::tournament::points_text;

use crate::data::{App, Failure, blocking};
use crate::downloads::Download;
use crate::events::{self, Watched};
use crate::guard::Client;
use crate::html::{self, Query};
use crate::images;

const CSS: &str = include_str!("../static/tessera.css");
const JS: &str = include_str!("../static/tessera.js");

/// Why a request gets no page.
pub enum Refusal {
    NotFound,
    Failed(Failure),
}

impl From<Failure> for Refusal {
    fn from(f: Failure) -> Self {
        Refusal::Failed(f)
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::NotFound => not_found_response(),
            Refusal::Failed(f) => f.into_response(),
        }
    }
}

type Answer = Result<Response, Refusal>;

fn not_found_response() -> Response {
    static BODY: LazyLock<String> = LazyLock::new(|| html::not_found().into_string());
    (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], BODY.as_str())
        .into_response()
}

pub async fn not_found() -> Response {
    not_found_response()
}

pub async fn healthz() -> &'static str {
    "ok\n"
}

fn version(content: &str) -> String {
    let mut h = DefaultHasher::new();
    content.hash(&mut h);
    format!("{:08x}", h.finish() as u32)
}

/// A static file's address, with its content's hash so a new build is fetched anew.
pub fn asset_path(file: &str) -> String {
    static CSS_V: LazyLock<String> = LazyLock::new(|| version(CSS));
    static JS_V: LazyLock<String> = LazyLock::new(|| version(JS));
    let v = if file.ends_with(".css") { &*CSS_V } else { &*JS_V };
    format!("/static/{file}?v={v}")
}

pub async fn asset(Path(file): Path<String>) -> Response {
    let (kind, body) = match file.as_str() {
        "tessera.css" => ("text/css; charset=utf-8", CSS),
        "tessera.js" => ("text/javascript; charset=utf-8", JS),
        _ => return not_found_response(),
    };
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

fn page(markup: Markup) -> Response {
    // Pages change as games go on: the browser asks again each time (the data is cached here).
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")],
        markup.into_string(),
    )
        .into_response()
}

fn download(kind: &'static str, file: String, body: impl Into<axum::body::Body>) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{file}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(kind)), (header::CONTENT_DISPOSITION, disposition)],
        body.into(),
    )
        .into_response()
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

async fn tournament_of(app: &App, token: &str) -> Result<TournamentId, Refusal> {
    match app.address(token).await? {
        Some(Publication::Tournament(id)) => Ok(id),
        _ => Err(Refusal::NotFound),
    }
}

async fn shared_game(app: &App, token: &str) -> Result<GameId, Refusal> {
    match app.address(token).await? {
        Some(Publication::Game(id)) => Ok(id),
        _ => Err(Refusal::NotFound),
    }
}

/// A game of the published tournament at `token`: only its own games are reached this way. Its
/// number is checked first by one indexed look (not a build of the tournament, which a cold page
/// of thousands of players would wait for), so any number costs the same and a foreign game
/// costs nothing more.
async fn tournament_game(app: &App, token: &str, game: &str) -> Result<Arc<PublicGame>, Refusal> {
    let id = tournament_of(app, token).await?;
    let game: GameId = number(game).ok_or(Refusal::NotFound)?;
    if blocking(app.store_read(move |pages| pages.game_tournament(game))).await? != Some(id) {
        return Err(Refusal::NotFound);
    }
    let g = game_data(app, game).await?;
    // The game's own word too: the tournament's data may be a few seconds old.
    match &g.tournament {
        Some((t, _, _)) if *t == id => Ok(g),
        _ => Err(Refusal::NotFound),
    }
}

/// A plain decimal number of at most nine digits.
fn number<T: std::str::FromStr>(text: &str) -> Option<T> {
    (!text.is_empty() && text.len() <= 9 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())?
}

async fn game_data(app: &App, id: GameId) -> Result<Arc<PublicGame>, Refusal> {
    app.game(id).await?.ok_or(Refusal::NotFound)
}

pub async fn tournament_page(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    RawQuery(query): RawQuery,
) -> Answer {
    let id = tournament_of(&app, &token).await?;
    let t = app.tournament(id).await?;
    Ok(page(html::tournament(&t, &format!("/t/{token}"), Query::parse(query.as_deref()))))
}

pub async fn tournament_trf(State(app): State<Arc<App>>, Path(token): Path<String>) -> Answer {
    let id = tournament_of(&app, &token).await?;
    let version = app.tournament(id).await?.fingerprint;
    let trf =
        app.downloads.get(id, Download::Trf, version, app.store_read(move |pages| pages.trf(id))).await?;
    Ok(download("text/plain; charset=utf-8", format!("tessera-t{id}.trf"), trf))
}

pub async fn tournament_pgn(State(app): State<Arc<App>>, Path(token): Path<String>) -> Answer {
    let id = tournament_of(&app, &token).await?;
    let version = app.tournament(id).await?.fingerprint;
    let read = app.store_read(move |pages| pages.tournament_pgn(id));
    let pgn = app.downloads.get(id, Download::Pgn, version, read).await?;
    Ok(download("application/x-chess-pgn; charset=utf-8", format!("tessera-t{id}.pgn"), pgn))
}

pub async fn tournament_json(State(app): State<Arc<App>>, Path(token): Path<String>) -> Answer {
    let id = tournament_of(&app, &token).await?;
    let t = app.tournament(id).await?;
    let base = format!("/t/{token}");
    // The links name the address: a tournament published again has other links.
    let mut h = DefaultHasher::new();
    (t.fingerprint, &base).hash(&mut h);
    // Thousands of lines are some milliseconds of work: built on a blocking thread, once a change.
    let build = move || Ok(tournament_json_text(&t, &base));
    let body = app.downloads.get(id, Download::Json, h.finish(), build).await?;
    Ok(([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-cache")], body)
        .into_response())
}

fn tournament_json_text(t: &PublicTournament, base: &str) -> String {
    use serde_json::json;
    let shown = |name: &str| names::fit(name, 300);
    let names = t.names();
    let name_of = |p| names.get(&p).map_or_else(|| "?".to_string(), |n| shown(n));
    let row = &t.row;
    let value = json!({
        "name": shown(&row.name),
        "format": row.format.name(),
        "variant": t.variant_name,
        "status": row.status.name(),
        "rounds": row.rounds,
        "current_round": row.current_round,
        "days_per_move": row.days_per_move,
        "rated": row.rated,
        "next_round_at": t.next_round_at,
        "fingerprint": t.fingerprint.to_string(),
        "tie_breaks": t.standings.tie_breaks.iter().map(|tb| tb.short()).collect::<Vec<_>>(),
        "standings": t.standings.lines.iter().map(|l| json!({
            "rank": l.rank,
            "start_no": l.start_no,
            "name": shown(&l.name),
            "rating": l.rating,
            "points": points_text(l.halves),
            "tie_breaks": t.standings.tie_breaks.iter().zip(&l.tie_breaks).map(|(tb, v)| tb.value_text(*v)).collect::<Vec<_>>(),
            "withdrawn": l.withdrawn,
        })).collect::<Vec<_>>(),
        "pairings": t.pairings.iter().map(|p| json!({
            "round": p.round,
            "board": p.board,
            "leg": p.leg,
            "white": name_of(p.white),
            "black": p.black.map(name_of),
            "kind": p.kind.name(),
            "result": p.result,
            "game": p.game.map(|g| format!("{base}/g/{g}")),
        })).collect::<Vec<_>>(),
    });
    // `<`, `>` and `&` occur only inside strings: written as escapes, the file holds no markup
    // whatever a name says, should anything ever read it as HTML.
    value.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

pub async fn tournament_events(
    State(app): State<Arc<App>>,
    Extension(client): Extension<Client>,
    Path(token): Path<String>,
) -> Answer {
    let id = tournament_of(&app, &token).await?;
    Ok(events::stream(&app, client, token, Publication::Tournament(id), Watched::Tournament(id)))
}

pub async fn tournament_game_page(
    State(app): State<Arc<App>>,
    Path((token, game)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Answer {
    let g = tournament_game(&app, &token, &game).await?;
    let base = format!("/t/{token}/g/{}", g.id);
    let tournament = format!("/t/{token}");
    Ok(page(html::game(&g, &base, Some(&tournament), Query::parse(query.as_deref()).ply, now())))
}

pub async fn tournament_game_pgn(
    State(app): State<Arc<App>>,
    Path((token, game)): Path<(String, String)>,
) -> Answer {
    let g = tournament_game(&app, &token, &game).await?;
    Ok(download("application/x-chess-pgn; charset=utf-8", format!("tessera-{}.pgn", g.id), g.pgn.clone()))
}

pub async fn tournament_game_ply(
    State(app): State<Arc<App>>,
    Path((token, game, file)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Answer {
    let g = tournament_game(&app, &token, &game).await?;
    ply_png(&app, &g, &file, &headers).await
}

pub async fn tournament_game_events(
    State(app): State<Arc<App>>,
    Extension(client): Extension<Client>,
    Path((token, game)): Path<(String, String)>,
) -> Answer {
    let g = tournament_game(&app, &token, &game).await?;
    let id = tournament_of(&app, &token).await?;
    Ok(events::stream(&app, client, token, Publication::Tournament(id), Watched::Game(g.id)))
}

pub async fn game_page(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    RawQuery(query): RawQuery,
) -> Answer {
    let id = shared_game(&app, &token).await?;
    let g = game_data(&app, id).await?;
    Ok(page(html::game(&g, &format!("/g/{token}"), None, Query::parse(query.as_deref()).ply, now())))
}

pub async fn game_pgn(State(app): State<Arc<App>>, Path(token): Path<String>) -> Answer {
    let id = shared_game(&app, &token).await?;
    let g = game_data(&app, id).await?;
    Ok(download("application/x-chess-pgn; charset=utf-8", format!("tessera-{id}.pgn"), g.pgn.clone()))
}

pub async fn game_ply(
    State(app): State<Arc<App>>,
    Path((token, file)): Path<(String, String)>,
    headers: HeaderMap,
) -> Answer {
    let id = shared_game(&app, &token).await?;
    let g = game_data(&app, id).await?;
    ply_png(&app, &g, &file, &headers).await
}

pub async fn game_events(
    State(app): State<Arc<App>>,
    Extension(client): Extension<Client>,
    Path(token): Path<String>,
) -> Answer {
    let id = shared_game(&app, &token).await?;
    game_data(&app, id).await?;
    Ok(events::stream(&app, client, token, Publication::Game(id), Watched::Game(id)))
}

/// The game's evaluation graph, where an analysis is done.
fn analysis_png(g: &PublicGame) -> Answer {
    let png = g.analysis.as_ref().and_then(|a| a.picture.clone()).ok_or(Refusal::NotFound)?;
    let cache = [(header::CACHE_CONTROL, "public, max-age=60")];
    Ok((cache, [(header::CONTENT_TYPE, "image/png")], png).into_response())
}

pub async fn game_analysis(State(app): State<Arc<App>>, Path(token): Path<String>) -> Answer {
    let id = shared_game(&app, &token).await?;
    analysis_png(&*game_data(&app, id).await?)
}

pub async fn tournament_game_analysis(
    State(app): State<Arc<App>>,
    Path((token, game)): Path<(String, String)>,
) -> Answer {
    analysis_png(&*tournament_game(&app, &token, &game).await?)
}

/// The board after the ply `file` names (`12.png`), drawn once per content.
async fn ply_png(app: &App, g: &PublicGame, file: &str, headers: &HeaderMap) -> Answer {
    let ply: usize = file.strip_suffix(".png").and_then(number).ok_or(Refusal::NotFound)?;
    let view = g.view(ply).ok_or(Refusal::NotFound)?;
    let key = images::key(view, &app.render);
    let etag = format!("\"{key:016x}\"");
    let cache = [(header::ETAG, etag.clone()), (header::CACHE_CONTROL, "public, max-age=60".to_string())];
    let asked = headers.get_all(header::IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok());
    if asked.flat_map(|v| v.split(',')).any(|tag| {
        let tag = tag.trim();
        tag == "*" || tag.trim_start_matches("W/") == etag
    }) {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    let png = match app.images.get(key) {
        Some(png) => png,
        None => {
            let (view, opts) = (view.clone(), app.render.clone());
            let png: Arc<[u8]> = blocking(move || {
                tessera_render::render_png(&view, &opts).map_err(|e| format!("drawing a board: {e:?}"))
            })
            .await?
            .into();
            app.images.put(key, png.clone());
            png
        }
    };
    Ok((cache, [(header::CONTENT_TYPE, "image/png")], axum::body::Bytes::from_owner(png)).into_response())
}
