//! The way from the service to each platform's adapter, for messages nobody asked for at that
//! moment: the clock's notices, the outbox's, the practice opponent's moves.

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use tessera_core::service::Notice;

/// The way from the service to each platform's adapter, for messages nobody asked for at that
/// moment: the clock's notices, and the practice opponent's moves ([`crate::practice`]).
#[derive(Clone, Debug, Default)]
pub struct Router {
    routes: Vec<(&'static str, UnboundedSender<Notice>)>,
}

/// Where an adapter receives its platform's notices.
pub type Inbox = UnboundedReceiver<Notice>;

impl Router {
    /// Routes `platform`'s notices to the returned inbox from now on (replacing an earlier route).
    pub fn serve(&mut self, platform: &'static str) -> Inbox {
        let (outbox, inbox) = unbounded_channel();
        self.routes.retain(|(p, _)| *p != platform);
        self.routes.push((platform, outbox));
        inbox
    }

    pub fn platforms(&self) -> Vec<&'static str> {
        self.routes.iter().map(|(p, _)| *p).collect()
    }

    /// Hands each notice to its platform's adapter; returns how many were handed over. A notice
    /// whose adapter has stopped, or whose platform is not served, is logged.
    pub fn deliver(&self, notices: Vec<Notice>) -> usize {
        let mut handed = 0;
        for notice in notices {
            match self.routes.iter().find(|(p, _)| *p == notice.platform) {
                Some((_, outbox)) => match outbox.send(notice) {
                    Ok(()) => handed += 1,
                    Err(lost) => tracing::warn!(
                        platform = %lost.0.platform,
                        channel = %lost.0.channel,
                        "a notice found its adapter stopped"
                    ),
                },
                None => {
                    tracing::warn!(platform = %notice.platform, "a notice for a platform not served")
                }
            }
        }
        handed
    }
}
