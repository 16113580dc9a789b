//! A throwaway PostgreSQL server for tests: `initdb` and `postgres` from the distribution's packages
//! (Debian keeps them in `/usr/lib/postgresql/N/bin`), a cluster under `target/tmp`, listening on a
//! free port of 127.0.0.1 with trust authentication. [`Cluster`] stops the server and removes the
//! cluster when dropped, also when the test panics; the server also gets the signal for an
//! immediate shutdown if the thread that started it dies without dropping it (`setpriv
//! --pdeathsig`), and a cluster left by a killed run is cleaned up by the next one.
//!
//! PostgreSQL refuses to run as root: as root, the server runs as `nobody`, in a directory it owns.
//!
//! Without PostgreSQL installed, [`Cluster::start_or_skip`] says the tests were skipped and why,
//! unless `TESSERA_REQUIRE_POSTGRES=1` (as `.ci/run` sets): then a missing PostgreSQL fails.
#![allow(dead_code)] // Each test and bench uses some of it.

use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The superuser the cluster is made with; the tests connect as it.
const USER: &str = "tessera";

/// PostgreSQL's programs, or `None` (saying the test was skipped) when they are not installed and
/// not required.
fn bin_or_skip(test: &str) -> Option<PathBuf> {
    let required = std::env::var("TESSERA_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    let Some(bin) = find_bin() else {
        assert!(
            !required,
            "TESSERA_REQUIRE_POSTGRES=1 but PostgreSQL is not installed (initdb not found on PATH, in \
             /usr/lib/postgresql/*/bin or in TESSERA_POSTGRES_BIN): install the distribution's postgresql"
        );
        say_skipped(test, "PostgreSQL not installed (initdb not found)");
        return None;
    };
    Some(bin)
}

#[derive(Debug)]
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    server: Child,
    databases: AtomicUsize,
}

/// The directory holding `initdb`, `postgres`, `pg_isready` and `createdb`: `TESSERA_POSTGRES_BIN`,
/// else the one `initdb` on `PATH` is in (links followed), else the newest `/usr/lib/postgresql/N/bin`.
fn find_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TESSERA_POSTGRES_BIN").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    // Where the one on PATH really is: a link (`/usr/local/bin/initdb`, say) may stand alone.
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|d| std::fs::canonicalize(d.join("initdb")).ok()?.parent().map(Path::to_path_buf))
        .find(|d| d.join("postgres").is_file());
    if on_path.is_some() {
        return on_path;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// The effective user of this process (the owner of `/proc/self`).
fn euid() -> u32 {
    std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(u32::MAX)
}

/// `nobody`'s user and group ids, for running the server when this process is root.
fn nobody() -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let out = Command::new("id").args([flag, "nobody"]).output().expect("`id` runs");
        String::from_utf8_lossy(&out.stdout).trim().parse().expect("nobody has an id")
    };
    (id("-u"), id("-g"))
}

/// Whether every directory above `dir` lets other users through (so `nobody` can reach it).
fn reachable_by_others(dir: &Path) -> bool {
    dir.ancestors().skip(1).all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Stops what a run killed before it could clean up (its process gone) and removes its cluster.
fn clean_up_after_killed_runs(parent: &Path) {
    for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let name = entry.file_name();
        // `postgres-PID-N`: the test process that made it, and its how-manieth cluster.
        let pid = name.to_str().and_then(|n| n.strip_prefix("postgres-")).and_then(|p| p.split('-').next());
        let Some(pid) = pid.and_then(|p| p.parse().ok()) else {
            continue;
        };
        if alive(pid) {
            continue;
        }
        let pidfile = entry.path().join("data/postmaster.pid");
        let server =
            std::fs::read_to_string(&pidfile).ok().and_then(|t| t.lines().next()?.trim().parse().ok());
        // Only the server of that cluster: a pid written long ago may be another process's now.
        let ours = |s: &u32| {
            let command = std::fs::read(format!("/proc/{s}/cmdline")).unwrap_or_default();
            let command = String::from_utf8_lossy(&command);
            command.contains("postgres") && command.contains(&*entry.path().to_string_lossy())
        };
        if let Some(server) = server.filter(|&s: &u32| alive(s) && ours(&s)) {
            let _ = Command::new("kill").args(["-QUIT", &server.to_string()]).status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while alive(server) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = std::fs::remove_dir_all(entry.path());
    }
}

/// Says on the real standard error (not the test harness's captured output) that a test was skipped.
fn say_skipped(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
}

impl Cluster {
    /// A running server, or `None` when PostgreSQL is not installed (and not required).
    pub fn start_or_skip(test: &str) -> Option<Cluster> {
        Some(Cluster::start(&bin_or_skip(test)?, false, false))
    }

    /// As [`Cluster::start_or_skip`], the server also taking TLS connections with a certificate
    /// for `localhost` signed by a CA of its own, [`Cluster::tls_ca`] (made with `openssl`).
    pub fn start_tls_or_skip(test: &str) -> Option<Cluster> {
        let bin = bin_or_skip(test)?;
        if !on_path("openssl") {
            let required = std::env::var("TESSERA_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "TESSERA_REQUIRE_POSTGRES=1 but openssl, which makes the TLS test's certificates, is missing"
            );
            say_skipped(test, "openssl not installed (it makes the server's certificates)");
            return None;
        }
        Some(Cluster::start(&bin, false, true))
    }

    /// The CA that signed a TLS server's certificate (PEM).
    pub fn tls_ca(&self) -> PathBuf {
        self.dir.join("ca.crt")
    }

    /// The port the server listens on, at 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// As [`Cluster::start_or_skip`], with a server that syncs every commit to disk as a real
    /// one does (the tests' server does not): for the benchmarks.
    pub fn start_durable_or_skip(test: &str) -> Option<Cluster> {
        let Some(bin) = find_bin() else {
            say_skipped(test, "PostgreSQL not installed (initdb not found)");
            return None;
        };
        Some(Cluster::start(&bin, true, false))
    }

    fn start(bin: &Path, durable: bool, tls: bool) -> Cluster {
        let root = euid() == 0;
        let target_tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        // As root, the server's user must reach its directory; target/ may sit where it cannot.
        let parent = if !root || reachable_by_others(&target_tmp.join("x")) {
            target_tmp
        } else {
            std::env::temp_dir()
        };
        clean_up_after_killed_runs(&parent);
        // Clusters of one test process, started by tests running side by side, each a directory.
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("postgres-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let owner = root.then(nobody);
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).unwrap();
        }
        // As `nobody` when root; the server also dies (immediate shutdown) with the starting thread.
        let setpriv = on_path("setpriv");
        assert!(setpriv || !root, "running PostgreSQL as root needs setpriv (util-linux) to drop to nobody");
        let command = |program: &str, dies_with_us: bool| {
            let program = bin.join(program);
            if !setpriv {
                return Command::new(program);
            }
            let mut c = Command::new("setpriv");
            if let Some((uid, gid)) = owner {
                c.arg(format!("--reuid={uid}")).arg(format!("--regid={gid}")).arg("--clear-groups");
            }
            if dies_with_us {
                c.args(["--pdeathsig", "QUIT"]);
            }
            c.arg("--").arg(program);
            c
        };
        let data = dir.join("data");
        let out = command("initdb", false)
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"])
            .output()
            .expect("setpriv runs (util-linux)");
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert!(
            out.status.success(),
            "initdb failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut tls_args = Vec::new();
        if tls {
            make_certificates(&dir, owner);
            for (key, file) in [("ssl_cert_file", "server.crt"), ("ssl_key_file", "server.key")] {
                tls_args.extend(["-c".to_string(), format!("{key}={}", dir.join(file).display())]);
            }
            tls_args.extend(["-c".into(), "ssl=on".into()]);
        }
        let log_path = dir.join("server.log");
        for attempt in 0.. {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let log = std::fs::File::create(&log_path).unwrap();
            let mut server = command("postgres", true)
                .arg("-D")
                .arg(&data)
                .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
                // TCP only: the system's socket directory is not nobody's to write.
                .args(["-c", "unix_socket_directories="])
                // Enough connections for racing threads; a test server does not sync to disk.
                .args(["-c", "max_connections=200"])
                .args(if durable { &[][..] } else { &["-F", "-c", "synchronous_commit=off"][..] })
                .args(&tls_args)
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("postgres starts");
            match wait_ready(&mut server, bin, port, &log_path) {
                Ok(()) => {
                    return Cluster {
                        dir,
                        bin: bin.to_path_buf(),
                        port,
                        server,
                        databases: AtomicUsize::new(0),
                    };
                }
                Err(log) => {
                    stop(&mut server);
                    // The free port was taken meanwhile: another.
                    if attempt < 3 && log.contains("could not bind") {
                        continue;
                    }
                    let _ = std::fs::remove_dir_all(&dir);
                    panic!("the PostgreSQL server did not start:\n{log}");
                }
            }
        }
        unreachable!("the loop returns or panics")
    }

    /// A new, empty database on the server; its address.
    pub fn database(&self, name: &str) -> String {
        let n = self.databases.fetch_add(1, Ordering::Relaxed);
        let name: String = format!("t{n}_{name}")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(60)
            .collect();
        let out = Command::new(self.bin.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER, &name])
            .output()
            .expect("createdb runs");
        assert!(out.status.success(), "createdb {name}: {}", String::from_utf8_lossy(&out.stderr));
        format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port)
    }
}

/// A CA and a server certificate for `localhost` signed by it, in `dir` (the key readable by the
/// server's user alone, as PostgreSQL demands).
fn make_certificates(dir: &Path, owner: Option<(u32, u32)>) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl").current_dir(dir).args(args).output().expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let rsa = ["-newkey", "rsa:2048", "-nodes"];
    openssl(
        &[
            &["req", "-x509"][..],
            &rsa,
            &["-keyout", "ca.key", "-out", "ca.crt", "-days", "2"],
            &["-subj", "/CN=tessera test CA"],
        ]
        .concat(),
    );
    openssl(
        &[&["req"][..], &rsa, &["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]]
            .concat(),
    );
    std::fs::write(dir.join("server.ext"), "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n")
        .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    let key = dir.join("server.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    if let Some((uid, gid)) = owner {
        for file in ["server.key", "server.crt"] {
            std::os::unix::fs::chown(dir.join(file), Some(uid), Some(gid)).unwrap();
        }
    }
}

/// Waits until the server takes connections; its log if it stopped or never did.
fn wait_ready(server: &mut Child, bin: &Path, port: u16, log_path: &Path) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let log = || std::fs::read_to_string(log_path).unwrap_or_default();
    loop {
        if let Ok(Some(status)) = server.try_wait() {
            return Err(format!("postgres exited ({status})\n{}", log()));
        }
        let asked = Command::new(bin.join("pg_isready"))
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-U", USER, "-d", "postgres"])
            .output();
        if asked.as_ref().is_ok_and(|o| o.status.success()) {
            return Ok(());
        }
        if Instant::now() > deadline {
            let said = match asked {
                Ok(o) => format!(
                    "{}: {}{}",
                    o.status,
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ),
                Err(e) => e.to_string(),
            };
            return Err(format!("not ready after 60 s (pg_isready: {said})\n{}", log()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An immediate shutdown (a test cluster has nothing to keep), waited for; killed if it hangs.
fn stop(server: &mut Child) {
    let _ = Command::new("kill").args(["-QUIT", &server.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.try_wait().ok().flatten().is_none() {
        if Instant::now() > deadline {
            let _ = server.kill();
            let _ = server.wait();
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        stop(&mut self.server);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A suite run on both databases. `on_both_databases!(TYPE, SQLITE, POSTGRES; case, ...)` names
/// every case (each a `fn(&TYPE)`) in `CASES`, makes one `#[test]` per case on a fresh SQLite
/// database (`SQLITE(case name)`, a function of the calling file) in `mod sqlite`, and
/// `every_case_on_postgres`: all of them on one throwaway server, each in a database of its own
/// (`POSTGRES(address)`), through [`every_case`].
#[allow(unused_macros)]
macro_rules! on_both_databases {
    ($db:ty, $sqlite:ident, $postgres:expr; $($case:ident),* $(,)?) => {
        const CASES: &[(&str, fn(&$db))] = &[$((stringify!($case), $case)),*];
        mod sqlite {
            $(
                #[test]
                fn $case() {
                    super::$case(&super::$sqlite(stringify!($case)));
                }
            )*
        }
        #[test]
        fn every_case_on_postgres() {
            let test = format!("{}::every_case_on_postgres", module_path!());
            postgres::every_case(&test, CASES, |case, address| case(&$postgres(address)));
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both_databases;

/// Runs every case of `cases` on one throwaway server, each on a database of its own (`run` is
/// given the case and the database's address), or skips saying so. Every case runs even after
/// one fails; then the test fails naming each failed case and why.
pub fn every_case<C>(test: &str, cases: &[(&str, C)], run: impl Fn(&C, String)) {
    let Some(cluster) = Cluster::start_or_skip(test) else { return };
    let mut failed = Vec::new();
    for (name, case) in cases {
        let address = cluster.database(name);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(case, address))) {
            Ok(()) => println!("postgres: {name} ... ok"),
            Err(e) => {
                let why = e
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| e.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic");
                failed.push(format!("{name}: {why}"));
            }
        }
    }
    drop(cluster);
    assert!(
        failed.is_empty(),
        "{} of {} cases failed on PostgreSQL:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}
