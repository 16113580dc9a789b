//! A new player's first game of each variant in the local mode, kept as a transcript
//! (`bot/tests/data/transcripts/VARIANT.txt`) so a change in what players read is seen in review.
//! The script: read the rules, challenge, list the turns, try a near-miss and an illegal turn, then
//! play turns chosen by a fixed rule, taking another where the bot warns of a loss, and resign.
//! Every attempted turn must get an answer, and no game may end by rule without a warning first.
//! `TESSERA_BLESS=1` rewrites the transcripts.

use tessera_bot::local::Session;
use tessera_core::service::Service;
use tessera_rules::{Game, Position, Variant, notation};
use tessera_store::SqliteStore;

/// Turns to play before resigning.
const TURNS: usize = 8;

fn transcript(variant: Variant, boards: &std::path::Path) -> String {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    let mut session = Session::new(boards.to_path_buf());
    let mut out = String::new();
    let mut say = |session: &mut Session, line: &str| -> String {
        let answer = session.line(&service, line).unwrap_or_default();
        let answer = answer.replace(&boards.display().to_string(), "<boards>");
        out.push_str(&format!("> {line}\n{answer}\n"));
        answer
    };
    let v = variant.name();
    say(&mut session, &format!("!t rules {v}"));
    say(&mut session, &format!("!t challenge @bob {v} white"));
    say(&mut session, "/as bob");
    say(&mut session, "!t accept");
    let mut game = Game::new(Position::start(variant));
    let players = ["alice", "bob"];
    let mut speaker = "bob";
    let mut warned = false;
    for ply in 0..TURNS {
        let pos = game.position().clone();
        let mover = players[usize::from(pos.turn() == tessera_rules::Color::Black)];
        if mover != speaker {
            say(&mut session, &format!("/as {mover}"));
            speaker = mover;
        }
        if ply == 0 {
            say(&mut session, "!t moves");
            // A near-miss and an illegal turn are answered, and change nothing.
            let near = say(&mut session, "nf3");
            assert!(near.contains("[tessera]"), "{v}: a near-miss is answered");
            let bad = say(&mut session, "Ke1-e5");
            assert!(bad.contains("[tessera]"), "{v}: an illegal turn is answered");
        }
        let mut moves: Vec<(String, tessera_rules::Move)> =
            pos.legal_moves().into_iter().map(|m| (notation::san(&pos, &m), m)).collect();
        moves.sort_by(|a, b| a.0.cmp(&b.0));
        if moves.is_empty() {
            break;
        }
        // A fixed walk through the turns: the same game every run. A turn the bot warns of is
        // swapped for another, up to a few times; then the last one is confirmed.
        let mut tried = 0;
        loop {
            let (text, mv) = &moves[(ply * 7 + tried) % moves.len()];
            let answer = say(&mut session, text);
            assert!(answer.contains("[tessera]"), "{v}: `{text}` got no answer");
            if !answer.contains("Not played yet") {
                assert!(answer.contains(" played "), "{v}: `{text}` was refused: {answer}");
                game.play(*mv).unwrap();
                break;
            }
            tried += 1;
            if tried == 6 || tried == moves.len() {
                let answer = say(&mut session, "!t confirm");
                assert!(answer.contains(" played "), "{v}: the confirmed `{text}`: {answer}");
                game.play(*mv).unwrap();
                warned = true;
                break;
            }
        }
        if let Some(outcome) = game.outcome() {
            // Checkmate may end these short games; a loss by rule only after a warning.
            let how = format!("{outcome}");
            assert!(how.contains("checkmate") || warned, "{v}: the game ended by {outcome} unwarned");
            return out;
        }
    }
    say(&mut session, "!t resign");
    out
}

#[test]
fn a_first_game_of_each_variant_reads_well() {
    let boards = std::env::temp_dir().join(format!("tessera-transcripts-{}", std::process::id()));
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/transcripts");
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let mut changed = Vec::new();
    for &variant in Variant::ALL {
        let text = transcript(variant, &boards);
        let file = dir.join(format!("{}.txt", variant.name()));
        if bless {
            std::fs::write(&file, &text).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            changed.push(variant.name());
        }
    }
    std::fs::remove_dir_all(&boards).ok();
    assert!(
        changed.is_empty(),
        "transcripts differ for {changed:?}: look at them with TESSERA_BLESS=1 and git diff"
    );
}
