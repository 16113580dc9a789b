//! The bot's log: `tracing` events from Tessera, serenity and matrix-sdk, on standard error, filtered
//! by `RUST_LOG` (`info` for Tessera and `warn` for the libraries when unset). Secrets never reach
//! an event: they are [`tessera_core::secret::Secret`]s, whose debug form is hidden.

use tracing_subscriber::EnvFilter;

/// What is logged when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "warn,tessera=info,tessera_bot=info,tessera_core=info,tessera_store=info";

/// Starts logging (once; later calls do nothing) and makes a panic one short error event, with
/// where it happened, instead of the default multi-line report.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init()
        .is_ok();
    if installed {
        std::panic::set_hook(Box::new(|info| {
            let what = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            tracing::error!(at, "panic: {what}");
        }));
    }
}
