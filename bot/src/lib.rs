//! The Tessera bot: the game service and its storage, independent of any chat platform, plus the
//! local terminal mode. Adapters for Discord and Matrix translate platform events into
//! [`service::Incoming`] messages and post the replies.

pub mod clock;
pub mod command_table;
pub mod commands;
pub mod config;
pub mod delivery;
pub mod discord;
mod game_cache;
pub mod lease;
pub mod local;
pub mod logging;
pub mod matrix;
pub mod migrate;
pub mod names;
pub mod outbox;
pub mod postgres_store;
pub mod practice;
pub mod private_files;
pub mod rate_limit;
pub mod ratings;
pub mod service;
pub mod store;
pub mod tournament;
pub mod tournament_store;
mod turn_list;
