//! Chat mode: the adapters this build has (Discord, Matrix; cargo features `discord` and
//! `matrix`) around one service and database, with the runtime they share: the clock, the
//! background workers, the outbox's delivery, the standing leases and the stop signals.

use std::process::ExitCode;

use anyhow::Result;
#[cfg(not(all(feature = "discord", feature = "matrix")))]
use anyhow::bail;
use tessera_core::service::Service;
use tessera_store::AnyStore;

#[cfg(feature = "discord")]
use crate::config::Shards;
use crate::config::{Config, MatrixConfig};

/// Chat mode: every configured platform at once, sharing one service and database, until an
/// adapter stops (an error: a supervisor restarts the bot), a standing lease is lost (another
/// process runs that part now), or SIGTERM or SIGINT asks it to stop. The leases are given back
/// on the way out, so the next process need not wait for them.
pub fn run(cfg: &Config, mut service: Service<AnyStore>, matrix: Option<MatrixConfig>) -> Result<ExitCode> {
    // A platform configured but not built in is refused before anything is taken.
    #[cfg(not(feature = "matrix"))]
    if matrix.is_some() {
        bail!("Matrix is configured, but this tessera was built without it (cargo feature `matrix`)");
    }
    #[cfg(not(feature = "discord"))]
    if cfg.discord_token.is_some() {
        bail!(
            "a Discord token is configured, but this tessera was built without Discord (cargo feature `discord`)"
        );
    }
    service.rate_limit = Some(tessera_core::rate_limit::RateLimit::default());
    // Rounds are paired on a thread of their own: no answer waits for a large one.
    service.pair_on_worker = true;
    // Discord suggests turns as they are typed: each position's turns are written when it is reached.
    #[cfg(feature = "discord")]
    {
        service.write_turns_ahead = cfg.discord_token.is_some();
    }
    let service = std::sync::Arc::new(service);
    let runtime = tokio::runtime::Runtime::new()?;
    // One clock for the process, routing each notice to its platform's adapter.
    #[allow(unused_mut)]
    let mut clock = crate::clock::Clock::new();
    #[cfg(feature = "matrix")]
    let matrix = matrix.map(|m| (m, clock.serve(crate::matrix::PLATFORM)));
    #[cfg(feature = "discord")]
    let discord = cfg.discord_token.as_ref().map(|t| (t, clock.serve(crate::discord::PLATFORM)));
    // What only one process may run: the Matrix account, each Discord shard. A second process
    // configured the same refuses here, before it connects.
    #[allow(unused_mut)]
    let mut standing = Vec::new();
    #[cfg(feature = "matrix")]
    if let Some((m, _)) = &matrix {
        standing.push((crate::matrix::account_lease(m), format!("the Matrix account {}", m.user)));
    }
    #[cfg(feature = "discord")]
    let options = crate::discord::DiscordOptions {
        guild: cfg.discord_guild,
        shards: cfg.discord_shards,
        ..crate::discord::DiscordOptions::default()
    };
    // `auto` resolved here, once: its shards are leased one by one as a range of them would be.
    #[cfg(feature = "discord")]
    let shards = match &discord {
        Some((token, _)) => {
            let (first, last, total) = runtime.block_on(options.shard_range(token.expose()))?;
            Shards::Range { first, last, total }
        }
        None => cfg.discord_shards,
    };
    #[cfg(feature = "discord")]
    if let (Some(_), Shards::Range { first, last, total }) = (&discord, shards) {
        for name in crate::discord::shard_leases(first, last, total) {
            standing.push((name, format!("Discord (shards {shards})")));
        }
    }
    // Listening for SIGTERM before anything is taken: a stop that comes while the leases are being
    // taken, or just after, still gives them back instead of killing the process.
    let stop = runtime.block_on(async { StopSignals::listen() });
    // The web pages, when asked for: their port is taken now, so a taken one stops the start.
    let web = match cfg.web_listen {
        Some(listen) => Some(runtime.block_on(crate::web::bind(listen))?),
        None => None,
    };
    let standing = std::sync::Arc::new(crate::lease::Standing::take(service.clone(), standing)?);
    // After taking them: of two processes starting at once with different totals, each then sees
    // the other's leases (and refuses, giving its own back) where before both could see none.
    #[cfg(feature = "discord")]
    if let (Some(_), Shards::Range { total, .. }) = (&discord, shards) {
        crate::discord::check_shard_total(service.store(), total)?;
    }
    let clock_leases = clock.leases();
    // The bot's own turns in practice games: one thread of its own, posting like the clock.
    let practice = crate::practice::Worker::start(service.clone(), clock.router())?;
    // Tournaments: any round a crash left unpaired is paired now; then every round as it falls due.
    let pairing = crate::practice::Worker::pairing(service.clone(), &clock.platforms())?;
    let turns =
        if service.write_turns_ahead { Some(crate::practice::Worker::turns(service.clone())?) } else { None };
    let outbox = clock.router();
    let outcome = runtime.block_on(async {
        tokio::spawn(crate::delivery::run_outbox(service.clone(), outbox));
        tokio::spawn(clock.run(service.clone(), crate::clock::PERIOD));
        let pages = web
            .map(|listener| crate::web::Served::start(service.clone(), listener, crate::web::options(cfg)));
        let matrix = async {
            #[cfg(feature = "matrix")]
            if let Some((m, inbox)) = matrix {
                return crate::matrix::run(service.clone(), m, inbox).await;
            }
            std::future::pending::<Result<()>>().await
        };
        let discord = async {
            #[cfg(feature = "discord")]
            if let Some((token, inbox)) = discord {
                let options = crate::discord::DiscordOptions { shards, ..options };
                return crate::discord::run(service.clone(), token.expose(), options, inbox).await;
            }
            std::future::pending::<Result<()>>().await
        };
        let outcome = tokio::select! {
            r = matrix => r,
            r = discord => r,
            lost = standing.clone().keep() => Err(lost),
            signal = stop.received() => {
                tracing::info!("{signal}: stopping");
                Ok(())
            }
        };
        // The pages' live streams end and the requests under way are answered before the
        // runtime goes, not cut off by it.
        if let Some(pages) = pages
            && !pages.stop(std::time::Duration::from_secs(5)).await
        {
            tracing::warn!("the web pages did not stop within 5 s");
        }
        outcome
    });
    // Nothing in flight may hold the stop up for long: a blocking call stuck on a dead connection
    // is left behind.
    runtime.shutdown_timeout(std::time::Duration::from_secs(10));
    practice.stop();
    pairing.stop();
    if let Some(turns) = turns {
        turns.stop();
    }
    clock_leases.release(service.store());
    drop(standing);
    outcome?;
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM (a supervisor, `docker stop`) and SIGINT (Ctrl-C), listened for from the moment they
/// are made: one that arrives before `received` is awaited is kept, not lost.
pub(crate) struct StopSignals {
    term: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    /// Must be called inside the runtime.
    pub(crate) fn listen() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind, name| {
            signal(kind)
                .map_err(|e| tracing::warn!("cannot listen for {name} ({e}); stop the bot with SIGKILL"))
                .ok()
        };
        StopSignals {
            term: listen(SignalKind::terminate(), "SIGTERM"),
            int: listen(SignalKind::interrupt(), "SIGINT"),
        }
    }

    /// The name of the first stop signal received; never, if neither can be listened for.
    pub(crate) async fn received(mut self) -> &'static str {
        async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
            let received = match signal {
                Some(s) => s.recv().await.is_some(),
                None => false,
            };
            if !received {
                std::future::pending::<()>().await;
            }
        }
        tokio::select! {
            () = next(&mut self.term) => "SIGTERM",
            () = next(&mut self.int) => "SIGINT",
        }
    }
}
