//! Where the games are kept, as the configuration names it.

use std::path::PathBuf;

use tessera_core::secret::Secret;

/// Where the games are kept: `database = postgres://user@host/db` (or `postgresql://`) is a
/// PostgreSQL server; anything else is an SQLite file, `DATA_DIR/tessera.sqlite` when not given.
#[derive(Clone, Debug)]
pub enum Database {
    Sqlite(PathBuf),
    /// The server's address, a secret: it may hold a password.
    Postgres(Secret),
}

impl Default for Database {
    fn default() -> Database {
        Database::Sqlite(PathBuf::new())
    }
}

impl Database {
    pub fn parse(text: &str) -> Database {
        let lower = text.trim_start().to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Database::Postgres(Secret::new(text.trim()))
        } else {
            Database::Sqlite(PathBuf::from(text))
        }
    }

    /// For logs and errors: the file, or the server's address without its password or options.
    /// The address is described as the driver reads it (the password runs to the first `@`, `/`,
    /// `?` and `#` included), so no password can show through a reading of our own.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(address) => {
                let text = address.expose();
                let scheme = text.split_once("://").map_or("postgres", |(scheme, _)| scheme);
                let Ok(config) = text.parse::<tokio_postgres::Config>() else {
                    return format!("{scheme}://… (an address the PostgreSQL driver cannot read)");
                };
                let ports = config.get_ports();
                let hosts: Vec<String> = config
                    .get_hosts()
                    .iter()
                    .enumerate()
                    .map(|(i, host)| {
                        let host = match host {
                            tokio_postgres::config::Host::Tcp(name) if name.contains(':') => {
                                format!("[{name}]")
                            }
                            tokio_postgres::config::Host::Tcp(name) => name.clone(),
                            tokio_postgres::config::Host::Unix(dir) => dir.display().to_string(),
                        };
                        // One port for all hosts, or one each.
                        match ports.get(i).or(ports.first().filter(|_| ports.len() == 1)) {
                            Some(port) => format!("{host}:{port}"),
                            None => host,
                        }
                    })
                    .collect();
                let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
                format!("{scheme}://{user}{}/{}", hosts.join(","), config.get_dbname().unwrap_or_default())
            }
        }
    }
}
