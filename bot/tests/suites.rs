//! The bot's integration suites, one module each, built as one test binary: one link instead of
//! twenty, and the suites share the test threads instead of running one after another. Run one
//! suite with `cargo test -p tessera-bot --test suites NAME::`. The two suites that run servers for
//! a minute (`processes`, `matrix_synapse`) stay binaries of their own.

// What the suites share, once for all of them.
#[cfg(feature = "discord")]
#[path = "support/fake_discord.rs"]
#[allow(dead_code)]
mod fake;
mod local_bot;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/talk.rs"]
mod talk;

mod analysis;
mod chat;
mod cli;
mod community;
mod correspondence;
mod crash;
mod crash_tournaments;
// The suites that drive one platform's adapter need that platform built in.
#[cfg(feature = "discord")]
mod discord_fake;
#[cfg(feature = "discord")]
mod discord_limits;
mod fuzz;
mod migrate;
mod pairing_load;
mod practice;
mod publish;
mod races;
mod reliability;
mod service;
mod store;
mod tournament_integrity;
mod tournaments;
mod transcripts;
mod web_cli;
