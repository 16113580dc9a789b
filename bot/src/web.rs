//! The web pages beside the bot: `tessera web` serves them alone; with `web_listen` set the chat
//! process and the local mode serve them too, from the same service and database.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_web::WebOptions;

use crate::config::Config;

/// The pages' options from the configuration.
pub fn options(cfg: &Config) -> WebOptions {
    WebOptions { behind_proxy: cfg.web_behind_proxy, ..WebOptions::default() }
}

/// Listens on `listen`: done before anything else starts, so a taken port stops the bot at once.
pub async fn bind(listen: SocketAddr) -> Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening for the web on {listen}"))?;
    tracing::info!(address = %listener.local_addr()?, "web pages served");
    Ok(listener)
}

/// `tessera web --listen ADDRESS`: the pages alone, until SIGTERM or SIGINT.
pub fn run_alone<S: Store + Send + Sync + 'static>(
    service: Service<S>,
    listen: SocketAddr,
    opts: WebOptions,
) -> Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let listener = bind(listen).await?;
        let stop = crate::chat::StopSignals::listen();
        let shutdown = async move {
            let signal = stop.received().await;
            tracing::info!("{signal}: stopping");
        };
        tessera_web::serve(Arc::new(service), listener, opts, shutdown).await
    })
}

/// The pages served on the caller's runtime (the chat process's) until [`Served::stop`].
#[derive(Debug)]
pub struct Served {
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Served {
    /// Starts serving on `listener`; call inside a runtime.
    pub fn start<S: Store + Send + Sync + 'static>(
        service: Arc<Service<S>>,
        listener: tokio::net::TcpListener,
        opts: WebOptions,
    ) -> Served {
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let shutdown = async move {
            // A sender dropped without a word stops the pages too.
            let _ = stopped.wait_for(|s| *s).await;
        };
        let task = tokio::spawn(async move {
            if let Err(e) = tessera_web::serve(service, listener, opts, shutdown).await {
                tracing::error!("the web pages stopped: {e:#}");
            }
        });
        Served { stop, task }
    }

    /// Stops taking connections and ends the live streams, then waits up to `within` for the
    /// requests under way to be answered. Whether all were.
    pub async fn stop(self, within: std::time::Duration) -> bool {
        let _ = self.stop.send(true);
        tokio::time::timeout(within, self.task).await.is_ok()
    }
}

/// The pages served on a thread of their own, with its own runtime (the local mode has none):
/// stopped when dropped.
#[derive(Debug)]
pub struct Beside {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Beside {
    /// Starts serving; fails here, before the bot starts, when the address cannot be listened on.
    pub fn start<S: Store + Send + Sync + 'static>(
        service: Arc<Service<S>>,
        listen: SocketAddr,
        opts: WebOptions,
    ) -> Result<Beside> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tessera-web")
            .enable_all()
            .build()?;
        let listener = runtime.block_on(bind(listen))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new().name("tessera-web".into()).spawn(move || {
            let shutdown = async move {
                let _ = stopped.await;
            };
            if let Err(e) = runtime.block_on(tessera_web::serve(service, listener, opts, shutdown)) {
                tracing::error!("the web pages stopped: {e:#}");
            }
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        })?;
        Ok(Beside { stop: Some(stop), thread: Some(thread) })
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
