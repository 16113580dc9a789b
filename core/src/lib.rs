//! The Tessera chat service without any chat platform, database driver or async runtime: the
//! command table and its parser, the domain's records, games, challenges, offers, settings,
//! listings, tournaments and ratings, the practice opponent's and the clock's decisions, and the
//! ports the service needs ([`store::Store`], a bell for notices nobody asked for). Adapters (in
//! the `tessera-bot` crate) turn platform events into [`service::Incoming`] messages and post the
//! replies; the `tessera-store` crate implements the ports on SQLite and PostgreSQL.

pub mod analysis;
pub mod command;
pub mod command_spec;
pub mod command_table;
pub mod commands;
mod game_cache;
pub mod model;
pub mod names;
pub mod outbox;
pub use service::public;
pub mod process;
pub mod queue;
pub mod rate_limit;
pub mod ratings;
pub mod secret;
pub mod service;
pub mod store;
pub mod tournament;
mod turn_list;
mod turn_texts;
pub mod variants;
