//! The local mode: a terminal that behaves like a chat channel. Type messages as a user; switch
//! users with `/as NAME`. Boards are written as PNG files and shown as text diagrams.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Result;

use tessera_core::service::{Incoming, Reply, Service, User, unix_now};
use tessera_core::store::Store;

pub const PLATFORM: &str = "local";

/// The bot's own name in the terminal: `@tessera` challenges it to a practice game.
pub const BOT: &str = "tessera";

/// The channel setting that lists a local channel's admins, one user id per line.
const ADMINS: &str = "admins";

const LOCAL_HELP: &str = "Local mode: type what a player would write in a channel, e.g.
  !t challenge @bob hans38        then  /as bob   and  !t accept
  @@e4   (a move, written plainly in the channel)
  !t challenge @tessera chess level 2   (a practice game against me: I answer at once)
Local commands: /as NAME (speak as NAME) · /channel NAME · /admin NAME (make NAME an admin of this channel;
  the first to speak in a channel is its admin) · /wait HOURS (let time pass) · /help · /quit";

/// The terminal session's state: who is speaking, where, and how much time has been skipped.
#[derive(Debug)]
pub struct Session {
    pub user: User,
    pub channel: String,
    pub clock_offset: i64,
    pub boards_dir: PathBuf,
    pub images_written: u32,
}

/// Mentions in local text are `@name` words.
pub fn mentions(text: &str) -> Vec<User> {
    text.split_whitespace()
        .filter(|w| tessera_core::commands::is_mention(w))
        .filter_map(|w| w.strip_prefix('@'))
        .map(|n| User::new(n.to_lowercase(), n))
        .collect()
}

impl Session {
    pub fn new(boards_dir: PathBuf) -> Session {
        // Numbering goes on from an earlier run's pictures rather than overwriting them.
        let images_written = std::fs::read_dir(&boards_dir)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_prefix("board-")?.strip_suffix(".png")?.parse::<u32>().ok()
            })
            .max()
            .unwrap_or(0);
        Session {
            user: User::new("alice", "alice"),
            channel: "main".into(),
            clock_offset: 0,
            boards_dir,
            images_written,
        }
    }

    /// Handles one line; returns the text to print, or None to quit. The notices it shows are
    /// marked sent at once (see [`Session::answer`] for printing first).
    pub fn line<S: Store>(&mut self, service: &Service<S>, line: &str) -> Option<String> {
        let (out, posted) = self.answer(service, line)?;
        posted.into_iter().for_each(|n| service.notice_sent(n));
        Some(out)
    }

    /// Handles one line: the text to print and the stored notices it shows, to be marked sent
    /// once printed ([`tessera_core::outbox`]); None to quit.
    pub fn answer<S: Store>(&mut self, service: &Service<S>, line: &str) -> Option<(String, Vec<i64>)> {
        let mut posted = Vec::new();
        let out = self.answer_marking(service, line, &mut posted)?;
        Some((out, posted))
    }

    /// Whether the author administers this channel: its first speaker does, and whoever
    /// `/admin` named.
    fn is_admin<S: Store>(&self, service: &Service<S>) -> bool {
        match self.admins(service) {
            Ok(Some(admins)) => admins.contains(&self.user.id),
            Ok(None) => {
                service.store().set_channel_setting(PLATFORM, &self.channel, ADMINS, &self.user.id).is_ok()
            }
            Err(_) => false,
        }
    }

    /// This channel's admins; `None` before anyone has spoken here.
    fn admins<S: Store>(&self, service: &Service<S>) -> anyhow::Result<Option<Vec<String>>> {
        let stored = service.store().channel_setting(PLATFORM, &self.channel, ADMINS)?;
        Ok(stored.map(|a| a.lines().map(str::to_string).collect()))
    }

    fn answer_marking<S: Store>(
        &mut self,
        service: &Service<S>,
        line: &str,
        posted: &mut Vec<i64>,
    ) -> Option<String> {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('/') {
            let mut words = rest.split_whitespace();
            return match (words.next(), words.next()) {
                (Some("quit" | "exit" | "q"), _) => None,
                (Some("as"), Some(name)) if name.eq_ignore_ascii_case(BOT) => {
                    Some(format!("({BOT} is me, the bot: I play only my own turns; speak as someone else)"))
                }
                (Some("as"), Some(name)) => {
                    self.user = User::new(name.to_lowercase(), name);
                    Some(format!("(you are now {name})"))
                }
                (Some("admin"), Some(name)) => {
                    let id = name.to_lowercase();
                    // Naming an admin first makes the one who names them the channel's first.
                    let added = self.admins(service).and_then(|admins| {
                        let mut admins = admins.unwrap_or_else(|| vec![self.user.id.clone()]);
                        if !admins.contains(&id) {
                            admins.push(id);
                        }
                        service.store().set_channel_setting(
                            PLATFORM,
                            &self.channel,
                            ADMINS,
                            &admins.join("\n"),
                        )
                    });
                    match added {
                        Ok(()) => Some(format!("({name} is now an admin of #{})", self.channel)),
                        Err(e) => Some(format!("(could not make {name} an admin: {e})")),
                    }
                }
                (Some("channel"), Some(name)) => {
                    self.channel = name.to_string();
                    Some(format!("(now in #{name})"))
                }
                (Some("wait"), Some(h)) => match h.parse::<i64>() {
                    Ok(hours) if hours > 0 => {
                        self.clock_offset += hours * 3600;
                        let notices = service
                            .tick_for(unix_now() + self.clock_offset, Some(&[PLATFORM]))
                            .unwrap_or_default();
                        let mut out = format!("({hours} hours pass)");
                        // As any reply: a loss on time comes with the final board and the GIF.
                        for n in notices {
                            out.push('\n');
                            posted.extend(n.outbox);
                            out.push_str(&self.show(&n.into_reply()));
                        }
                        Some(out)
                    }
                    _ => Some("(say how many hours, like /wait 24)".into()),
                },
                (Some("help"), _) => Some(LOCAL_HELP.into()),
                _ => Some(format!("(unknown local command; {})", "try /help")),
            };
        }
        if line.is_empty() {
            return Some(String::new());
        }
        let mentioned = mentions(line);
        let is_admin = self.is_admin(service);
        let msg = Incoming {
            platform: PLATFORM,
            channel: &self.channel,
            author: &self.user,
            is_admin,
            text: line,
            mentions: &mentioned,
            now: unix_now() + self.clock_offset,
            thread: None,
        };
        let replies = service.handle(&msg);
        posted.extend(replies.iter().filter_map(|r| r.outbox));
        let mut shown: Vec<String> = replies.iter().map(|r| self.show(r)).collect();
        shown.extend(self.bot_turns(service));
        shown.extend(self.waiting_notices(service, posted));
        Some(shown.join("\n"))
    }

    /// The notices waiting in the outbox (a crash left them unposted, or the clock wrote them),
    /// shown; their ids go to `posted`.
    pub fn waiting_notices<S: Store>(&mut self, service: &Service<S>, posted: &mut Vec<i64>) -> Vec<String> {
        let notices = service.outbox_due(Some(&[PLATFORM]));
        posted.extend(notices.iter().filter_map(|n| n.outbox));
        notices.into_iter().map(|n| self.show(&n.into_reply())).collect()
    }

    /// The bot's turns waiting in this terminal's games, played and shown, then its hints and
    /// analyses (an analysis's answer comes through the outbox). One typist, one terminal: the
    /// bot's answer is awaited here rather than on a worker thread.
    pub fn bot_turns<S: Store>(&mut self, service: &Service<S>) -> Vec<String> {
        let mut shown = Vec::new();
        let queue = service.practice_queue();
        while let Some(job) = queue.try_pop().or_else(|| queue.try_pop_later()) {
            for notice in service.practice_job(&job, unix_now() + self.clock_offset, &mut || true) {
                shown.push(self.show(&notice.into_reply()));
            }
        }
        shown
    }

    fn show(&mut self, reply: &Reply) -> String {
        // Private words alone (a daily digest): the terminal is its one player's.
        if reply.only_direct() {
            let words: Vec<String> =
                reply.direct.iter().map(|(_, text)| format!("[tessera, privately] {text}")).collect();
            return words.join("\n");
        }
        let mut out = format!("[tessera] {}", reply.text);
        if let Some(diagram) = &reply.diagram {
            out.push('\n');
            out.push_str(diagram.trim_end());
        }
        if let Some(gif) = &reply.animation {
            let path = self.boards_dir.join(format!("game-{:04}.gif", self.images_written + 1));
            match std::fs::create_dir_all(&self.boards_dir).and_then(|_| std::fs::write(&path, gif)) {
                Ok(()) => out.push_str(&format!("\n(the game as a GIF: {})", path.display())),
                Err(e) => out.push_str(&format!("\n(could not write the game's GIF: {e})")),
            }
        }
        if let Some(png) = &reply.image {
            self.images_written += 1;
            let path = self.boards_dir.join(format!("board-{:04}.png", self.images_written));
            match std::fs::create_dir_all(&self.boards_dir).and_then(|_| std::fs::write(&path, png)) {
                Ok(()) => out.push_str(&format!("\n(board picture: {})", path.display())),
                Err(e) => out.push_str(&format!("\n(could not write the board picture: {e})")),
            }
        }
        // Exports and long answers in whole, beside the pictures.
        for file in &reply.files {
            let name: String = file
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' })
                .collect();
            let path = self.boards_dir.join(name);
            match std::fs::create_dir_all(&self.boards_dir).and_then(|_| std::fs::write(&path, &file.bytes)) {
                Ok(()) => out.push_str(&format!("\n(attached: {})", path.display())),
                Err(e) => out.push_str(&format!("\n(could not write {}: {e})", file.name)),
            }
        }
        out
    }
}

/// Makes `@tessera` the bot in the terminal, queues its turns an earlier run left, and moves on
/// the tournaments an earlier run left mid-change (a round whose last result was stored but
/// which was not paired). The notices a killed earlier run claimed but never showed are free to
/// show now; a live process's are left to it.
pub fn serve<S: Store>(service: &Service<S>) -> Result<()> {
    service.set_bot_account(PLATFORM, BOT);
    service.practice_resume(Some(&[PLATFORM]), None)?;
    service.analysis_resume(Some(&[PLATFORM]))?;
    service.release_dead_claims(PLATFORM)?;
    service.resume_tournaments(&[PLATFORM])?;
    Ok(())
}

/// Runs the local mode on standard input and output until /quit or end of input.
pub fn run<S: Store>(service: &Service<S>, boards_dir: PathBuf) -> Result<()> {
    serve(service)?;
    let mut session = Session::new(boards_dir);
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{LOCAL_HELP}")?;
    for out in session.bot_turns(service) {
        writeln!(stdout, "{out}")?;
    }
    // What an earlier run stored but never showed: printed, then marked sent.
    let mut posted = Vec::new();
    for out in session.waiting_notices(service, &mut posted) {
        writeln!(stdout, "{out}")?;
    }
    stdout.flush()?;
    posted.into_iter().for_each(|n| service.notice_sent(n));
    loop {
        write!(stdout, "{}@#{}> ", session.user.name, session.channel)?;
        stdout.flush()?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            writeln!(stdout)?;
            return Ok(());
        }
        // Printed before its notices are marked sent: a kill between the two shows them again
        // at the next start, never not at all.
        match session.answer(service, &line) {
            Some((out, posted)) => {
                if !out.is_empty() {
                    writeln!(stdout, "{out}")?;
                    stdout.flush()?;
                }
                posted.into_iter().for_each(|n| service.notice_sent(n));
            }
            None => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_store::SqliteStore;

    #[test]
    fn a_terminal_session_plays_and_writes_pictures() {
        let dir = std::env::temp_dir().join(format!("tessera-local-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let service = Service::new(SqliteStore::in_memory().unwrap());
        let mut s = Session::new(dir.join("boards"));
        assert!(s.line(&service, "!t challenge @bob blue-chip white").unwrap().contains("challenges bob"));
        assert_eq!(s.line(&service, "/as bob").unwrap(), "(you are now bob)");
        let out = s.line(&service, "!t accept").unwrap();
        assert!(out.contains("Game #1 begins") && out.contains("board picture:"), "{out}");
        assert!(s.line(&service, "[e5]").unwrap().contains("bob played [e5]"));
        s.line(&service, "/as alice");
        let out = s.line(&service, "!t move e2-e4 [d5]").unwrap();
        assert!(out.contains("alice played e4[d5]"), "{out}");
        assert_eq!(std::fs::read_dir(dir.join("boards")).unwrap().count(), 3);
        assert!(s.line(&service, "/wait x").unwrap().contains("how many hours"));
        assert!(s.line(&service, "/quit").is_none());
        assert_eq!(mentions("!t challenge @Bob @@e4 <@1>").len(), 1);
        // A second run goes on numbering where the first stopped, overwriting nothing.
        let mut again = Session::new(dir.join("boards"));
        assert!(again.line(&service, "!t board").unwrap().contains("board-0004.png"));
        assert_eq!(std::fs::read_dir(dir.join("boards")).unwrap().count(), 4);
        // An export is written beside the pictures.
        let out = again.line(&service, "!t history").unwrap();
        assert!(out.contains("[Variant \"") && out.contains("(attached: "), "{out}");
        let pgn = std::fs::read_to_string(dir.join("boards").join("game-1.pgn")).unwrap();
        assert!(pgn.contains("1. e4[d5]") || pgn.contains("e2-e4"), "{pgn}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_loss_on_time_in_the_terminal_shows_the_final_board_and_the_gif() {
        let dir = std::env::temp_dir().join(format!("tessera-local-time-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let service = Service::new(SqliteStore::in_memory().unwrap());
        let mut s = Session::new(dir.join("boards"));
        s.line(&service, "!t challenge @bob chess white 1d");
        s.line(&service, "/as bob");
        s.line(&service, "!t accept");
        s.line(&service, "/as alice");
        assert!(s.line(&service, "e4").unwrap().contains("alice played e4"));
        // The clock shows in the terminal's game list, with the channel by its name.
        let mine = s.line(&service, "!t games mine").unwrap();
        assert!(mine.contains("bob to move (black), ") && mine.contains(" left, in #main"), "{mine}");
        let out = s.line(&service, "/wait 25").unwrap();
        assert!(out.contains("bob ran out of time"), "{out}");
        assert!(out.contains("(the game as a GIF: ") && out.contains("(board picture: "), "{out}");
        assert!(out.contains("\n1 ") || out.contains("\n8 "), "the final board as a diagram: {out}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_bot_answers_at_once_in_the_terminal() {
        let dir = std::env::temp_dir().join(format!("tessera-local-practice-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let service = Service::new(SqliteStore::in_memory().unwrap());
        serve(&service).unwrap();
        let mut s = Session::new(dir.join("boards"));
        let out = s.line(&service, "!t challenge @tessera chess black level 1").unwrap();
        // The bot has White: its first move follows the start in the same answer.
        assert!(out.contains("practice against me") && out.contains("tessera played"), "{out}");
        let out = s.line(&service, "e5").unwrap();
        assert!(out.contains("alice played e5") && out.contains("tessera played"), "{out}");
        assert!(s.line(&service, "/as tessera").unwrap().contains("speak as someone else"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
