//! Configuration from a file and the environment. Secrets are read, never printed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Settings; each may come from the config file (`key = value` lines) or the environment
/// (`TESSERA_KEY`), the environment winning.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub data_dir: PathBuf,
    pub database: Database,
    pub board_size: u32,
    pub theme: String,
    /// Present only when a Discord token is configured (the value itself is never logged).
    pub discord_token: Option<Secret>,
    /// Register the slash commands in this one Discord server (they show at once) instead of globally.
    pub discord_guild: Option<u64>,
    pub matrix_homeserver: Option<String>,
    pub matrix_user: Option<String>,
    pub matrix_password: Option<Secret>,
    /// Encrypts matrix-sdk's store (end-to-end keys) at rest, when given.
    pub matrix_store_passphrase: Option<Secret>,
}

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
            Database::Postgres(Secret(text.trim().to_string()))
        } else {
            Database::Sqlite(PathBuf::from(text))
        }
    }

    /// For logs and errors: the file, or the server's address without its password or options.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(address) => {
                let text = address.expose();
                let (scheme, rest) = text.split_once("://").unwrap_or(("postgres", text));
                let rest = rest.split(['?', '#']).next().unwrap_or_default();
                let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
                let authority = match authority.rsplit_once('@') {
                    Some((user, host)) => format!("{}@{host}", user.split(':').next().unwrap_or_default()),
                    None => authority.to_string(),
                };
                format!("{scheme}://{authority}/{path}")
            }
        }
    }
}

/// What the Matrix adapter (`matrix.rs`) needs to connect: plain data, kept here so the
/// adapter depends on the configuration and not the other way round.
#[derive(Clone, Debug)]
pub struct MatrixConfig {
    pub homeserver: String,
    pub user: String,
    pub password: Secret,
    /// matrix-sdk's own store (sync state, end-to-end keys) and the saved session.
    pub store_dir: PathBuf,
    pub store_passphrase: Option<Secret>,
}

/// A secret that never shows in logs or debug output.
#[derive(Clone, Default)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Where Tessera keeps its data when nothing says otherwise: `$XDG_DATA_HOME/tessera`, or
/// `~/.local/share/tessera`, or `./tessera-data`.
pub fn default_data_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("tessera");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join(".local/share/tessera");
    }
    PathBuf::from("tessera-data")
}

fn parse_file(text: &str) -> Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            bail!("line {}: expected `key = value`", n + 1);
        };
        pairs.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
    }
    Ok(pairs)
}

/// Reads a secret given directly (`KEY`) or as a file to read (`KEY_FILE`).
fn secret(get: &dyn Fn(&str) -> Option<String>, key: &str) -> Result<Option<Secret>> {
    if let Some(v) = get(key).filter(|v| !v.is_empty()) {
        return Ok(Some(Secret(v)));
    }
    if let Some(path) = get(&format!("{key}_file")).filter(|v| !v.is_empty()) {
        let v = std::fs::read_to_string(&path).with_context(|| format!("reading the {key} file {path}"))?;
        return Ok(Some(Secret(v.trim().to_string())));
    }
    Ok(None)
}

impl Config {
    /// Loads the file (if given or found in the data directory) and the environment.
    pub fn load(file: Option<&Path>, data_dir: Option<&Path>) -> Result<Config> {
        let env = |key: &str| std::env::var(format!("TESSERA_{}", key.to_ascii_uppercase())).ok();
        let data_dir = data_dir
            .map(Path::to_path_buf)
            .or_else(|| env("data_dir").map(PathBuf::from))
            .unwrap_or_else(default_data_dir);
        let file = file.map(Path::to_path_buf).or_else(|| env("config").map(PathBuf::from)).or_else(|| {
            let p = data_dir.join("config");
            p.exists().then_some(p)
        });
        let pairs = match &file {
            Some(f) => {
                parse_file(&std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?)?
            }
            None => Vec::new(),
        };
        let get =
            |key: &str| env(key).or_else(|| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()));
        let board_size = match get("board_size") {
            Some(s) => {
                s.parse().with_context(|| format!("board_size must be a number of pixels, not \"{s}\""))?
            }
            None => 512,
        };
        Ok(Config {
            // `database_file` too: a PostgreSQL address may hold a password.
            database: match secret(&get, "database")? {
                Some(d) => Database::parse(d.expose()),
                None => Database::Sqlite(data_dir.join("tessera.sqlite")),
            },
            data_dir,
            board_size,
            theme: get("theme").unwrap_or_else(|| "walnut".into()),
            discord_token: secret(&get, "discord_token")?,
            discord_guild: match get("discord_guild").filter(|g| !g.is_empty()) {
                Some(g) => Some(
                    g.parse().with_context(|| format!("discord_guild must be a server id, not \"{g}\""))?,
                ),
                None => None,
            },
            matrix_homeserver: get("matrix_homeserver"),
            matrix_user: get("matrix_user"),
            matrix_password: secret(&get, "matrix_password")?,
            matrix_store_passphrase: secret(&get, "matrix_store_passphrase")?,
        })
    }

    pub fn has_chat_credentials(&self) -> bool {
        self.discord_token.is_some() || self.matrix().is_some()
    }

    /// The Matrix connection, when homeserver, user and password are all configured.
    pub fn matrix(&self) -> Option<MatrixConfig> {
        Some(MatrixConfig {
            homeserver: self.matrix_homeserver.clone()?,
            user: self.matrix_user.clone()?,
            password: self.matrix_password.clone()?,
            store_dir: self.data_dir.join("matrix"),
            store_passphrase: self.matrix_store_passphrase.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_values_and_secrets() {
        let dir = std::env::temp_dir().join(format!("tessera-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("token"), "s3cret\n").unwrap();
        let cfg = dir.join("config");
        std::fs::write(
            &cfg,
            format!(
                "# comment\nboard_size = 400\ntheme = \"slate\"\ndiscord_token_file = {}\n",
                dir.join("token").display()
            ),
        )
        .unwrap();
        let c = Config::load(Some(&cfg), Some(&dir)).unwrap();
        assert_eq!((c.board_size, c.theme.as_str()), (400, "slate"));
        assert_eq!(c.discord_token.as_ref().map(Secret::expose), Some("s3cret"));
        assert!(!format!("{c:?}").contains("s3cret"), "secrets never show in debug output");
        assert!(matches!(&c.database, Database::Sqlite(p) if *p == dir.join("tessera.sqlite")));
        std::fs::write(&cfg, "board_size = big\n").unwrap();
        assert!(Config::load(Some(&cfg), Some(&dir)).unwrap_err().to_string().contains("board_size"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_postgres_address_chooses_postgres_and_its_password_is_never_shown() {
        let db = Database::parse("postgres://tessera:hunter2@db.example:5432/games?sslmode=disable");
        assert!(matches!(&db, Database::Postgres(_)));
        assert_eq!(db.describe(), "postgres://tessera@db.example:5432/games");
        assert!(!format!("{db:?}").contains("hunter2"));
        assert!(matches!(Database::parse("PostgreSQL://h/db"), Database::Postgres(_)));
        assert_eq!(Database::parse("postgresql://localhost").describe(), "postgresql://localhost/");
        // Anything else is a file, relative or not, even one named like a server.
        assert!(
            matches!(Database::parse("games.sqlite"), Database::Sqlite(p) if p == Path::new("games.sqlite"))
        );
        assert!(matches!(Database::parse("/srv/postgres/x"), Database::Sqlite(_)));
    }
}
