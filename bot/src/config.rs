//! Configuration from a file and the environment. Secrets are read, never printed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
pub use tessera_core::secret::Secret;
pub use tessera_store::Database;

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
    /// Which of the bot's Discord shards this process connects (`discord_shards = 0-3/8`).
    pub discord_shards: Shards,
    pub matrix_homeserver: Option<String>,
    pub matrix_user: Option<String>,
    pub matrix_password: Option<Secret>,
    /// Encrypts matrix-sdk's store (end-to-end keys) at rest, when given.
    pub matrix_store_passphrase: Option<Secret>,
    /// Whose invites the Matrix bot accepts (`matrix_invites_from`).
    pub matrix_invites_from: InvitesFrom,
    /// Where the chat process serves the web pages too (`web_listen = 127.0.0.1:8080`); none
    /// when unset (`tessera web` serves them on its own).
    pub web_listen: Option<std::net::SocketAddr>,
    /// The pages' public address (`https://chess.example.org`), for the links the bot posts.
    pub web_base_url: Option<String>,
    /// The pages are reached through a reverse proxy: a visitor's address is the last one the
    /// proxy adds to `X-Forwarded-For` (for the per-address rate limit), not the proxy's own.
    pub web_behind_proxy: bool,
}

/// Whose invites the Matrix bot accepts: `matrix_invites_from = example.org, @ann:other.org`
/// (servers and users, comma-separated), `*` for anyone. Unset, the bot's own server only: a bot
/// open to every server can be pulled into any room by anyone on the federation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InvitesFrom {
    /// The bot's own server only.
    #[default]
    OwnServer,
    Anyone,
    /// These servers (`example.org`) and users (`@ann:example.org`), lowercased.
    Only(Vec<String>),
}

impl std::str::FromStr for InvitesFrom {
    type Err = String;

    fn from_str(text: &str) -> Result<InvitesFrom, String> {
        let entries: Vec<&str> = text.split(',').map(str::trim).filter(|e| !e.is_empty()).collect();
        if entries.is_empty() {
            return Ok(InvitesFrom::OwnServer);
        }
        if entries == ["*"] {
            return Ok(InvitesFrom::Anyone);
        }
        let mut allowed = Vec::new();
        for entry in entries {
            let valid = match entry.strip_prefix('@') {
                Some(user) => user.split_once(':').is_some_and(|(l, s)| !l.is_empty() && valid_server(s)),
                None => valid_server(entry),
            };
            if !valid {
                return Err(format!(
                    "\"{entry}\": write servers (example.org) and users (@ann:example.org), comma-separated, or * for anyone"
                ));
            }
            allowed.push(entry.to_lowercase());
        }
        Ok(InvitesFrom::Only(allowed))
    }
}

/// A server name as Matrix writes it: a host (name, IPv4 or `[IPv6]`) and an optional port.
fn valid_server(server: &str) -> bool {
    !server.is_empty()
        && server.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
        && !server.starts_with([':', '.', '-'])
}

impl InvitesFrom {
    /// Whether an invite from `inviter` (`@ann:example.org`) is accepted by the bot `me`.
    pub fn allows(&self, inviter: &str, me: &str) -> bool {
        let server_of = |user: &str| user.split_once(':').map(|(_, s)| s.to_lowercase());
        let inviter = inviter.to_lowercase();
        let Some(from) = server_of(&inviter) else { return false };
        match self {
            InvitesFrom::Anyone => true,
            InvitesFrom::OwnServer => server_of(me).is_some_and(|own| own == from),
            InvitesFrom::Only(allowed) => allowed.iter().any(|a| *a == inviter || *a == from),
        }
    }
}

/// The Discord shards a process runs. Discord splits a bot's servers over shards by server id
/// and requires sharding from 2,500 servers; several processes share the work by each running a
/// range of the same total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shards {
    /// As many as Discord recommends, all in this process.
    #[default]
    Auto,
    /// Shards `first` to `last` (both included) of `total`.
    Range { first: u32, last: u32, total: u32 },
}

/// Discord's own ceiling is far lower; this only keeps a typo from asking for millions.
const MAX_SHARDS: u32 = 65_536;

impl std::str::FromStr for Shards {
    type Err = String;

    /// `auto`, `N/TOTAL` (one shard) or `FIRST-LAST/TOTAL`.
    fn from_str(text: &str) -> Result<Shards, String> {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("auto") {
            return Ok(Shards::Auto);
        }
        let usage = "write `auto`, or the shards this process runs of how many in all, as `0-3/8` or `5/8`";
        let (range, total) = text.split_once('/').ok_or_else(|| format!("\"{text}\": {usage}"))?;
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("\"{text}\": {usage}"));
        let (first, last, total) = (number(first)?, number(last)?, number(total)?);
        if total == 0 || total > MAX_SHARDS {
            return Err(format!("\"{text}\": the total must be from 1 to {MAX_SHARDS}"));
        }
        if first > last || last >= total {
            return Err(format!(
                "\"{text}\": shards are numbered 0 to {}, the first of the range no greater than the last",
                total - 1
            ));
        }
        Ok(Shards::Range { first, last, total })
    }
}

impl std::fmt::Display for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shards::Auto => f.write_str("auto"),
            Shards::Range { first, last, total } => write!(f, "{first}-{last}/{total}"),
        }
    }
}

/// `address` with `password` set for its user (`postgres://user@host/db` becomes
/// `postgres://user:PASSWORD@host/db`, the password percent-encoded): so the password can live in a
/// file of its own (`database_password_file`, a container's secret) and the address in the open.
fn with_password(address: &str, password: &str) -> Result<String> {
    let (scheme, rest) = address.split_once("://").context("a PostgreSQL address starts postgres://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let Some((user, host)) = authority.rsplit_once('@') else {
        bail!("database_password needs the user in the address: postgres://USER@host/database");
    };
    if user.contains(':') {
        bail!("the database address has a password already; give it there or in database_password, not both");
    }
    let encoded = percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC);
    Ok(format!("{scheme}://{user}:{encoded}@{host}{tail}"))
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
    pub invites_from: InvitesFrom,
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
        return Ok(Some(Secret::new(v)));
    }
    if let Some(path) = get(&format!("{key}_file")).filter(|v| !v.is_empty()) {
        let v = std::fs::read_to_string(&path).with_context(|| format!("reading the {key} file {path}"))?;
        return Ok(Some(Secret::new(v.trim())));
    }
    Ok(None)
}

/// The data directory: the one given, else `$TESSERA_DATA_DIR`, else [`default_data_dir`].
pub fn data_dir(given: Option<&Path>) -> PathBuf {
    given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("TESSERA_DATA_DIR").filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(default_data_dir)
}

impl Config {
    /// Loads the file (if given or found in the data directory) and the environment.
    pub fn load(file: Option<&Path>, data_dir: Option<&Path>) -> Result<Config> {
        let env = |key: &str| std::env::var(format!("TESSERA_{}", key.to_ascii_uppercase())).ok();
        let data_dir = self::data_dir(data_dir);
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
            database: match (secret(&get, "database")?, secret(&get, "database_password")?) {
                (Some(d), None) => Database::parse(d.expose()),
                (Some(d), Some(password)) => match Database::parse(d.expose()) {
                    Database::Postgres(address) => {
                        Database::Postgres(Secret::new(with_password(address.expose(), password.expose())?))
                    }
                    Database::Sqlite(_) => {
                        bail!("database_password is for a PostgreSQL database, not a file")
                    }
                },
                (None, Some(_)) => bail!("database_password is given but no PostgreSQL database address"),
                (None, None) => Database::Sqlite(data_dir.join("tessera.sqlite")),
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
            discord_shards: match get("discord_shards") {
                Some(s) => s.parse().map_err(|e: String| anyhow::anyhow!("discord_shards: {e}"))?,
                None => Shards::Auto,
            },
            matrix_homeserver: get("matrix_homeserver"),
            matrix_user: get("matrix_user"),
            matrix_password: secret(&get, "matrix_password")?,
            matrix_store_passphrase: secret(&get, "matrix_store_passphrase")?,
            matrix_invites_from: match get("matrix_invites_from") {
                Some(s) => s.parse().map_err(|e: String| anyhow::anyhow!("matrix_invites_from: {e}"))?,
                None => InvitesFrom::OwnServer,
            },
            web_listen: match get("web_listen").filter(|l| !l.is_empty()) {
                Some(l) => Some(l.parse().with_context(|| {
                    format!("web_listen must be an address and port like 127.0.0.1:8080, not \"{l}\"")
                })?),
                None => None,
            },
            web_base_url: match get("web_base_url").filter(|u| !u.is_empty()) {
                Some(u) if u.starts_with("https://") || u.starts_with("http://") => {
                    Some(u.trim_end_matches('/').to_string())
                }
                Some(u) => bail!("web_base_url must start with https:// (or http://), not \"{u}\""),
                None => None,
            },
            web_behind_proxy: match get("web_behind_proxy").as_deref() {
                None | Some("" | "false" | "no" | "0") => false,
                Some("true" | "yes" | "1") => true,
                Some(other) => bail!("web_behind_proxy is true or false, not \"{other}\""),
            },
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
            invites_from: self.matrix_invites_from.clone(),
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
    fn web_settings_are_read_and_bad_ones_refused() {
        let dir = std::env::temp_dir().join(format!("tessera-config-web-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = dir.join("config");
        std::fs::write(
            &cfg,
            "web_listen = 127.0.0.1:8080\nweb_base_url = https://chess.example.org/\nweb_behind_proxy = true\n",
        )
        .unwrap();
        let c = Config::load(Some(&cfg), Some(&dir)).unwrap();
        assert_eq!(c.web_listen, Some("127.0.0.1:8080".parse().unwrap()));
        assert_eq!(c.web_base_url.as_deref(), Some("https://chess.example.org"), "no trailing slash");
        assert!(c.web_behind_proxy);
        for (bad, key) in [
            ("web_listen = localhost\n", "web_listen"),
            ("web_base_url = chess.example.org\n", "web_base_url"),
            ("web_behind_proxy = maybe\n", "web_behind_proxy"),
        ] {
            std::fs::write(&cfg, bad).unwrap();
            let e = Config::load(Some(&cfg), Some(&dir)).unwrap_err().to_string();
            assert!(e.contains(key), "{bad}: {e}");
        }
        std::fs::write(&cfg, "").unwrap();
        let c = Config::load(Some(&cfg), Some(&dir)).unwrap();
        assert_eq!((c.web_listen, c.web_base_url, c.web_behind_proxy), (None, None, false));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_database_password_from_its_own_file_joins_the_address() {
        let dir = std::env::temp_dir().join(format!("tessera-config-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pw"), "p@ss:w/rd é\n").unwrap();
        let cfg = dir.join("config");
        let config = |lines: &str| {
            std::fs::write(&cfg, lines).unwrap();
            Config::load(Some(&cfg), Some(&dir))
        };
        let pw_file = format!("database_password_file = {}\n", dir.join("pw").display());
        let c = config(&format!("database = postgres://tessera@db:5432/games?sslmode=require\n{pw_file}"))
            .unwrap();
        let Database::Postgres(address) = &c.database else { panic!("{:?}", c.database) };
        let parsed: tokio_postgres::Config = address.expose().parse().unwrap();
        assert_eq!(parsed.get_password(), Some("p@ss:w/rd é".as_bytes()));
        assert_eq!(parsed.get_user(), Some("tessera"));
        assert_eq!(parsed.get_dbname(), Some("games"));
        assert_eq!(c.database.describe(), "postgres://tessera@db:5432/games");
        assert!(!format!("{c:?}").contains("p@ss"));
        for (lines, why) in [
            (format!("database = postgres://db/games\n{pw_file}"), "the user"),
            (format!("database = postgres://u:x@db/games\n{pw_file}"), "a password already"),
            (format!("database = games.sqlite\n{pw_file}"), "not a file"),
            (pw_file.clone(), "no PostgreSQL database address"),
        ] {
            let e = config(&lines).unwrap_err().to_string();
            assert!(e.contains(why), "{lines}: {e}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn invite_allowlists_are_read_and_matched() {
        let me = "@tessera:home.org";
        let own = InvitesFrom::default();
        assert!(own.allows("@ann:home.org", me));
        assert!(own.allows("@Ann:HOME.org", me));
        assert!(!own.allows("@ann:other.org", me));
        assert!(!own.allows("@ann:home.org.evil", me));
        assert!(!own.allows("not-a-user", me));
        assert_eq!("".parse(), Ok(InvitesFrom::OwnServer));
        assert_eq!(" * ".parse(), Ok(InvitesFrom::Anyone));
        assert!(InvitesFrom::Anyone.allows("@x:anywhere.net", me));
        let list: InvitesFrom = "Example.org, @Bob:other.org ,localhost:8448".parse().unwrap();
        assert_eq!(
            list,
            InvitesFrom::Only(vec!["example.org".into(), "@bob:other.org".into(), "localhost:8448".into()])
        );
        assert!(list.allows("@ann:example.org", me));
        assert!(list.allows("@bob:other.org", me));
        assert!(!list.allows("@carol:other.org", me), "a user entry admits that user alone");
        assert!(list.allows("@x:localhost:8448", me));
        assert!(!list.allows("@x:localhost", me));
        assert!(!list.allows("@ann:home.org", me), "a list replaces the own-server default");
        assert!(!list.allows("@ann:sub.example.org", me));
        for bad in ["@bob", "@:x.org", "ex ample.org", "*, x.org", "@a:", ".org", "a/b"] {
            let why = bad.parse::<InvitesFrom>().unwrap_err();
            assert!(why.contains("comma-separated"), "{bad}: {why}");
        }
    }

    #[test]
    fn shard_ranges_are_read_and_nonsense_is_refused() {
        assert_eq!("auto".parse(), Ok(Shards::Auto));
        assert_eq!("".parse(), Ok(Shards::Auto));
        assert_eq!("0-3/8".parse(), Ok(Shards::Range { first: 0, last: 3, total: 8 }));
        assert_eq!(" 5 / 8 ".parse(), Ok(Shards::Range { first: 5, last: 5, total: 8 }));
        assert_eq!("4-7/8".parse::<Shards>().unwrap().to_string(), "4-7/8");
        for bad in ["3-1/8", "0-8/8", "8/8", "0/0", "x/8", "1-2", "-1/4", "1-2-3/4", "0/99999999", "٣/8"] {
            let why = bad.parse::<Shards>().unwrap_err();
            assert!(why.contains(bad.trim()), "{bad}: {why}");
        }
    }

    #[test]
    fn a_postgres_address_chooses_postgres_and_its_password_is_never_shown() {
        let db = Database::parse("postgres://tessera:hunter2@db.example:5432/games?sslmode=disable");
        assert!(matches!(&db, Database::Postgres(_)));
        assert_eq!(db.describe(), "postgres://tessera@db.example:5432/games");
        assert!(!format!("{db:?}").contains("hunter2"));
        assert!(matches!(Database::parse("PostgreSQL://h/db"), Database::Postgres(_)));
        // The port the driver will use, written or not.
        assert_eq!(Database::parse("postgresql://localhost").describe(), "postgresql://localhost:5432/");
        // The driver reads the password up to the first `@`: all of it stays hidden.
        for (address, described) in [
            ("postgres://tessera:pa/ss@db/games", "postgres://tessera@db:5432/games"),
            ("postgres://tessera:p?w#x@db:6000/games?sslmode=require", "postgres://tessera@db:6000/games"),
            ("postgres://tessera:x#y/z@[::1]:5433/g", "postgres://tessera@[::1]:5433/g"),
        ] {
            let db = Database::parse(address);
            let Database::Postgres(secret) = &db else { panic!("{address}") };
            assert!(secret.expose().parse::<tokio_postgres::Config>().is_ok(), "the driver reads {address}");
            assert_eq!(db.describe(), described, "{address}");
        }
        assert!(!Database::parse("postgres://u:se%cret@h:notaport/d").describe().contains("cret"));
        // Anything else is a file, relative or not, even one named like a server.
        assert!(
            matches!(Database::parse("games.sqlite"), Database::Sqlite(p) if p == Path::new("games.sqlite"))
        );
        assert!(matches!(Database::parse("/srv/postgres/x"), Database::Sqlite(_)));
    }
}
