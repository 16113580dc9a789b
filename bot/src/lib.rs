//! The `tessera` binary's library: the adapters that carry chat between a platform and the core
//! service (Discord, Matrix, the local terminal mode), the runtime around the service (the clock,
//! leases, the background workers, the outbox's delivery), the configuration and the CLI's pieces.
//! Everything a command does is in `tessera-core`; storage is in `tessera-store`.

pub mod chat;
pub mod clock;
pub mod config;
pub mod delivery;
#[cfg(feature = "discord")]
pub mod discord;
pub mod lease;
pub mod local;
pub mod logging;
#[cfg(feature = "matrix")]
pub mod matrix;
pub mod outgoing;
pub mod practice;
pub mod router;
pub mod web;
