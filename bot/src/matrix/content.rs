//! What a reply looks like as a Matrix event: `m.notice` unless it pings someone (the convention
//! that keeps bots from answering each other), the text as written in `body` and escaped HTML in
//! `formatted_body`, and the relation to the command it answers (a reply, inside its thread).

use matrix_sdk::ruma::events::Mentions;
use matrix_sdk::ruma::events::relation::Thread;
use matrix_sdk::ruma::events::room::message::{
    AddMentions, ForwardThread, Relation, ReplyMetadata, ReplyWithinThread, RoomMessageEventContent,
};
use matrix_sdk::ruma::{OwnedEventId, OwnedUserId};

use tessera_core::service::Reply;

/// The command a reply answers: its event, its author, and the thread it was sent in.
#[derive(Clone, Debug)]
pub struct Answering {
    pub event_id: OwnedEventId,
    pub sender: OwnedUserId,
    pub thread: Option<Thread>,
}

/// What the room is told when the answer went to the author's direct messages.
pub const SENT_PRIVATELY: &str = "I sent you a private answer in a direct message.";

/// What the room is told when the private answer could not be sent either.
pub const NOT_SENT_PRIVATELY: &str = "I have a private answer for you but could not send you a direct message: accept my invitation \
     to one (or start one with me), then ask again.";

/// The players a reply pings: valid Matrix ids among those it names to notify.
fn pings(notify: &[String]) -> Vec<OwnedUserId> {
    notify.iter().filter_map(|id| OwnedUserId::try_from(id.as_str()).ok()).collect()
}

/// `text` as an event: `m.text` with `m.mentions` of `notify` where someone is to be pinged,
/// `m.notice` with no mentions otherwise (and always when `private`).
pub fn message(text: &str, notify: &[String], private: bool) -> RoomMessageEventContent {
    let pinged = if private { Vec::new() } else { pings(notify) };
    let content = if pinged.is_empty() {
        RoomMessageEventContent::notice_html(text, html(text))
    } else {
        RoomMessageEventContent::text_html(text, html(text))
    };
    // Mentions stated even when empty: clients then ping nobody, whatever names the text holds.
    content.add_mentions(Mentions::with_user_ids(pinged))
}

/// A reply's text as the event that posts it, in answer to `answering` where it answers a command;
/// in its game's thread where it names one ([`Reply::thread`]): as an answer within it to a
/// command written there, else as the thread's latest message.
pub fn content(reply: &Reply, answering: Option<&Answering>) -> RoomMessageEventContent {
    let content = message(&reply.text, &reply.notify, reply.private || reply.secret);
    match (game_thread(reply), answering) {
        (Some(root), Some(to)) if to.thread.as_ref().is_some_and(|t| t.event_id == root) => {
            relate(content, to)
        }
        (Some(root), _) => in_thread(content, root),
        (None, Some(to)) => relate(content, to),
        (None, None) => content,
    }
}

/// The root of the game's thread a reply goes to, where it names one.
pub fn game_thread(reply: &Reply) -> Option<OwnedEventId> {
    reply.thread.as_deref().and_then(|t| OwnedEventId::try_from(t).ok())
}

/// The event as a message of the thread `root` starts: clients without threads show it as a
/// reply to the root (`is_falling_back`).
pub fn in_thread(mut content: RoomMessageEventContent, root: OwnedEventId) -> RoomMessageEventContent {
    content.relates_to = Some(Relation::Thread(Thread::plain(root.clone(), root)));
    content
}

/// The event as a reply to the command (`m.in_reply_to`); inside its thread, when it came in one.
pub fn relate(content: RoomMessageEventContent, to: &Answering) -> RoomMessageEventContent {
    let metadata = ReplyMetadata::new(&to.event_id, &to.sender, to.thread.as_ref());
    if to.thread.is_some() {
        content.make_for_thread(metadata, ReplyWithinThread::Yes, AddMentions::No)
    } else {
        content.make_reply_to(metadata, ForwardThread::Yes, AddMentions::No)
    }
}

/// `text` as HTML: everything escaped (a player named `<b>x</b>` shows as written), ```` ``` ````
/// blocks as `<pre><code>`, inline `` `code` `` as `<code>`, line breaks kept.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    let mut block: Option<String> = None;
    let mut first = true;
    for line in text.split('\n') {
        if let Some(code) = block.as_mut() {
            // A closing fence: on its own line, or at the end of the block's last line.
            if let Some(before) = line.trim_end().strip_suffix("```") {
                code.push_str(before);
                out.push_str(&format!("<pre><code>{}</code></pre>", escape(code.trim_end_matches('\n'))));
                block = None;
                first = true;
            } else {
                code.push_str(line);
                code.push('\n');
            }
            continue;
        }
        if line.trim_start().starts_with("```") {
            // The rest of an opening fence's line names a language: not shown.
            block = Some(String::new());
            continue;
        }
        if !first {
            out.push_str("<br>");
        }
        first = false;
        out.push_str(&inline(line));
    }
    if let Some(code) = block {
        // An unclosed block runs to the end.
        out.push_str(&format!("<pre><code>{}</code></pre>", escape(code.trim_end_matches('\n'))));
    }
    out
}

/// One line: escaped, `` `code` `` spans as `<code>`; an unpaired backtick stays as written.
fn inline(line: &str) -> String {
    let parts: Vec<&str> = line.split('`').collect();
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let in_code = i % 2 == 1;
        // The last part after an odd backtick has no closing one: plain text again.
        if in_code && i == parts.len() - 1 {
            out.push('`');
            out.push_str(&escape(part));
        } else if in_code {
            out.push_str(&format!("<code>{}</code>", escape(part)));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// Text made safe inside HTML, attributes included.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use matrix_sdk::ruma::{event_id, user_id};

    fn json(content: &RoomMessageEventContent) -> serde_json::Value {
        serde_json::to_value(content).unwrap()
    }

    #[test]
    fn names_are_escaped_in_the_html_and_written_as_is_in_the_body() {
        let text = "<b>h</b> <a href=\"https://e\">x</a> it's **x** [y](http://e) &amp; <script>";
        for private in [false, true] {
            let reply =
                Reply { text: text.into(), private, notify: vec!["@bob:x.org".into()], ..Reply::default() };
            let json = json(&content(&reply, None));
            assert_eq!(json["body"], text, "the text as written");
            assert_eq!(json["format"], "org.matrix.custom.html");
            let html = json["formatted_body"].as_str().unwrap();
            assert_eq!(
                html,
                "&lt;b&gt;h&lt;/b&gt; &lt;a href=&quot;https://e&quot;&gt;x&lt;/a&gt; it&#39;s **x** \
                 [y](http://e) &amp;amp; &lt;script&gt;"
            );
            assert!(!html.contains('<') && !html.contains('>') && !html.contains('"'), "{html}");
        }
    }

    #[test]
    fn code_blocks_and_spans_and_line_breaks() {
        assert_eq!(html("a\nb"), "a<br>b");
        assert_eq!(html("play `e4` or `<x>`"), "play <code>e4</code> or <code>&lt;x&gt;</code>");
        assert_eq!(html("a ` lone"), "a ` lone");
        assert_eq!(html("a `x` b ` c"), "a <code>x</code> b ` c");
        assert_eq!(
            html("Standings:\n```\n1 <ann>  2.0\n2 bob    1.0\n```\nGood luck"),
            "Standings:<pre><code>1 &lt;ann&gt;  2.0\n2 bob    1.0</code></pre>Good luck"
        );
        // The export's form: the closing fence right after the last line's newline, or on it.
        assert_eq!(html("```\n[Event \"x\"]\n```"), "<pre><code>[Event &quot;x&quot;]</code></pre>");
        assert_eq!(html("```trf\n012 a```"), "<pre><code>012 a</code></pre>");
        // An unclosed block runs to the end; nothing is lost.
        assert_eq!(html("x\n```\nboard"), "x<pre><code>board</code></pre>");
        assert_eq!(html(""), "");
    }

    #[test]
    fn notices_ping_nobody_and_pings_are_text_with_mentions() {
        let to_bob =
            Reply { text: "bob to move".into(), notify: vec!["@bob:x.org".into()], ..Reply::default() };
        let j = json(&content(&to_bob, None));
        assert_eq!(j["msgtype"], "m.text");
        assert_eq!(j["m.mentions"]["user_ids"], serde_json::json!(["@bob:x.org"]));
        for quiet in [
            Reply { text: "no one".into(), ..Reply::default() },
            Reply {
                text: "an error".into(),
                private: true,
                notify: to_bob.notify.clone(),
                ..Reply::default()
            },
            Reply { text: "secret".into(), secret: true, notify: to_bob.notify.clone(), ..Reply::default() },
            // An id that is no Matrix user pings nobody.
            Reply { text: "x".into(), notify: vec!["12345".into()], ..Reply::default() },
        ] {
            let j = json(&content(&quiet, None));
            assert_eq!(j["msgtype"], "m.notice", "{quiet:?}");
            assert_eq!(j["m.mentions"], serde_json::json!({}), "states that nobody is pinged");
        }
    }

    #[test]
    fn answers_reply_to_the_command_and_stay_in_its_thread() {
        let reply = Reply { text: "ok".into(), ..Reply::default() };
        let command = Answering {
            event_id: event_id!("$cmd:x.org").to_owned(),
            sender: user_id!("@ann:x.org").to_owned(),
            thread: None,
        };
        let j = json(&content(&reply, Some(&command)));
        assert_eq!(j["m.relates_to"], serde_json::json!({"m.in_reply_to": {"event_id": "$cmd:x.org"}}));
        assert_eq!(j["m.mentions"], serde_json::json!({}), "the author is not pinged by the reply");
        let in_thread = Answering {
            thread: Some(Thread::plain(
                event_id!("$root:x.org").to_owned(),
                event_id!("$prev:x.org").to_owned(),
            )),
            ..command
        };
        let j = json(&content(&reply, Some(&in_thread)));
        assert_eq!(
            j["m.relates_to"],
            serde_json::json!({
                "rel_type": "m.thread",
                "event_id": "$root:x.org",
                // A true reply within the thread (is_falling_back false, so left out).
                "m.in_reply_to": {"event_id": "$cmd:x.org"},
            })
        );
        // Notices nobody asked for relate to nothing.
        assert!(json(&content(&reply, None)).get("m.relates_to").is_none());
    }

    #[test]
    fn a_games_replies_go_to_its_thread_wherever_the_command_was_written() {
        let in_game =
            Reply { text: "ann played e4".into(), thread: Some("$root:x.org".into()), ..Reply::default() };
        let game_thread = serde_json::json!({
            "rel_type": "m.thread",
            "event_id": "$root:x.org",
            "is_falling_back": true,
            "m.in_reply_to": {"event_id": "$root:x.org"},
        });
        // A notice, and an answer to a move written in the room: the thread's latest message.
        assert_eq!(json(&content(&in_game, None))["m.relates_to"], game_thread);
        let in_room = Answering {
            event_id: event_id!("$cmd:x.org").to_owned(),
            sender: user_id!("@ann:x.org").to_owned(),
            thread: None,
        };
        assert_eq!(json(&content(&in_game, Some(&in_room)))["m.relates_to"], game_thread);
        // Written in the game's thread: a true reply there.
        let there = Answering {
            thread: Some(Thread::plain(
                event_id!("$root:x.org").to_owned(),
                event_id!("$prev:x.org").to_owned(),
            )),
            ..in_room.clone()
        };
        assert_eq!(
            json(&content(&in_game, Some(&there)))["m.relates_to"],
            serde_json::json!({"rel_type": "m.thread", "event_id": "$root:x.org", "m.in_reply_to": {"event_id": "$cmd:x.org"}})
        );
        // Written in another thread: the game's thread still.
        let elsewhere = Answering {
            thread: Some(Thread::plain(
                event_id!("$other:x.org").to_owned(),
                event_id!("$o:x.org").to_owned(),
            )),
            ..in_room
        };
        assert_eq!(json(&content(&in_game, Some(&elsewhere)))["m.relates_to"], game_thread);
    }
}
