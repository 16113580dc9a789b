use super::buttons::*;
use super::slash::*;
use super::text::*;
use super::*;
use tessera_core::command_spec::{self, Kind, Raw};
use tessera_core::command_table::{self, COMMANDS};
use tessera_core::commands;
use tessera_core::commands::Command;
use tessera_core::service::{Actions, Reply};

#[test]
fn long_text_is_cut_where_discord_accepts_it() {
    assert_eq!(chunks("short"), ["short"]);
    assert_eq!(chunks(""), [""]);
    let lines: String = (0..300).map(|i| format!("{i}. e4 e5 Nf3\n")).collect();
    let pieces = chunks(&lines);
    assert!(pieces.len() > 1);
    assert!(pieces.iter().all(|p| p.chars().count() <= MAX_CONTENT && !p.is_empty()));
    assert!(pieces.iter().all(|p| p.ends_with("Nf3")), "cut at line ends");
    assert_eq!(pieces.concat().replace('\n', ""), lines.replace('\n', ""));
    let unbroken = "é".repeat(4500);
    let pieces = chunks(&unbroken);
    assert_eq!(pieces.iter().map(|p| p.chars().count()).collect::<Vec<_>>(), [2000, 2000, 500]);
}

#[test]
fn markdown_in_prose_is_escaped_and_the_bots_own_markup_kept() {
    let name = "**x** [y](http://e) ||z|| <b>h</b> ~~s~~ __u__ \\";
    assert_eq!(
        escape_markdown(name),
        r"\*\*x\*\* \[y\](http://e) \|\|z\|\| \<b\>h\</b\> \~\~s\~\~ \_\_u\_\_ \\"
    );
    // Code spans and blocks are shown as they are: nothing in them is escaped.
    let text = "alice: `!t accept` or `!t decline`\n```\n  1  **bob** |x|\n```after *x*";
    assert_eq!(
        escape_markdown(text),
        "alice: `!t accept` or `!t decline`\n```\n  1  **bob** |x|\n```after \\*x\\*"
    );
    assert_eq!(escape_markdown("``a`b``"), "``a`b``", "a longer run closes only a run as long");
    // A backtick that opens no code is shown as one.
    assert_eq!(escape_markdown("a ` b"), r"a \` b");
    assert_eq!(escape_markdown("``x"), r"\`\`x");
    assert_eq!(escape_markdown("*a* ```\n*b*"), "\\*a\\* ```\n*b*", "an open block runs to the end");
    // Headings, subtext, lists and quotes at a line's start; not a game's number.
    assert_eq!(
        escape_markdown("# big\n## b\n-# small\n- item\n+ item\n> quote"),
        "\\# big\n\\## b\n\\-# small\n\\- item\n\\+ item\n\\> quote"
    );
    assert_eq!(escape_markdown("#12 chess vs bob\n  # x\na - b #1"), "#12 chess vs bob\n  \\# x\na - b #1");
    // Channel links and web addresses stay whole.
    assert_eq!(
        escape_markdown("in <#500> see https://matrix.to/#/!a_b:x"),
        "in <#500> see https://matrix.to/#/!a_b:x"
    );
    assert_eq!(escape_markdown("<#x> <@1>"), r"\<#x\> \<@1\>");
    // Plain text and PGN are left alone but for what would be markup.
    assert_eq!(escape_markdown("1. f3 e5 2. g4 Qh4# 0-1"), "1. f3 e5 2. g4 Qh4# 0-1");
    assert_eq!(escape_markdown("[White \"bob\"]"), r#"\[White "bob"\]"#);
    assert_eq!(escape_markdown(""), "");
    assert_eq!(escape_markdown("é ✓ 李"), "é ✓ 李");
}

#[test]
fn a_reply_is_escaped_after_its_pings() {
    let reply = Reply { text: "*bob* to move".into(), notify: vec!["2".into()], ..Reply::default() };
    let sent = pieces(&reply);
    assert_eq!(sent, [Piece { text: r"<@2> \*bob\* to move".into(), pings: vec![UserId::new(2)] }]);
    // A reply cut short inside its block (a long TRF) still shows as a closed block.
    let cut = Reply {
        text: "t1 as TRF:\n```\n012 x\n… 9 more lines are not shown here".into(),
        ..Reply::default()
    };
    let texts: Vec<String> = pieces(&cut).into_iter().map(|p| p.text).collect();
    assert_eq!(texts, ["t1 as TRF:\n```\n012 x\n… 9 more lines are not shown here\n```"]);
}

#[test]
fn a_crowd_is_pinged_over_messages_of_at_most_a_hundred() {
    // 150 players with real-length ids, and 250 with short ones (more fit in 2,000 characters).
    for (players, first_id) in [(150u64, 100_000_000_000_000_000u64), (250, 1)] {
        let ids: Vec<u64> = (first_id..first_id + players).collect();
        let reply = Reply {
            text: "Round 1 is paired.".into(),
            notify: ids.iter().map(u64::to_string).chain(["0".into(), "x".into()]).collect(),
            ..Reply::default()
        };
        let sent = pieces(&reply);
        let mut pinged: Vec<u64> = Vec::new();
        for piece in &sent {
            assert!(piece.pings.len() <= MAX_PINGS, "{} pings in one message", piece.pings.len());
            assert!(piece.text.chars().count() <= MAX_CONTENT);
            for user in &piece.pings {
                assert!(piece.text.contains(&format!("<@{user}>")), "a ping the text does not name");
            }
            pinged.extend(piece.pings.iter().map(|u| u.get()));
        }
        pinged.sort_unstable();
        assert_eq!(pinged, ids, "every player pinged once, nobody else");
        assert!(sent.last().unwrap().text.ends_with("Round 1 is paired."));
        assert!(sent.len() >= 2);
    }
    // A private reply pings nobody.
    let private = Reply { text: "x".into(), notify: vec!["5".into()], private: true, ..Reply::default() };
    assert_eq!(pieces(&private), [Piece { text: "x".into(), pings: vec![] }]);
}

#[test]
fn a_code_block_cut_between_pieces_stays_a_block_in_each() {
    let rows: Vec<String> =
        (1..=150).map(|i| format!("{i:>3}  {:<20} 1500     3  **x** |y|", "W".repeat(20))).collect();
    let text = format!("t1 Big Swiss, after round 3 of 5\n```\n{}\n```\nask for more", rows.join("\n"));
    let pieces = chunks(&text);
    assert!(pieces.len() > 2, "{}", pieces.len());
    for p in &pieces {
        assert!(p.chars().count() <= MAX_CONTENT, "{}", p.chars().count());
        assert_eq!(p.matches("```").count() % 2, 0, "{p}");
    }
    assert!(pieces[1].starts_with("```\n") && pieces[0].ends_with("\n```"));
    // Every row is in one piece, inside a block, whole.
    let shown: Vec<&str> = pieces.iter().flat_map(|p| p.lines()).filter(|l| l.ends_with("|y|")).collect();
    assert_eq!(shown, rows.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(pieces.last().unwrap().ends_with("```\nask for more"));
    // A block the text leaves open (a reply cut short) is closed at its end.
    let unclosed = format!("```\n{}", "x\n".repeat(1500));
    let pieces = chunks(&unclosed);
    assert_eq!(pieces.len(), 2);
    assert!(pieces.iter().all(|p| p.chars().count() <= MAX_CONTENT));
    assert!(pieces.iter().all(|p| p.starts_with("```\n") && p.ends_with("x\n```")), "{pieces:?}");
    assert_eq!(chunks("see ```x"), ["see ```x\n```"]);
    // Text that just fits is one piece, whether or not it must close a block.
    let full = format!("```\n{}```", "y".repeat(MAX_CONTENT - 7));
    assert_eq!(chunks(&full), vec![full.clone()]);
    let open = format!("```\n{}", "y".repeat(MAX_CONTENT - 8));
    assert_eq!(chunks(&open), [format!("{open}\n```")]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    #[test]
    fn any_text_is_sent_in_whole_blocks_within_the_limit(
        parts in proptest::collection::vec(("[ -~\n]{0,300}", "[^`]{0,60}", 0u8..4), 0..40),
    ) {
        // Prose, names and code blocks in any order and length, as replies mix them.
        let mut text = String::new();
        for (prose, name, kind) in &parts {
            match kind {
                0 => text.push_str(prose),
                1 => text.push_str(&format!("\n```\n{prose}\n```\n")),
                2 => text.push_str(&format!(" `{}` ", prose.replace('`', "'"))),
                _ => text.push_str(name),
            }
        }
        let escaped = escape_markdown(&text);
        let pieces = chunks(&escaped);
        proptest::prop_assert!(!pieces.is_empty());
        for p in &pieces {
            proptest::prop_assert!(p.chars().count() <= MAX_CONTENT, "{} characters", p.chars().count());
        }
        if !escaped.contains("````") {
            for p in &pieces {
                proptest::prop_assert_eq!(p.matches("```").count() % 2, 0, "{:?}", p);
            }
        }
    }
}

#[test]
fn a_leading_mention_of_the_bot_addresses_it() {
    let bot = Some(UserId::new(1000));
    assert_eq!(addressed_by_mention("<@1000> challenge <@2> hans38", bot), "!t challenge <@2> hans38");
    assert_eq!(addressed_by_mention("  <@!1000>help", bot), "!t help");
    assert_eq!(addressed_by_mention("<@1000>", bot), "!t ");
    assert_eq!(addressed_by_mention("hi <@1000>", bot), "hi <@1000>", "only at the start");
    assert_eq!(addressed_by_mention("<@2> e4", bot), "<@2> e4", "someone else");
    assert_eq!(addressed_by_mention("<@1000> e4", None), "<@1000> e4", "before READY");
}

#[test]
fn the_conditional_button_opens_a_form_whose_answer_is_the_command() {
    let (spec, number) = read_id("tessera:conditional:12").unwrap();
    assert_eq!(press(spec, number), Some(Press::Form("conditional", 12)));
    let modal = serde_json::to_value(form("conditional", 12).unwrap()).unwrap();
    assert_eq!(modal["custom_id"], "tessera-form:conditional:12");
    assert_eq!(modal["components"][0]["components"][0]["style"], 2, "a paragraph: lines are long");
    let submitted = |value: serde_json::Value| {
        let data: serenity::all::ModalInteractionData = serde_json::from_value(serde_json::json!({
            "custom_id": "tessera-form:conditional:12",
            "components": [{"type": 1, "components": [{"type": 4, "custom_id": "value", "value": value}]}]
        }))
        .unwrap();
        form_command(&data)
    };
    assert_eq!(
        submitted("e5 Nf3 Nc6 Bb5".into()),
        Some(Command::Conditional { game: Some(12), line: Some("e5 Nf3 Nc6 Bb5".into()) })
    );
    // Left empty, it shows the lines.
    assert_eq!(submitted("".into()), Some(Command::Conditional { game: Some(12), line: None }));
    let forged: serenity::all::ModalInteractionData =
        serde_json::from_value(serde_json::json!({"custom_id": "tessera-form:resign:12", "components": []}))
            .unwrap();
    assert_eq!(form_command(&forged), None, "only a button that asks has a form");
    let junk: serenity::all::ModalInteractionData =
        serde_json::from_value(serde_json::json!({"custom_id": "tessera-form:nuke:x", "components": []}))
            .unwrap();
    assert_eq!(form_command(&junk), None);
}

#[test]
fn buttons_read_back_as_the_commands_they_stand_for() {
    assert_eq!(button_press("tessera:accept:3"), Some(Press::Run(Command::Accept(Some(3)))));
    assert_eq!(button_press("tessera:resign:7"), Some(Press::Confirm(7, "resign")));
    assert_eq!(button_press("tessera:resign-yes:7"), Some(Press::Run(Command::Resign(Some(7)))));
    assert_eq!(
        button_press("tessera:flip:7"),
        Some(Press::Run(Command::Board { game: Some(7), flip: true }))
    );
    for junk in ["", "tessera", "tessera:accept", "tessera:accept:x", "other:accept:3", "tessera:nuke:3"] {
        assert_eq!(button_press(junk), None, "{junk}");
    }
    // Every button the bot puts up is in the table and reads back; every table button is used.
    let all = [
        Actions::Challenge(1),
        Actions::Game(2),
        Actions::Confirm(2),
        Actions::DrawOffer(3),
        Actions::TakebackOffer(4),
        Actions::Tournament(5),
    ];
    let used: Vec<&str> = all.iter().flat_map(|a| a.buttons().1.iter().copied()).collect();
    for b in command_table::BUTTONS {
        let confirming = command_table::BUTTONS.iter().any(|o| o.confirm.is_some_and(|(yes, _)| yes == b.id));
        assert!(used.contains(&b.id) || confirming, "{} is never shown", b.id);
    }
    for actions in all {
        let json = serde_json::to_value(buttons(Some(actions))).unwrap();
        let ids: Vec<&str> = json[0]["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["custom_id"].as_str().unwrap())
            .collect();
        assert!(!ids.is_empty());
        assert!(ids.iter().all(|id| button_press(id).is_some()), "{ids:?}");
    }
}

/// The registered form of a command: `challenge`, or `tournament join` inside `tournament`.
fn registered(all: &serde_json::Value, path: &str) -> serde_json::Value {
    let mut parts = path.split(' ');
    let top = parts.next().unwrap();
    let mut found = all.as_array().unwrap().iter().find(|c| c["name"] == top).cloned().unwrap();
    for sub in parts {
        found = found["options"].as_array().unwrap().iter().find(|o| o["name"] == sub).cloned().unwrap();
    }
    found
}

#[test]
fn the_registered_slash_commands_are_the_table() {
    let json = serde_json::to_value(slash_commands()).unwrap();
    let mut shape = Vec::new();
    for spec in COMMANDS.iter().filter(|c| c.slash) {
        let r = registered(&json, &spec.path());
        assert_eq!(r["description"], spec.summary, "{}", spec.path());
        let options = r["options"].as_array().cloned().unwrap_or_default();
        assert_eq!(options.len(), spec.options.len(), "{}", spec.path());
        for (o, j) in spec.options.iter().zip(&options) {
            assert_eq!(j["name"], o.name);
            assert_eq!(j["required"], o.required, "{} {}", spec.path(), o.name);
            assert_eq!(j["autocomplete"], o.autocomplete(), "{} {}", spec.path(), o.name);
            let values: Vec<&str> = match o.kind {
                Kind::Choice { choices, .. } => choices.iter().map(|c| c.value).collect(),
                _ => Vec::new(),
            };
            let registered: Vec<&str> =
                j["choices"].as_array().unwrap().iter().map(|c| c["value"].as_str().unwrap()).collect();
            assert_eq!(registered, values, "{} {}", spec.path(), o.name);
        }
        let names: Vec<&str> = spec.options.iter().map(|o| o.name).collect();
        shape.push(format!("{}({})", spec.path(), names.join(",")));
    }
    // Users' clients cache these names: renaming one is a visible change, not a refactoring.
    assert_eq!(
        shape.join(" "),
        concat!(
            "challenge(opponent,variant,color,days,noweekend,rated,level) rematch(opponent) accept(challenge) ",
            "decline(challenge) cancel(challenge) move(move,game) board(game,flip) moves(game,start) confirm(game) settings(change) channel(change) resign(game) ",
            "draw(action,game) claim(game) takeback(action,game) games(scope) history(game) variants() ",
            "rules(variant) help() rating(player,variant) leaderboard(variant) profile(player) ",
            "conditional(game,line) vacation(length) waiting() note(game,text) watch(game) unwatch(game) share(game) unshare(game) ",
            "archive(player,variant,page) ",
            "tournament create(format,variant,rounds,days,rated,limit,starts_in_hours,bye,vacation,name) ",
            "tournament list(page) tournament join(tournament) tournament leave(tournament) ",
            "tournament start(tournament) tournament standings(tournament) tournament pairings(tournament,round) ",
            "tournament withdraw(tournament,player,name) tournament result(game,result,correct,reason,tournament) ",
            "tournament pause(tournament) tournament resume(tournament) tournament cancel(tournament) ",
            "tournament export(tournament) tournament publish(tournament) tournament unpublish(tournament) ",
            "analyse(game) hint(game)"
        )
    );
    let groups = json.as_array().unwrap().iter().filter(|c| c["options"][0]["type"] == 1).count();
    assert_eq!(
        json.as_array().unwrap().len() - groups,
        COMMANDS.iter().filter(|c| c.slash && c.group.is_none()).count()
    );
}

#[test]
fn examples_read_the_same_by_text_and_by_slash() {
    let json = serde_json::to_value(slash_commands()).unwrap();
    for spec in COMMANDS.iter().filter(|c| c.slash) {
        // The table's example takes what a challenge to a person may say; `level` is only for
        // one to the bot, so it has an example of its own here.
        let bot_example = (spec.path() == "challenge").then_some("@tessera chess black level 2");
        let mut shown = std::collections::HashSet::new();
        for example in std::iter::once(spec.example).chain(bot_example) {
            let text = format!("!t {} {example}", spec.path());
            let by_text = match tessera_core::commands::parse(&text) {
                Ok(tessera_core::commands::Parsed::Command(c)) => c,
                other => panic!("{text}: {other:?}"),
            };
            let words: Vec<String> = example
                .split_whitespace()
                .filter(|w| !w.starts_with(['@', '#']))
                .map(str::to_string)
                .collect();
            let game = example.split_whitespace().find_map(|w| w.strip_prefix('#')?.parse().ok());
            let args = command_spec::read_text(spec, &words, game).unwrap();
            let r = registered(&json, &spec.path());
            let options = r["options"].as_array().cloned().unwrap_or_default();
            let mut given: Vec<(&str, Raw)> = Vec::new();
            for (name, value) in args.values() {
                shown.insert(name);
                let j = options.iter().find(|o| o["name"] == name).unwrap();
                let kind = spec.option(name).unwrap().kind;
                // As Discord would send it: the registered type, within its bounds and choices.
                let raw = match (value, j["type"].as_u64().unwrap()) {
                    (command_spec::Value::Number(n), 4) => {
                        let n = if matches!(kind, Kind::Delay) { n / 3600 } else { *n };
                        assert!(j["min_value"].as_i64().is_none_or(|min| n >= min), "{name}");
                        assert!(j["max_value"].as_i64().is_none_or(|max| n <= max), "{name}");
                        Raw::Number(n)
                    }
                    (command_spec::Value::Word(w), 3) => {
                        let choices = j["choices"].as_array().unwrap();
                        assert!(
                            choices.is_empty() || choices.iter().any(|c| c["value"] == w.as_str()),
                            "{name}"
                        );
                        Raw::Word(w)
                    }
                    (command_spec::Value::Flag(b), 5) => Raw::Flag(*b),
                    other => panic!("{}: {name} is {other:?}", spec.path()),
                };
                given.push((name, raw));
            }
            for o in spec.options.iter().filter(|o| matches!(o.kind, Kind::User { .. })) {
                given.push((o.name, Raw::User));
            }
            assert_eq!(commands::from_slash(&spec.path(), &given), Ok(by_text), "{text}");
        }
        // The examples show every option text can give (users and opponents come as mentions).
        for o in spec.options.iter().filter(|o| !matches!(o.kind, Kind::User { .. } | Kind::Opponent)) {
            assert!(shown.contains(o.name), "the examples of {} leave out {}", spec.path(), o.name);
        }
    }
}

#[test]
fn the_slash_commands_are_valid_for_discord() {
    let json = serde_json::to_value(slash_commands()).unwrap();
    let list = json.as_array().unwrap();
    assert!(list.len() <= 100);
    let mut names = std::collections::HashSet::new();
    for c in list {
        let name = c["name"].as_str().unwrap();
        assert!(names.insert(name), "{name} twice");
        assert!(name.len() <= 32 && name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-'));
        let description = c["description"].as_str().unwrap();
        assert!((1..=100).contains(&description.chars().count()), "{name}");
        let options = c["options"].as_array().cloned().unwrap_or_default();
        assert!(options.len() <= 25);
        // Required options come first, as Discord demands.
        let required: Vec<bool> = options.iter().map(|o| o["required"].as_bool().unwrap_or(false)).collect();
        assert!(required.windows(2).all(|w| w[0] || !w[1]), "{name}");
        for o in &options {
            assert!((1..=100).contains(&o["description"].as_str().unwrap().chars().count()), "{name}");
            // A subcommand's own options follow the same rules.
            let inner = o["options"].as_array().cloned().unwrap_or_default();
            assert!(inner.len() <= 25, "{name}");
            let required: Vec<bool> =
                inner.iter().map(|o| o["required"].as_bool().unwrap_or(false)).collect();
            assert!(required.windows(2).all(|w| w[0] || !w[1]), "{name} {}", o["name"]);
            for i in &inner {
                let option = i["name"].as_str().unwrap();
                assert!(option.len() <= 32 && option.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
                assert!((1..=100).contains(&i["description"].as_str().unwrap().chars().count()), "{option}");
            }
        }
        // Every command the service knows is reachable, and every slash command reads.
        if name != "challenge" && name != "tournament" {
            assert!(slash_to_command(name, &[], None).is_ok() || name == "move" || name == "rules", "{name}");
        }
    }
    for autocompleted in ["challenge", "rematch", "move", "rules", "board", "accept"] {
        let c = list.iter().find(|c| c["name"] == autocompleted).unwrap();
        assert!(
            c["options"].as_array().unwrap().iter().any(|o| o["autocomplete"] == true),
            "{autocompleted}"
        );
    }
}
