//! Storage for the Tessera service: its ports ([`tessera_core::store::Store`] and
//! [`tessera_core::store::TournamentStore`]) on SQLite ([`SqliteStore`], one file, WAL) and on
//! PostgreSQL ([`PgStore`], for bots on more than one machine), their numbered migrations, the
//! copying of a database from one to the other ([`migrate`]), and the files kept private.
//! The configuration's `database` chooses the store ([`open`]).

use anyhow::{Context, Result};
use tessera_core::store::Store;

pub mod database;
pub mod migrate;
pub mod postgres;
pub mod private_files;
mod rows;
pub mod sql;
pub mod sqlite;

pub use database::Database;
pub use postgres::PgStore;
pub use sqlite::SqliteStore;

/// Any store, as the configuration chose it.
pub type AnyStore = Box<dyn Store>;

/// Opens the configured database: an SQLite file, or a PostgreSQL server.
pub fn open(database: &Database) -> Result<AnyStore> {
    Ok(match database {
        Database::Sqlite(path) => Box::new(SqliteStore::open(path)?),
        Database::Postgres(address) => Box::new(
            PgStore::connect(address.expose())
                .with_context(|| format!("opening the database {}", database.describe()))?,
        ),
    })
}
