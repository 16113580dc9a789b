//! The Matrix adapter: a thin layer between matrix-sdk and the game service. It logs in (or restores
//! its saved session), joins rooms it is invited to, hands every new text message to the service
//! and posts the replies, boards as `m.image`. At its first start it leaves the rooms' history
//! alone; after a restart it answers what was said while it was down (within [`CATCH_UP`]).
//! End-to-end encryption and its keys live in matrix-sdk's SQLite store, so encrypted rooms work
//! and survive restarts.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use matrix_sdk::attachment::{AttachmentConfig, AttachmentInfo, BaseImageInfo};
use matrix_sdk::authentication::matrix::MatrixSession;
use matrix_sdk::config::SyncSettings;
use matrix_sdk::event_handler::Ctx;
use matrix_sdk::ruma::events::room::member::StrippedRoomMemberEvent;
use matrix_sdk::ruma::events::room::message::{
    MessageFormat, MessageType, OriginalSyncRoomMessageEvent, RoomMessageEventContent,
};
use matrix_sdk::{Client, Room, RoomState};

use crate::config::MatrixConfig;
use tessera_core::secret::Secret;
use tessera_core::service::{Incoming, Reply, Service, User, unix_now};
use tessera_store::AnyStore;

pub const PLATFORM: &str = "matrix";

type Shared = Arc<Service<AnyStore>>;

/// Messages sent before this moment (milliseconds since the epoch) are history, not answered.
#[derive(Clone, Copy, Debug)]
struct AnswerFrom(u64);

/// How far back a restarted bot answers what was said while it was down.
pub const CATCH_UP: Duration = Duration::from_secs(24 * 3600);

/// Most messages per room the catch-up sync brings (the homeserver's default is 10): the bot's own
/// replies count too, so a room busy while the bot was down is still answered.
const CATCH_UP_EVENTS: u32 = 200;

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Users a message names by Matrix ID (`@alice:example.org`).
pub fn mentions(body: &str) -> Vec<User> {
    body.split_whitespace()
        .map(|w| w.trim_end_matches([',', '.', ';', '!', '?']))
        .filter(|w| w.starts_with('@') && w.contains(':') && tessera_core::commands::is_mention(w))
        .map(|w| User::new(w, w.trim_start_matches('@').split(':').next().unwrap_or(w)))
        .collect()
}

/// The message text with each mention pill written as the Matrix ID it links to. Clients such as
/// Element put only the display name in the plain body (`!t challenge Bob`) and the ID in the HTML
/// (`<a href="https://matrix.to/#/@bob:example.org">Bob</a>`); commands need the ID.
pub fn with_pills_resolved(body: &str, html: Option<&str>) -> String {
    use matrix_sdk::ruma::{MatrixToUri, matrix_uri::MatrixId};
    let Some(html) = html else { return body.to_string() };
    let mut out = body.to_string();
    let mut searched_from = 0;
    for link in html.split("<a ").skip(1) {
        let href = link.split_once("href=\"").and_then(|(_, r)| r.split_once('"')).map(|(h, _)| h);
        let text = link.split_once('>').and_then(|(_, t)| t.split_once("</a>")).map(|(t, _)| t);
        let (Some(href), Some(text)) = (href, text) else { continue };
        let Ok(uri) = MatrixToUri::parse(href) else { continue };
        let MatrixId::User(id) = uri.id() else { continue };
        let name = unescape_html(text);
        // Replace the pill's text where it stands in the body, left to right.
        if let Some(pos) =
            out[searched_from..].find(&name).map(|p| p + searched_from).filter(|_| !name.is_empty())
        {
            out.replace_range(pos..pos + name.len(), id.as_str());
            searched_from = pos + id.as_str().len();
        }
    }
    out
}

/// `@tessera:example.org: challenge @bob:example.org` (a mention pill of the bot first, as Element
/// writes it) reads as `!t challenge @bob:example.org`.
pub fn addressed_by_mention(text: &str, bot: &str) -> String {
    if bot.is_empty() {
        return text.to_string();
    }
    let trimmed = text.trim_start();
    match trimmed.strip_prefix(bot) {
        Some(rest) if rest.is_empty() || rest.starts_with([':', ',', ' ']) => {
            format!("!t {}", rest.trim_start_matches([':', ',']).trim_start())
        }
        _ => text.to_string(),
    }
}

fn unescape_html(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Logs in, or restores the saved session. With `position` (ours, see [`run`]), matrix-sdk's
/// own saved position is set back to it first: the session loads it, and a sync answered from
/// there would otherwise be taken for one already seen and dropped.
async fn login(cfg: &MatrixConfig, position: Option<&str>) -> Result<Client> {
    // The session and the end-to-end keys: readable by the bot's user alone.
    tessera_store::private_files::private_dir(&cfg.store_dir)?;
    let client = Client::builder()
        .homeserver_url(&cfg.homeserver)
        .sqlite_store(&cfg.store_dir, cfg.store_passphrase.as_ref().map(Secret::expose))
        .build()
        .await
        .context("connecting to the Matrix homeserver")?;
    if let Some(position) = position {
        use matrix_sdk::store::{StateStoreDataKey, StateStoreDataValue};
        client
            .state_store()
            .set_kv_data(StateStoreDataKey::SyncToken, StateStoreDataValue::SyncToken(position.to_string()))
            .await
            .context("setting the sync position back")?;
    }
    let session_file = cfg.store_dir.join("session.json");
    if let Ok(saved) = std::fs::read_to_string(&session_file) {
        let session: MatrixSession =
            serde_json::from_str(&saved).context("reading the saved Matrix session")?;
        client
            .matrix_auth()
            .restore_session(session, matrix_sdk::store::RoomLoadSettings::default())
            .await
            .context("restoring the Matrix session")?;
    } else {
        client
            .matrix_auth()
            .login_username(&cfg.user, cfg.password.expose())
            .initial_device_display_name("Tessera")
            .await
            .context("logging in to Matrix (check matrix_user and matrix_password)")?;
        if let Some(session) = client.matrix_auth().session() {
            tessera_store::private_files::write_private(
                &session_file,
                serde_json::to_string(&session)?.as_bytes(),
            )
            .with_context(|| format!("saving the session to {}", session_file.display()))?;
        }
    }
    Ok(client)
}

/// The lease that keeps a Matrix account to one process ([`crate::lease::Standing`]): its sync
/// position and end-to-end keys belong to one device, which two processes would fork. Named by
/// the full user id: a bare localpart is completed with the homeserver's host.
pub fn account_lease(cfg: &MatrixConfig) -> String {
    // Matrix ids are case-insensitive in practice (servers lowercase localparts).
    let user = cfg.user.trim().to_lowercase();
    if user.starts_with('@') && user.contains(':') {
        return format!("matrix:{user}");
    }
    let host = cfg.homeserver.split_once("://").map_or(cfg.homeserver.as_str(), |(_, rest)| rest);
    let host = host.split(['/', ':']).next().unwrap_or_default();
    format!("matrix:@{}:{}", user.trim_start_matches('@'), host.to_lowercase())
}

/// Runs the bot on Matrix until the process ends.
/// The process's clock hands it this platform's notices through `notices`.
pub async fn run(service: Shared, cfg: MatrixConfig, notices: crate::router::Inbox) -> Result<()> {
    // Our own position: the sync whose messages were all answered. matrix-sdk saves its own
    // position when a sync arrives, before the handlers answer it, so a process killed in between
    // would never see those messages again; from ours, they come back and are answered (a message
    // answered already is recognised by its event id and skipped).
    let account = account_lease(&cfg);
    let ours = {
        let (service, account) = (Arc::clone(&service), account.clone());
        tokio::task::spawn_blocking(move || {
            service.store().channel_setting(PLATFORM, &account, SYNC_POSITION)
        })
        .await
        .context("reading the sync position")??
    };
    let client = login(&cfg, ours.as_deref()).await?;
    // With a position this is a restart: what arrived while the bot was down (within a day) is
    // answered, oldest first, each in its room. Without one, the room histories the first sync
    // brings are not the bot's business.
    let resumed = ours.is_some() || {
        use matrix_sdk::store::{StateStoreDataKey, StateStoreDataValue};
        let saved = client.state_store().get_kv_data(StateStoreDataKey::SyncToken).await;
        matches!(saved, Ok(Some(StateStoreDataValue::SyncToken(_))))
    };
    let answer_from = if resumed { now_ms().saturating_sub(CATCH_UP.as_millis() as u64) } else { now_ms() };
    tracing::info!(position = ?ours, resumed, "catching up");
    let mut catch_up = SyncSettings::default();
    if let Some(position) = ours {
        catch_up = catch_up.token(position);
    } else if !resumed {
        let first = client.sync_once(catch_up).await.context("first sync with the homeserver")?;
        catch_up = SyncSettings::default().token(first.next_batch);
    }
    client.add_event_handler_context(service.clone());
    client.add_event_handler_context(AnswerFrom(answer_from));
    client.add_event_handler(on_invite);
    client.add_event_handler(on_message);
    // Handlers run in order within a sync, so the missed messages are answered as they were sent.
    let caught_up = client
        .sync_once(catch_up.filter(catch_up_filter()))
        .await
        .context("catching up with the homeserver")?;
    save_position(&service, &account, caught_up.next_batch.clone()).await;
    if let Some(me) = client.user_id() {
        service.set_bot_account(PLATFORM, me.as_str());
    }
    tokio::spawn(deliver(service.clone(), client.clone(), notices));
    tracing::info!(
        user = %client.user_id().map_or("?".into(), |u| u.to_string()),
        resumed,
        "Tessera is on Matrix"
    );
    // Each sync's handlers have all run when its callback comes: its messages are answered.
    client
        .sync_with_callback(SyncSettings::default().token(caught_up.next_batch), |response| {
            let (service, account) = (Arc::clone(&service), account.clone());
            async move {
                save_position(&service, &account, response.next_batch).await;
                matrix_sdk::LoopCtrl::Continue
            }
        })
        .await
        .context("syncing with the homeserver")?;
    Ok(())
}

/// The channel setting (platform `matrix`, the account's lease name as the channel) that keeps the
/// position of the last sync whose messages were all answered.
const SYNC_POSITION: &str = "sync-position";

async fn save_position(service: &Shared, account: &str, position: String) {
    let (service, account) = (Arc::clone(service), account.to_string());
    let saved = tokio::task::spawn_blocking(move || {
        service.store().set_channel_setting(PLATFORM, &account, SYNC_POSITION, &position)
    })
    .await;
    if !matches!(saved, Ok(Ok(()))) {
        tracing::error!("could not save the sync position: the next start answers a little more again");
    }
}

/// Fault injection for the end-to-end test of the catch-up window: with
/// `TESSERA_FAULT=matrix-before-answer` the process ends the moment it is about to answer a
/// message, after the sync that brought the message was saved by matrix-sdk.
fn fault(point: &str) {
    if std::env::var("TESSERA_FAULT").is_ok_and(|f| f == point) {
        tracing::warn!(point, "ending the process here, as TESSERA_FAULT asks");
        std::process::exit(86);
    }
}

/// A sync filter that brings up to [`CATCH_UP_EVENTS`] timeline events per room.
fn catch_up_filter() -> matrix_sdk::ruma::api::client::sync::sync_events::v3::Filter {
    use matrix_sdk::ruma::api::client::filter::{FilterDefinition, RoomEventFilter, RoomFilter};
    let mut timeline = RoomEventFilter::default();
    timeline.limit = Some(CATCH_UP_EVENTS.into());
    let mut room = RoomFilter::default();
    room.timeline = timeline;
    let mut definition = FilterDefinition::default();
    definition.room = room;
    definition.into()
}

async fn on_invite(event: StrippedRoomMemberEvent, room: Room, client: Client) {
    if client.user_id() != Some(&*event.state_key) {
        return;
    }
    tokio::spawn(async move {
        // Synapse may not be ready for the join the moment the invite arrives.
        for delay in [0u64, 1, 2, 4, 8] {
            tokio::time::sleep(Duration::from_secs(delay)).await;
            if room.join().await.is_ok() {
                return;
            }
        }
        tracing::warn!(room = %room.room_id(), "could not join the room after an invite");
    });
}

async fn on_message(
    event: OriginalSyncRoomMessageEvent,
    room: Room,
    client: Client,
    service: Ctx<Shared>,
    answer_from: Ctx<AnswerFrom>,
) {
    if room.state() != RoomState::Joined || client.user_id() == Some(&*event.sender) {
        return;
    }
    if u64::from(event.origin_server_ts.get()) < answer_from.0.0 {
        return;
    }
    let MessageType::Text(text) = event.content.msgtype else { return };
    // A message answered before a restart comes again with the sync from our own position.
    let event_id = event.event_id.to_string();
    let seen = {
        let (service, event_id) = (Arc::clone(&service), event_id.clone());
        tokio::task::spawn_blocking(move || service.store().was_handled(PLATFORM, &event_id)).await
    };
    if matches!(seen, Ok(Ok(true))) {
        tracing::debug!(event = %event_id, "answered before a restart");
        return;
    }
    tracing::debug!(event = %event_id, "a message to answer");
    let sender = event.sender.to_string();
    let (name, is_admin) = match room.get_member(&event.sender).await {
        Ok(Some(m)) => (
            m.display_name().map(str::to_string).unwrap_or_else(|| event.sender.localpart().to_string()),
            is_moderator(m.power_level()),
        ),
        _ => (event.sender.localpart().to_string(), false),
    };
    let channel = room.room_id().to_string();
    let service = Arc::clone(&service);
    let service_for_marks = Arc::clone(&service);
    let html = text.formatted.filter(|f| f.format == MessageFormat::Html).map(|f| f.body);
    let body = with_pills_resolved(&text.body, html.as_deref());
    let me = client.user_id().map(|id| id.to_string()).unwrap_or_default();
    let body = addressed_by_mention(&body, &me);
    fault("matrix-before-answer");
    // The service talks to its database synchronously: keep it off the async workers.
    let replies = tokio::task::spawn_blocking(move || {
        let author = User::new(sender, name);
        // The bot itself may be mentioned: a challenge to it is a practice game.
        let mentioned: Vec<User> = mentions(&body);
        let msg = Incoming {
            platform: PLATFORM,
            channel: &channel,
            author: &author,
            is_admin,
            text: &body,
            mentions: &mentioned,
            now: unix_now(),
        };
        service.handle(&msg)
    })
    .await
    .unwrap_or_default();
    let answered = !replies.is_empty();
    for reply in replies {
        match send(&room, &reply).await {
            Ok(()) => crate::delivery::mark_posted(&service_for_marks, reply.outbox).await,
            Err(e) => tracing::warn!(room = %room.room_id(), "could not answer: {e}"),
        }
    }
    if answered {
        let service = Arc::clone(&service_for_marks);
        let marked = tokio::task::spawn_blocking(move || {
            service.store().mark_handled(PLATFORM, &event_id, unix_now())
        })
        .await;
        if !matches!(marked, Ok(Ok(_))) {
            tracing::error!("could not record an answered message: a restart may answer it again");
        }
    }
}

/// Intentional mentions (`m.mentions`) of the players a message concerns, so their clients notify
/// them; nobody else is mentioned whatever the text says.
fn mentioning(content: RoomMessageEventContent, notify: &[String]) -> RoomMessageEventContent {
    let users = notify.iter().filter_map(|id| matrix_sdk::ruma::OwnedUserId::try_from(id.as_str()).ok());
    content.add_mentions(matrix_sdk::ruma::events::Mentions::with_user_ids(users))
}

/// Moderators (power level 50, Element's default for them) and above, and room creators, who
/// hold unlimited power from room version 12 on, administer the room.
fn is_moderator(level: matrix_sdk::ruma::events::room::power_levels::UserPowerLevel) -> bool {
    use matrix_sdk::ruma::events::room::power_levels::UserPowerLevel;
    match level {
        UserPowerLevel::Infinite => true,
        UserPowerLevel::Int(n) => i64::from(n) >= 50,
        // Kinds of power future room versions may add: not assumed to be admin.
        _ => false,
    }
}

/// Size and dimensions of a PNG (from its header), so clients lay the picture out before it loads.
fn png_info(png: &[u8]) -> BaseImageInfo {
    let be32 = |at: usize| png.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let is_png = png.starts_with(b"\x89PNG\r\n\x1a\n") && png.get(12..16) == Some(b"IHDR");
    let (width, height) = if is_png { (be32(16), be32(20)) } else { (None, None) };
    BaseImageInfo {
        width: width.map(Into::into),
        height: height.map(Into::into),
        size: u32::try_from(png.len()).ok().map(Into::into),
        is_animated: Some(false),
        ..BaseImageInfo::default()
    }
}

/// A reply's text as a Matrix message: plain text only, with no `formatted_body`, so nothing in
/// it (a player named `<b>x</b>` or `<a href=…>`) can become HTML; clients show it as written.
/// Errors go out as notices: Matrix has no message only one member sees.
fn content(reply: &Reply) -> RoomMessageEventContent {
    if reply.private {
        RoomMessageEventContent::notice_plain(&reply.text)
    } else {
        mentioning(RoomMessageEventContent::text_plain(&reply.text), &reply.notify)
    }
}

async fn send(room: &Room, reply: &Reply) -> Result<()> {
    room.send(content(reply)).await?;
    if let Some(png) = &reply.image {
        let config = AttachmentConfig::new().info(AttachmentInfo::Image(png_info(png)));
        room.send_attachment("board.png", &mime::IMAGE_PNG, png.clone(), config).await?;
    }
    if let Some(gif) = &reply.animation {
        let info = BaseImageInfo {
            size: u32::try_from(gif.len()).ok().map(Into::into),
            is_animated: Some(true),
            ..BaseImageInfo::default()
        };
        let config = AttachmentConfig::new().info(AttachmentInfo::Image(info));
        room.send_attachment("game.gif", &mime::IMAGE_GIF, gif.clone(), config).await?;
    }
    Ok(())
}

/// Posts the notices nobody's message asked for (reminders, losses on time, tournament rounds,
/// the bot's own moves with their boards) as they come.
async fn deliver(service: Shared, client: Client, mut notices: crate::router::Inbox) {
    while let Some(notice) = notices.recv().await {
        let Ok(room_id) = matrix_sdk::ruma::RoomId::parse(&notice.channel) else { continue };
        let Some(room) = client.get_room(&room_id) else {
            tracing::warn!(room = %room_id, "a notice for a room the bot is not in");
            continue;
        };
        // Posted only under a claim still held, renewed for the post, and within its time: never
        // by two at once (see [`tessera_core::outbox`]).
        if !crate::delivery::holds_for_post(&service, &notice).await {
            continue;
        }
        let reply = notice.into_reply();
        match tokio::time::timeout(tessera_core::outbox::POST_TIMEOUT, send(&room, &reply)).await {
            Ok(Ok(())) => crate::delivery::mark_posted(&service, reply.outbox).await,
            Ok(Err(e)) => tracing::warn!(room = %room_id, "a notice could not be posted: {e}"),
            Err(_) => {
                tracing::warn!(room = %room_id, "a notice was not taken in time; it is tried again later")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_announce_their_size() {
        let view = tessera_rules::view::BoardView::new(
            &tessera_rules::Position::start(tessera_rules::Variant::QuadSquare),
            None,
        );
        let png = tessera_render::render_png(&view, &tessera_render::RenderOptions::default()).unwrap();
        let info = png_info(&png);
        let decoded = png::Decoder::new(std::io::Cursor::new(&png)).read_info().unwrap().info().clone();
        assert_eq!(info.width, Some(decoded.width.into()));
        assert_eq!(info.height, Some(decoded.height.into()));
        assert_eq!(info.size, Some((png.len() as u32).into()));
        assert_eq!(png_info(b"not a picture").width, None);
    }

    #[test]
    fn names_cannot_inject_html() {
        let text = "<b>h</b> <a href=\"https://e\">x</a> **x** [y](http://e) ||z|| &amp; ```";
        for private in [false, true] {
            let reply =
                Reply { text: text.into(), private, notify: vec!["@bob:x.org".into()], ..Reply::default() };
            let json = serde_json::to_value(content(&reply)).unwrap();
            assert_eq!(json["body"], text, "the text as written");
            assert_eq!(json["msgtype"], if private { "m.notice" } else { "m.text" });
            assert!(json.get("format").is_none() && json.get("formatted_body").is_none(), "{json}");
        }
    }

    #[test]
    fn moderators_and_creators_administer() {
        use matrix_sdk::ruma::events::room::power_levels::UserPowerLevel;
        assert!(is_moderator(UserPowerLevel::Infinite));
        assert!(is_moderator(UserPowerLevel::Int(100.into())));
        assert!(is_moderator(UserPowerLevel::Int(50.into())));
        assert!(!is_moderator(UserPowerLevel::Int(0.into())));
    }

    #[test]
    fn pills_become_matrix_ids() {
        let html =
            r#"!t challenge <a href="https://matrix.to/#/@bob:example.org">Bob &amp; Co</a> hans38 white"#;
        let text = with_pills_resolved("!t challenge Bob & Co hans38 white", Some(html));
        assert_eq!(text, "!t challenge @bob:example.org hans38 white");
        assert_eq!(mentions(&text), [User::new("@bob:example.org", "bob")]);
        // Percent-encoded links, two pills in order, and a pill whose text is not in the body.
        let html = concat!(
            r#"<a href="https://matrix.to/#/%40ann%3Ax.org">Ann</a> vs "#,
            r#"<a href="https://matrix.to/#/@cy:x.org">Cy</a> <a href="https://matrix.to/#/@zed:x.org">Zed</a>"#
        );
        assert_eq!(with_pills_resolved("Ann vs Cy", Some(html)), "@ann:x.org vs @cy:x.org");
        // Room links and broken markup are left alone; no HTML, no change.
        let room =
            r##"<a href="https://matrix.to/#/#chess:x.org">chess</a> <a href="https://matrix.to/#/@x"##;
        assert_eq!(with_pills_resolved("play chess", Some(room)), "play chess");
        assert_eq!(with_pills_resolved("e4", None), "e4");
    }

    #[test]
    fn a_leading_mention_of_the_bot_addresses_it() {
        let bot = "@tessera:x.org";
        assert_eq!(
            addressed_by_mention("@tessera:x.org: challenge @bob:x.org", bot),
            "!t challenge @bob:x.org"
        );
        assert_eq!(addressed_by_mention("@tessera:x.org help", bot), "!t help");
        assert_eq!(addressed_by_mention("@tessera:x.org.evil: help", bot), "@tessera:x.org.evil: help");
        assert_eq!(addressed_by_mention("hello @tessera:x.org", bot), "hello @tessera:x.org");
    }

    #[test]
    fn mentions_are_matrix_ids() {
        let m = mentions("!t challenge @bob:localhost, quad-square @@e4 @nobody");
        assert_eq!(m, [User::new("@bob:localhost", "bob")]);
    }
}
