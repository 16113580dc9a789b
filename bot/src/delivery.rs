//! Posting the outbox's notices ([`tessera_core::outbox`]) from the async adapters: the loop that claims
//! them, the claim check right before a post, and the mark right after.

use std::sync::Arc;
use std::time::Duration;

use crate::outgoing::Failure;
use crate::router::Router;
use tessera_core::service::{Notice, Service};
use tessera_core::store::Store;

/// How often the outbox is looked at when nothing wakes it: notices another process wrote, or
/// whose claim ran out.
pub const OUTBOX_PERIOD: Duration = Duration::from_secs(5);

/// Posts the outbox's notices for `router`'s platforms until the process ends: whenever this
/// process wrote some ([`Service::on_notices`]) and every [`OUTBOX_PERIOD`] besides.
pub async fn run_outbox<S: Store + Send + Sync + 'static>(service: Arc<Service<S>>, router: Router) {
    let platforms = router.platforms();
    let ready = Arc::new(tokio::sync::Notify::new());
    let bell = Arc::clone(&ready);
    service.on_notices(move || bell.notify_one());
    loop {
        let (s, ps) = (Arc::clone(&service), platforms.clone());
        match tokio::task::spawn_blocking(move || s.outbox_due(Some(&ps))).await {
            Ok(notices) => {
                router.deliver(notices);
            }
            Err(e) => tracing::error!("looking at the outbox panicked: {e}"),
        }
        tokio::select! {
            _ = ready.notified() => {}
            _ = tokio::time::sleep(OUTBOX_PERIOD) => {}
        }
    }
}

/// Whether a notice may be posted now ([`Service::may_post`]), asked off the async workers.
pub async fn holds_for_post<S: Store + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    notice: &Notice,
) -> bool {
    if notice.outbox.is_none() {
        return true;
    }
    // Only what the check reads: a notice may carry pictures.
    let claim =
        Notice { outbox: notice.outbox, claim_holder: notice.claim_holder.clone(), ..Notice::default() };
    let service = Arc::clone(service);
    tokio::task::spawn_blocking(move || service.may_post(&claim)).await.unwrap_or(false)
}

/// Marks a stored notice sent once the platform took the message that posts it.
pub async fn mark_posted<S: Store + Send + Sync + 'static>(service: &Arc<Service<S>>, notice: Option<i64>) {
    let Some(notice) = notice else { return };
    let service = Arc::clone(service);
    if let Err(e) = tokio::task::spawn_blocking(move || service.notice_sent(notice)).await {
        tracing::error!("marking a notice sent panicked: {e}");
    }
}

/// After a post in `channel`, its standing kept: a refusal for lack of permission counted
/// ([`Service::post_refused`]), any post that went through clearing the count
/// ([`Service::post_taken`]). True when the channel now takes no more notices.
pub async fn record_post<S: Store + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    platform: &'static str,
    channel: &str,
    failed: Option<Failure>,
) -> bool {
    let (service, channel) = (Arc::clone(service), channel.to_string());
    tokio::task::spawn_blocking(move || match failed {
        None => {
            service.post_taken(platform, &channel);
            false
        }
        Some(Failure::Forbidden) => service.post_refused(platform, &channel),
        Some(_) => false,
    })
    .await
    .unwrap_or(false)
}

/// Whether the bot has stopped posting notices in `channel` ([`Service::posting_stopped`]).
pub async fn posting_stopped<S: Store + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    platform: &'static str,
    channel: &str,
) -> bool {
    let (service, channel) = (Arc::clone(service), channel.to_string());
    tokio::task::spawn_blocking(move || service.posting_stopped(platform, &channel)).await.unwrap_or(false)
}
