//! A reply's text as Discord shows it: cut into messages of Discord's length, Markdown escaped,
//! mentions allowed only where meant.

use serenity::all::{CreateAllowedMentions, UserId};

use tessera_core::service::Reply;

/// Discord's limits: characters in a message, choices in an autocomplete answer.
pub(super) const MAX_CONTENT: usize = 2000;
/// Splits text into pieces Discord accepts, at line ends where it can, else at spaces. A code
/// block cut in two is closed at the end of its first piece and opened again in the next, so each
/// piece shows it as a block (a big Swiss's standings are longer than one message).
pub(super) fn chunks(text: &str) -> Vec<String> {
    const FENCE: &str = "```";
    let mut out = Vec::new();
    let mut rest = text;
    // Whether a block is open where the last piece ended.
    let mut open = false;
    // What the last piece needs besides its text: the block reopened, the block closed.
    let extra = |open: bool, rest: &str| {
        4 * usize::from(open) + 4 * ((usize::from(open) + rest.matches(FENCE).count()) % 2)
    };
    while rest.trim_end_matches(['\n', ' ']).chars().count() + extra(open, rest) > MAX_CONTENT {
        let head = if open { "```\n" } else { "" };
        let cut_at = |room: usize| {
            let limit = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
            let part = &rest[..limit];
            part.rfind('\n').or_else(|| part.rfind(' ')).filter(|&i| i > 0).unwrap_or(limit)
        };
        let leaves_open = |cut: usize| (usize::from(open) + rest[..cut].matches(FENCE).count()) % 2 == 1;
        let mut cut = cut_at(MAX_CONTENT - head.len());
        if leaves_open(cut) {
            // Room for the "\n```" that closes it.
            cut = cut_at(MAX_CONTENT - head.len() - 4);
        }
        let closes = leaves_open(cut);
        out.push(format!("{head}{}{}", &rest[..cut], if closes { "\n```" } else { "" }));
        // The line end or space cut at goes; a line's leading spaces stay (a table's columns).
        let after = &rest[cut..];
        rest = if after.starts_with('\n') {
            after.trim_start_matches('\n')
        } else {
            after.strip_prefix(' ').unwrap_or(after)
        };
        open = closes;
    }
    let closing = extra(open, rest) - 4 * usize::from(open) > 0;
    let rest = rest.trim_end_matches(['\n', ' ']);
    if !rest.is_empty() || out.is_empty() {
        // A block the text leaves open (cut short) is closed too.
        let (head, tail) = (if open { "```\n" } else { "" }, if closing { "\n```" } else { "" });
        out.push(format!("{head}{rest}{tail}"));
    }
    out
}

/// Most users one message may ping: Discord refuses a message whose allowed mentions name more.
pub(super) const MAX_PINGS: usize = 100;

/// One message's text and the users it may ping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    pub(super) text: String,
    pub(super) pings: Vec<UserId>,
}

impl Piece {
    pub(super) fn allowed_mentions(&self) -> CreateAllowedMentions {
        CreateAllowedMentions::new().users(self.pings.clone())
    }
}

/// The text of a reply, in Discord-sized pieces, each with whom it may ping: the players it
/// concerns (named in front of the text), and nobody else whatever the text says. More than
/// [`MAX_PINGS`] players are named over several messages before the text, so each message stays
/// within the limit and nobody is left out. The text is escaped ([`escape_markdown`]): names and
/// echoed words show as typed.
pub(super) fn pieces(reply: &Reply) -> Vec<Piece> {
    let mut users: Vec<UserId> = Vec::new();
    if !reply.private {
        for id in reply.notify.iter().filter_map(|id| id.parse::<u64>().ok().filter(|&n| n != 0)) {
            if !users.contains(&UserId::new(id)) {
                users.push(UserId::new(id));
            }
        }
    }
    let names = |group: &[UserId]| group.iter().map(|u| format!("<@{u}> ")).collect::<String>();
    let groups: Vec<&[UserId]> = users.chunks(MAX_PINGS).collect();
    let mut out = Vec::new();
    let (before, last) = match groups.split_last() {
        Some((last, before)) => (before, *last),
        None => (&[][..], &[][..]),
    };
    for group in before {
        out.extend(chunks(names(group).trim_end()).into_iter().map(|text| pinging(text, group)));
    }
    let text = format!("{}{}", names(last), escape_markdown(&reply.text));
    out.extend(chunks(&text).into_iter().map(|text| pinging(text, last)));
    out
}

/// A piece that may ping those of `group` it names.
fn pinging(text: String, group: &[UserId]) -> Piece {
    let pings = group.iter().copied().filter(|u| text.contains(&format!("<@{u}>"))).collect();
    Piece { text, pings }
}

/// The bot's text as Discord shows it literally. The bot's own markup is kept: inline code and
/// ` ``` ` blocks (commands, standings, TRF), which show their contents as they are, and channel
/// links `<#id>`; a block left open runs to the end. Everywhere else, whatever Discord would read as Markdown is escaped with a
/// backslash: `\ * _ ~ | [ ] < >` and backticks that open no code, and at a line's start a
/// heading's `#` and a list's `-` or `+`. Web addresses are left whole (an escape inside one
/// would change it). So a player named `**x** [y](http://e) ||z||` is shown by that name, not in
/// bold, as a link or as a spoiler. Names hold no backtick ([`tessera_core::names::clean`]), so none
/// can end a code block.
pub(super) fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut at_line_start = true;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        // Code, as Discord reads it: a run of backticks up to the next run as long.
        if c == '`' {
            let run = rest.len() - rest.trim_start_matches('`').len();
            match closing_backticks(&rest[run..], run) {
                Some(end) => {
                    let code = run + end + run;
                    out.push_str(&rest[..code]);
                    rest = &rest[code..];
                }
                // A block the text leaves open (a long reply cut short) runs to the end; the
                // message closes it ([`chunks`]).
                None if run >= 3 => {
                    out.push_str(rest);
                    rest = "";
                }
                None => {
                    out.push_str(&"\\`".repeat(run));
                    rest = &rest[run..];
                }
            }
            at_line_start = false;
            continue;
        }
        if let Some(len) = web_address(rest).or_else(|| channel_link(rest)) {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            at_line_start = false;
            continue;
        }
        if at_line_start && c != ' ' && c != '\n' {
            let after = rest.trim_start_matches('#');
            let heading = c == '#' && after.starts_with(' ') && rest.len() - after.len() <= 3;
            let list = matches!(c, '-' | '+') && rest[1..].starts_with([' ', '#']);
            if heading || list {
                out.push('\\');
            }
        }
        if matches!(c, '\\' | '*' | '_' | '~' | '|' | '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
        at_line_start = c == '\n' || (at_line_start && c == ' ');
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Where a run of exactly `run` backticks starts in `text`, closing a code span.
pub(super) fn closing_backticks(text: &str, run: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find('`').map(|i| i + from) {
        let len = text[i..].len() - text[i..].trim_start_matches('`').len();
        if len == run {
            return Some(i);
        }
        from = i + len;
    }
    None
}

/// The length of the web address `text` starts with, if it does.
pub(super) fn web_address(text: &str) -> Option<usize> {
    if !(text.starts_with("https://") || text.starts_with("http://")) {
        return None;
    }
    Some(text.find(char::is_whitespace).unwrap_or(text.len()))
}

/// The length of the channel link (`<#123>`) `text` starts with, if it does.
pub(super) fn channel_link(text: &str) -> Option<usize> {
    let digits = text.strip_prefix("<#")?;
    let n = digits.len() - digits.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (n > 0 && digits[n..].starts_with('>')).then_some(2 + n + 1)
}
