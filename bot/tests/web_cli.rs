//! The web pages as the binary serves them: beside the local mode when `web_listen` is set (a
//! tournament published in the terminal opens in a browser), and alone with `tessera web`, from the
//! same database; a taken port stops the start; SIGTERM stops `tessera web` cleanly.

use crate::talk;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `GET path` on the port, waiting up to ten seconds for the server to listen: status and body.
fn get(port: u16, path: &str) -> (u16, String) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("nothing listens on {port}: {e}"),
        }
    };
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer)
}

fn tessera(data_dir: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("TESSERA_DISCORD_TOKEN")
        .env_remove("TESSERA_MATRIX_HOMESERVER")
        .env_remove("TESSERA_WEB_LISTEN");
    command
}

/// Reads the local mode's output until a line holds `want`; that line.
fn read_until(out: &mut impl BufRead, want: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the local mode ended before saying {want:?}");
        if line.contains(want) {
            return line;
        }
    }
}

fn stop(mut child: Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("did not stop");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_local_mode_and_tessera_web_serve_a_published_tournament() {
    let dir = std::env::temp_dir().join(format!("tessera-web-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let beside = free_port();
    let mut local = tessera(&dir)
        .arg("local")
        .env("TESSERA_WEB_LISTEN", format!("127.0.0.1:{beside}"))
        .env("TESSERA_WEB_BASE_URL", "https://chess.example.org")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = local.stdin.take().unwrap();
    let mut output = BufReader::new(local.stdout.take().unwrap());
    let script = [
        "/as org",
        "!t tournament create swiss chess rounds 2 name Web Cup",
        "/as ann",
        "!t tournament join",
        "/as ben",
        "!t tournament join",
        "/as org",
        "!t tournament start",
        "!t tournament publish",
    ];
    for line in script {
        writeln!(input, "{line}").unwrap();
    }
    let said = read_until(&mut output, "is on the web");
    let at = said.find("https://chess.example.org/t/").expect(&said);
    let path: String = said[at + "https://chess.example.org".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '/')
        .collect();
    let (status, page) = get(beside, &path);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Web Cup") && page.contains("ann") && page.contains("ben"), "{page}");
    writeln!(input, "/quit").unwrap();
    drop(input);
    assert!(stop(local).success());

    // The same database, served alone.
    let alone = free_port();
    let web = tessera(&dir)
        .args(["web", "--listen", &format!("127.0.0.1:{alone}")])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, page) = get(alone, &path);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Web Cup"), "{page}");
    let (unknown, _) = get(alone, "/t/aaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_eq!(unknown, 404);
    // A second server on the taken port refuses to start, saying why.
    let taken = tessera(&dir).args(["web", "--listen", &format!("127.0.0.1:{alone}")]).output().unwrap();
    assert!(!taken.status.success());
    assert!(String::from_utf8_lossy(&taken.stderr).contains("listening for the web"), "{taken:?}");
    let pid = web.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(stop(web).success(), "SIGTERM stops it cleanly");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_pages_beside_the_chat_stop_with_it_ending_their_streams() {
    use std::sync::Arc;
    use tessera_core::service::Service;
    use tessera_store::SqliteStore;

    let service = Arc::new(Service::new(SqliteStore::in_memory().unwrap()));
    talk::say_at(
        &*service,
        "club",
        "org",
        false,
        "!t tournament create swiss chess rounds 3 name Stop",
        talk::T0,
    );
    let published =
        talk::text(&talk::say_at(&*service, "club", "org", false, "!t tournament publish", talk::T0 + 60));
    let at = published.find("/t/").expect(&published);
    let token: String = published[at + 3..].chars().take_while(char::is_ascii_alphanumeric).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(tessera_bot::web::bind("127.0.0.1:0".parse().unwrap())).unwrap();
    let addr = listener.local_addr().unwrap();
    let pages = runtime.block_on(async {
        tessera_bot::web::Served::start(service.clone(), listener, tessera_web::WebOptions::default())
    });
    // A visitor following the page live: the stream is open once its first event came.
    let (opened, open) = std::sync::mpsc::channel();
    let visitor = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(stream, "GET /t/{token}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut lines = BufReader::new(stream);
        let mut line = String::new();
        while !line.starts_with("data:") {
            line.clear();
            assert!(lines.read_line(&mut line).unwrap() > 0, "the stream ended before its first event");
        }
        opened.send(()).unwrap();
        // Then read to its end: the server ends it at shutdown.
        let mut rest = String::new();
        lines.read_to_string(&mut rest).is_ok()
    });
    open.recv_timeout(Duration::from_secs(10)).expect("the stream opened");
    let started = Instant::now();
    assert!(runtime.block_on(pages.stop(Duration::from_secs(5))), "the pages stopped within 5 s");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(visitor.join().unwrap(), "the stream was ended, not left to time out");
    assert!(TcpStream::connect(addr).is_err(), "nothing listens any more");
}
