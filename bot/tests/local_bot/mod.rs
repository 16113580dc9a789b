//! A real `tessera local` process driven through its standard input and output, for the kill -9
//! and race drivers. The terminal prints a prompt (`NAME@#CHANNEL> `) before reading each line, so
//! a line's answer is exactly the text between the prompt before it and the prompt after it.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What every racer and the kill driver must never see: the generic failure reply.
pub const INTERNAL_ERROR: &str = "something went wrong";

#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
    eof: bool,
}

pub struct LocalBot {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Arc<(Mutex<Output>, Condvar)>,
    reader: Option<JoinHandle<()>>,
    user: String,
    channel: String,
    /// The prompt expected after each line sent (the first is the one before any line).
    prompts: Vec<String>,
    /// Prompts found so far; `answers[k]` is line k's answer.
    found: usize,
    pub answers: Vec<String>,
    /// What the process printed before its first prompt: the help, and what an earlier run left
    /// to show (the bot's turns, stored notices).
    pub preamble: String,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl LocalBot {
    /// Starts `tessera local` on `data_dir`, its standard error appended to `log`. Settings from
    /// the environment (a Discord token, another database) are left out; pictures are small.
    pub fn spawn(data_dir: &Path, log: &Path) -> LocalBot {
        LocalBot::spawn_on(data_dir, log, None)
    }

    /// As [`LocalBot::spawn`], keeping the games in `database` (a PostgreSQL address) when given.
    pub fn spawn_on(data_dir: &Path, log: &Path, database: Option<&str>) -> LocalBot {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("TESSERA_") {
                cmd.env_remove(key);
            }
        }
        if let Some(database) = database {
            cmd.env("TESSERA_DATABASE", database);
        }
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("the log file");
        let mut child = cmd
            .arg("--data-dir")
            .arg(data_dir)
            .arg("local")
            .env("TESSERA_BOARD_SIZE", "64")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("tessera starts");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("stdout");
        let out: Arc<(Mutex<Output>, Condvar)> = Arc::default();
        let shared = out.clone();
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                let n = stdout.read(&mut chunk).unwrap_or(0);
                let (lock, ready) = &*shared;
                let mut o = lock.lock().unwrap();
                if n == 0 {
                    o.eof = true;
                    ready.notify_all();
                    return;
                }
                o.bytes.extend_from_slice(&chunk[..n]);
                ready.notify_all();
            }
        });
        LocalBot {
            child,
            stdin,
            out,
            reader: Some(reader),
            user: "alice".into(),
            channel: "main".into(),
            prompts: vec!["alice@#main> ".into()],
            found: 0,
            answers: Vec::new(),
            preamble: String::new(),
        }
    }

    /// Lines sent so far.
    pub fn sent(&self) -> usize {
        self.prompts.len() - 1
    }

    /// Writes lines at once (one write), without waiting; returns the index of the first.
    pub fn send(&mut self, lines: &[String]) -> usize {
        let first = self.sent();
        let mut buf = String::new();
        for line in lines {
            assert!(!line.contains('\n'));
            let mut words = line.trim().strip_prefix('/').unwrap_or("").split_whitespace();
            match (words.next(), words.next()) {
                (Some("as"), Some(name)) => self.user = name.to_string(),
                (Some("channel"), Some(name)) => self.channel = name.to_string(),
                _ => {}
            }
            self.prompts.push(format!("{}@#{}> ", self.user, self.channel));
            buf.push_str(line);
            buf.push('\n');
        }
        if let Some(stdin) = &mut self.stdin {
            // A killed process no longer reads: that is for the caller to notice.
            let _ = stdin.write_all(buf.as_bytes()).and_then(|_| stdin.flush());
        }
        first
    }

    /// Moves whatever complete answers have arrived into `answers`; returns the output read past
    /// the last prompt (a partial answer) and whether the output has ended.
    fn parse(&mut self, o: &mut Output) -> (String, bool) {
        while self.found < self.prompts.len() {
            let prompt = self.prompts[self.found].as_bytes();
            let Some(at) = find(&o.bytes, prompt) else { break };
            if self.found > 0 {
                self.answers.push(String::from_utf8_lossy(&o.bytes[..at]).into_owned());
            } else {
                self.preamble = String::from_utf8_lossy(&o.bytes[..at]).into_owned();
            }
            o.bytes.drain(..at + prompt.len());
            self.found += 1;
        }
        (String::from_utf8_lossy(&o.bytes).into_owned(), o.eof)
    }

    /// Waits for the answer to line `k`; None if the process ended first or `timeout` passed.
    pub fn wait(&mut self, k: usize, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        let out = self.out.clone();
        let (lock, ready) = &*out;
        let mut o = lock.lock().unwrap();
        loop {
            let (_, eof) = self.parse(&mut o);
            if self.answers.len() > k {
                return Some(self.answers[k].clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if eof || left.is_zero() {
                return None;
            }
            o = ready.wait_timeout(o, left).unwrap().0;
        }
    }

    /// Waits for the first prompt: the database is open and the bot reads its input.
    pub fn ready(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let out = self.out.clone();
        let (lock, ready) = &*out;
        let mut o = lock.lock().unwrap();
        loop {
            let (partial, eof) = self.parse(&mut o);
            if self.found > 0 {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!eof && !left.is_zero(), "tessera did not start: {partial}");
            o = ready.wait_timeout(o, left).unwrap().0;
        }
    }

    /// Waits for the answers to every line sent; panics with the output so far if they do not
    /// come within `timeout`.
    pub fn wait_all(&mut self, timeout: Duration) -> &[String] {
        let last = self.sent();
        if last > 0 && self.wait(last - 1, timeout).is_none() {
            panic!(
                "tessera did not answer {} lines within {timeout:?}; answers so far: {:#?}",
                last, self.answers
            );
        }
        &self.answers
    }

    /// SIGKILL (on Unix), then collects every complete answer printed before it; returns the
    /// partial answer to the line the process was working on, if any.
    pub fn kill(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stdin = None;
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        let out = self.out.clone();
        let mut o = out.0.lock().unwrap();
        self.parse(&mut o).0
    }

    /// Ends the session as a user would (end of input) and waits for the process.
    pub fn quit(mut self) {
        self.stdin = None;
        let status = self.child.wait().unwrap();
        assert!(status.success(), "tessera exited with {status}");
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
    }
}

impl Drop for LocalBot {
    fn drop(&mut self) {
        if self.reader.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A small deterministic generator (SplitMix64): the same seed drives the same run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A count from the environment (for long runs), else `default`.
pub fn count_from_env(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A fresh directory under the system's temporary one, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tessera-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
