//! The Matrix adapter: a thin layer between matrix-sdk and the game service. It logs in (or restores
//! its saved session), joins rooms it is invited to by those `matrix_invites_from` admits, hands
//! every new text message to the service and posts the replies ([`content`]: notices unless
//! someone is pinged, escaped HTML, replies in the command's thread), each room from its own queue
//! ([`queue`]). At its first start it leaves the rooms' history alone; after a restart it answers
//! what was said while it was down (within [`CATCH_UP`]). A lost connection is waited out, never
//! the end of the process. End-to-end encryption and its keys live in matrix-sdk's SQLite store,
//! with cross-signing and a key backup on the homeserver, so encrypted rooms work and survive
//! restarts; a message the bot cannot decrypt is logged and its sender told once.

mod content;
mod queue;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use matrix_sdk::attachment::BaseImageInfo;
use matrix_sdk::authentication::matrix::MatrixSession;
use matrix_sdk::config::{RequestConfig, SyncSettings};
use matrix_sdk::encryption::{BackupDownloadStrategy, EncryptionSettings};
use matrix_sdk::event_handler::Ctx;
use matrix_sdk::ruma::events::room::encrypted::OriginalSyncRoomEncryptedEvent;
use matrix_sdk::ruma::events::room::member::{
    MembershipState, OriginalSyncRoomMemberEvent, StrippedRoomMemberEvent,
};
use matrix_sdk::ruma::events::room::message::{
    MessageFormat, MessageType, OriginalSyncRoomMessageEvent, Relation,
};
use matrix_sdk::{Client, Room, RoomMemberships, RoomState};

use crate::config::{InvitesFrom, MatrixConfig};
use crate::outgoing::Failure;
use content::Answering;
use queue::{Job, Positions, Rooms, classify};
use tessera_core::secret::Secret;
use tessera_core::service::{Service, User};
use tessera_store::AnyStore;

pub const PLATFORM: &str = "matrix";

type Shared = Arc<Service<AnyStore>>;

/// What the event handlers need: the room queues, where history ends, whose invites are taken.
#[derive(Clone)]
struct Handling {
    rooms: Rooms,
    /// Messages sent before this moment (milliseconds since the epoch) are history, not answered.
    answer_from: u64,
    invites: InvitesFrom,
}

impl Handling {
    /// Whether an event is one to answer: in a room the bot is in, from someone else, and not
    /// history.
    fn answers(
        &self,
        room: &Room,
        client: &Client,
        sender: &matrix_sdk::ruma::UserId,
        sent: matrix_sdk::ruma::MilliSecondsSinceUnixEpoch,
    ) -> bool {
        room.state() == RoomState::Joined
            && client.user_id() != Some(sender)
            && u64::from(sent.get()) >= self.answer_from
    }
}

/// How far back a restarted bot answers what was said while it was down.
pub const CATCH_UP: Duration = Duration::from_secs(24 * 3600);

/// Most messages per room the catch-up sync brings (the homeserver's default is 10): the bot's own
/// replies count too, so a room busy while the bot was down is still answered.
const CATCH_UP_EVENTS: u32 = 200;

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
        // A few quick tries inside matrix-sdk; the sync loop and the send path do the waiting.
        .request_config(RequestConfig::new().retry_limit(3).max_retry_time(Duration::from_secs(10)))
        // Cross-signing and a key backup: a new device of the bot can get the room keys back.
        .with_encryption_settings(EncryptionSettings {
            auto_enable_cross_signing: true,
            backup_download_strategy: BackupDownloadStrategy::AfterDecryptionFailure,
            auto_enable_backups: true,
        })
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

/// Sets up cross-signing where matrix-sdk could not on its own: a homeserver that asks for the
/// password again (user-interactive auth) gets it.
async fn cross_sign(client: Client, cfg: MatrixConfig) {
    use matrix_sdk::ruma::api::client::uiaa;
    let encryption = client.encryption();
    encryption.wait_for_e2ee_initialization_tasks().await;
    let Err(e) = encryption.bootstrap_cross_signing_if_needed(None).await else { return };
    let Some(asked) = e.as_uiaa_response() else {
        tracing::warn!("could not set up cross-signing: {e}");
        return;
    };
    let user = client.user_id().map_or(cfg.user.clone(), |u| u.to_string());
    let mut password = uiaa::Password::new(
        uiaa::UserIdentifier::Matrix(uiaa::MatrixUserIdentifier::new(user)),
        cfg.password.expose().to_owned(),
    );
    password.session = asked.session.clone();
    match encryption.bootstrap_cross_signing(Some(uiaa::AuthData::Password(password))).await {
        Ok(()) => tracing::info!("cross-signing set up"),
        Err(e) => tracing::warn!("could not set up cross-signing: {e}"),
    }
}

/// Whether an error is the network's or the server's passing trouble, worth waiting out.
fn passing(error: &anyhow::Error) -> bool {
    let failure = if let Some(e) = error.downcast_ref::<matrix_sdk::Error>() {
        classify(e)
    } else if let Some(e) = error.downcast_ref::<matrix_sdk::HttpError>() {
        queue::classify_http(e)
    } else {
        Failure::Refused
    };
    matches!(failure, Failure::Transient(_))
}

/// The longest wait between tries to reach the homeserver.
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// Runs `attempt` until it succeeds, waiting out the network's and the server's passing trouble
/// with backoff; any other error is returned.
async fn patiently<T, F, Fut>(what: &str, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let mut wait = Duration::from_secs(1);
    loop {
        match attempt().await {
            Ok(done) => return Ok(done),
            Err(e) if passing(&e) => {
                tracing::warn!("{what}: {e:#}; trying again in {wait:?}");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(LONGEST_WAIT);
            }
            Err(e) => return Err(e.context(what.to_string())),
        }
    }
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

/// Runs the bot on Matrix until the process ends. The process's clock hands it this platform's
/// notices through `notices`. A lost connection is waited out (the sync goes on after it); only a
/// refusal that waiting cannot cure (a wrong password, a session the homeserver ended) returns.
pub async fn run(service: Shared, cfg: MatrixConfig, notices: crate::router::Inbox) -> Result<()> {
    // Our own position: the sync whose messages were all answered. matrix-sdk saves its own
    // position when a sync arrives, before the messages are answered, so a process killed in
    // between would never see those messages again; from ours, they come back and are answered (a
    // message answered already is recognised by its event id and skipped).
    let account = account_lease(&cfg);
    let ours = {
        let (service, account) = (Arc::clone(&service), account.clone());
        tokio::task::spawn_blocking(move || {
            service.store().channel_setting(PLATFORM, &account, SYNC_POSITION)
        })
        .await
        .context("reading the sync position")??
    };
    let client = patiently("logging in to Matrix", || login(&cfg, ours.as_deref())).await?;
    tokio::spawn(cross_sign(client.clone(), cfg.clone()));
    // With a position this is a restart: what arrived while the bot was down (within a day) is
    // answered, oldest first, each in its room. Without one, the room histories the first sync
    // brings are not the bot's business.
    let resumed = ours.is_some() || {
        use matrix_sdk::store::{StateStoreDataKey, StateStoreDataValue};
        let saved = client.state_store().get_kv_data(StateStoreDataKey::SyncToken).await;
        matches!(saved, Ok(Some(StateStoreDataValue::SyncToken(_))))
    };
    let now = tessera_core::process::local_ms().max(0) as u64;
    let answer_from = if resumed { now.saturating_sub(CATCH_UP.as_millis() as u64) } else { now };
    tracing::info!(position = ?ours, resumed, "catching up");
    let mut catch_up = SyncSettings::default();
    if let Some(position) = ours {
        catch_up = catch_up.token(position);
    } else if !resumed {
        let first = patiently("the first sync with the homeserver", || async {
            Ok(client.sync_once(SyncSettings::default()).await?)
        })
        .await?;
        catch_up = SyncSettings::default().token(first.next_batch);
    }
    let (positions, saved) = Positions::new();
    let positions = Arc::new(positions);
    tokio::spawn(save_positions(Arc::clone(&service), account.clone(), saved));
    let rooms = Rooms::new(Arc::clone(&service), client.clone(), Arc::clone(&positions));
    client.add_event_handler_context(Handling {
        rooms: rooms.clone(),
        answer_from,
        invites: cfg.invites_from.clone(),
    });
    client.add_event_handler(on_invite);
    client.add_event_handler(on_message);
    client.add_event_handler(on_unreadable);
    client.add_event_handler(on_member);
    // Each room's missed messages are answered in the order they were sent.
    let catch_up = catch_up.filter(catch_up_filter());
    let caught_up = patiently("catching up with the homeserver", || async {
        Ok(client.sync_once(catch_up.clone()).await?)
    })
    .await?;
    positions.synced(caught_up.next_batch.clone());
    if let Some(me) = client.user_id() {
        service.set_bot_account(PLATFORM, me.as_str());
    }
    tokio::spawn(leave_empty_rooms(client.clone()));
    tokio::spawn(pending_invites(client.clone(), cfg.invites_from.clone()));
    tokio::spawn(deliver(rooms, notices));
    tracing::info!(
        user = %client.user_id().map_or("?".into(), |u| u.to_string()),
        resumed,
        "Tessera is on Matrix"
    );
    let mut settings = SyncSettings::default().token(caught_up.next_batch);
    let mut wait = Duration::from_secs(1);
    loop {
        match client.sync_once(settings.clone()).await {
            // Its messages are queued in their rooms: the position is saved once they are answered.
            Ok(response) => {
                positions.synced(response.next_batch.clone());
                settings = settings.token(response.next_batch);
                wait = Duration::from_secs(1);
            }
            Err(e)
                if matches!(
                    e.client_api_error_kind(),
                    Some(matrix_sdk::ruma::api::error::ErrorKind::UnknownToken { .. })
                ) =>
            {
                return Err(e).context(
                    "the homeserver ended the bot's session; delete session.json in the Matrix store to log in again",
                );
            }
            Err(e) => {
                // Whatever the trouble, the bot keeps trying: a homeserver comes back.
                tracing::warn!("syncing with the homeserver: {e}; trying again in {wait:?}");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(LONGEST_WAIT);
            }
        }
    }
}

/// Saves each position [`Positions`] hands out, the newest first when they come faster.
async fn save_positions(
    service: Shared,
    account: String,
    mut saved: tokio::sync::watch::Receiver<Option<String>>,
) {
    while saved.changed().await.is_ok() {
        let position = saved.borrow_and_update().clone();
        if let Some(position) = position {
            save_position(&service, &account, position).await;
        }
    }
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

async fn on_invite(event: StrippedRoomMemberEvent, room: Room, client: Client, handling: Ctx<Handling>) {
    let Some(me) = client.user_id() else { return };
    if me != event.state_key || event.content.membership != MembershipState::Invite {
        return;
    }
    answer_invite(room, event.sender.as_str(), me.as_str(), &handling.invites);
}

/// Invites that came before the bot listened (at its very first start): answered as new ones.
async fn pending_invites(client: Client, invites: InvitesFrom) {
    let Some(me) = client.user_id().map(|u| u.to_string()) else { return };
    for room in client.invited_rooms() {
        let inviter = match room.invite_details().await {
            Ok(details) => details.inviter.map(|m| m.user_id().to_string()),
            Err(_) => None,
        };
        answer_invite(room, inviter.as_deref().unwrap_or_default(), &me, &invites);
    }
}

/// Joins the room, or declines the invite when `inviter` is not one `invites` admits.
fn answer_invite(room: Room, inviter: &str, me: &str, invites: &InvitesFrom) {
    if !invites.allows(inviter, me) {
        tracing::warn!(
            room = %room.room_id(),
            inviter,
            "declining an invite from outside matrix_invites_from"
        );
        tokio::spawn(async move {
            if let Err(e) = room.leave().await {
                tracing::warn!(room = %room.room_id(), "could not decline an invite: {e}");
            }
        });
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

/// Someone left: a room the bot is the last one in is left too.
async fn on_member(event: OriginalSyncRoomMemberEvent, room: Room, client: Client) {
    if !matches!(event.content.membership, MembershipState::Leave | MembershipState::Ban)
        || room.state() != RoomState::Joined
        || client.user_id() == Some(&*event.state_key)
    {
        return;
    }
    leave_if_alone(&client, &room).await;
}

async fn leave_if_alone(client: &Client, room: &Room) {
    let Ok(members) = room.members(RoomMemberships::ACTIVE).await else { return };
    if members.iter().any(|m| Some(m.user_id()) != client.user_id()) {
        return;
    }
    tracing::info!(room = %room.room_id(), "leaving a room nobody else is in");
    if let Err(e) = room.leave().await {
        tracing::warn!(room = %room.room_id(), "could not leave an empty room: {e}");
    }
}

/// Rooms everyone else left while the bot was away.
async fn leave_empty_rooms(client: Client) {
    for room in client.joined_rooms() {
        leave_if_alone(&client, &room).await;
    }
}

async fn on_message(
    event: OriginalSyncRoomMessageEvent,
    room: Room,
    client: Client,
    handling: Ctx<Handling>,
) {
    if !handling.answers(&room, &client, &event.sender, event.origin_server_ts) {
        return;
    }
    let MessageType::Text(text) = &event.content.msgtype else { return };
    tracing::debug!(event = %event.event_id, "a message to answer");
    let html = text.formatted.as_ref().filter(|f| f.format == MessageFormat::Html).map(|f| f.body.as_str());
    let body = with_pills_resolved(&text.body, html);
    let me = client.user_id().map(|id| id.to_string()).unwrap_or_default();
    let body = addressed_by_mention(&body, &me);
    let answering = Answering {
        event_id: event.event_id.clone(),
        sender: event.sender.clone(),
        thread: match &event.content.relates_to {
            Some(Relation::Thread(thread)) => Some(thread.clone()),
            _ => None,
        },
    };
    // Counted before the sync ends, answered in the room's own time.
    let sync = handling.rooms.positions.begin();
    handling.rooms.push(room.room_id().to_owned(), Job::Command { answering, body, sync });
}

/// A message that reached the bot still encrypted: it had no key for it. Logged without its
/// content, and its sender told once per room (see [`queue`]).
async fn on_unreadable(
    event: OriginalSyncRoomEncryptedEvent,
    room: Room,
    client: Client,
    handling: Ctx<Handling>,
) {
    if !handling.answers(&room, &client, &event.sender, event.origin_server_ts) {
        return;
    }
    tracing::warn!(
        room = %room.room_id(),
        sender = %event.sender,
        event = %event.event_id,
        "a message the bot could not decrypt"
    );
    let answering =
        Answering { event_id: event.event_id.clone(), sender: event.sender.clone(), thread: None };
    let sync = handling.rooms.positions.begin();
    handling.rooms.push(room.room_id().to_owned(), Job::Unreadable { answering, sync });
}

/// Queues the notices nobody's message asked for (reminders, losses on time, tournament rounds,
/// the bot's own moves with their boards) in their rooms as they come.
async fn deliver(rooms: Rooms, mut notices: crate::router::Inbox) {
    while let Some(notice) = notices.recv().await {
        let Ok(room_id) = matrix_sdk::ruma::RoomId::parse(&notice.channel) else {
            tracing::warn!(room = %notice.channel, "a notice for something that is no room");
            continue;
        };
        rooms.push(room_id, Job::Notice(Box::new(notice)));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_announce_their_size() {
        let view = tessera_rules::view::BoardView::new(
            &tessera_rules::Position::start(tessera_rules::Variant::QUAD_SQUARE),
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
