//! Unit tests of the service's helpers; the service as a whole is tested in `bot/tests/`.

use super::turns::{shrink_note, shrink_promotion_note};
use super::*;

#[test]
fn a_shrink_says_what_vanished_and_where_the_piece_went() {
    let pos = Position::from_fen(Variant::SHRINK, "4k3/8/8/8/8/8/1K6/7R w - - 0 1").unwrap();
    let mv = notation::parse_move(&pos, "Rh1-h5").unwrap();
    assert_eq!(
        shrink_note(&pos, &mv, &pos.played(&mv)),
        " the 1st rank vanished: the board is now 8×7, and the ranks above it moved down one: every piece \
         there was renamed (the rook on h5 is now on h4)."
    );
    // A file: everything right of it is renamed.
    let pos = Position::from_fen(Variant::SHRINK, "4k3/8/8/8/8/8/7K/R7 w - - 0 1").unwrap();
    let mv = notation::parse_move(&pos, "Ra1-h1").unwrap();
    let note = shrink_note(&pos, &mv, &pos.played(&mv));
    assert!(note.starts_with(" the a-file vanish"), "{note}");
    assert!(note.contains("the files right of it moved left one: every piece there was renamed"), "{note}");
    // The top rank: nothing lies beyond it, so nothing is renamed.
    let pos = Position::from_fen(Variant::SHRINK, "7r/8/8/8/k7/8/8/K7 b - - 0 1").unwrap();
    let mv = notation::parse_move(&pos, "Rh8-h5").unwrap();
    assert_eq!(shrink_note(&pos, &mv, &pos.played(&mv)), " the 8th rank vanished: the board is now 8×7.");
    // A move that renames others, not itself: the note names one of them, once.
    let pos = Position::from_fen(Variant::SHRINK, "3qk3/8/8/8/8/2R5/8/4K3 w - - 0 1").unwrap();
    let mv = notation::parse_move(&pos, "Rc3-c1").unwrap();
    let note = shrink_note(&pos, &mv, &pos.played(&mv));
    assert_eq!(
        note,
        " the 3rd rank vanished: the board is now 8×7, and the ranks above it moved down one: every piece \
         there was renamed (the queen on d8 is now on d7)."
    );
    let start = Position::start(Variant::SHRINK);
    let quiet = notation::parse_move(&start, "Nc3").unwrap();
    assert_eq!(shrink_note(&start, &quiet, &start.played(&quiet)), "");
}

#[test]
fn pgn_dates_are_utc_calendar_days() {
    assert_eq!(pgn_date(0), "1970.01.01");
    assert_eq!(pgn_date(951_782_400), "2000.02.29");
    assert_eq!(pgn_date(1_795_478_399), "2026.11.23");
    assert_eq!(pgn_date(-86_400), "1969.12.31");
}

#[test]
fn a_long_reply_is_cut_at_a_line_and_says_so() {
    let short = Reply::text("a\nb");
    assert_eq!(short.clone().capped(), short);
    let long: String = (0..3000).map(|i| format!("board {i}: ann – bob\n")).collect();
    let capped = Reply { notify: vec!["ann".into()], ..Reply::text(long) }.capped();
    assert!(capped.text.chars().count() <= MAX_REPLY_CHARS);
    assert!(capped.text.starts_with("board 0: ann – bob\nboard 1:"));
    let shown = capped.text.lines().filter(|l| l.starts_with("board ")).count();
    assert!(capped.text.ends_with(&format!(
        "… {} more lines are not shown here; the whole answer is attached ({LONG_ANSWER_FILE}).",
        3000 - shown
    )));
    let whole: String = (0..3000).map(|i| format!("board {i}: ann – bob\n")).collect();
    assert_eq!(capped.files, [Attachment { name: LONG_ANSWER_FILE.into(), bytes: whole.into_bytes() }]);
    assert_eq!(capped.notify, ["ann"], "the players it pings stay");
    // Private words are cut too (a clock's direct messages), and a file over the limit is left
    // out with a word why.
    let big = Attachment { name: "huge.pgn".into(), bytes: vec![b'x'; MAX_FILE_BYTES + 1] };
    let dm = Reply {
        direct: vec![("ann".into(), "x\n".repeat(MAX_REPLY_CHARS))],
        files: vec![big],
        ..Reply::text("short")
    }
    .capped();
    assert!(dm.direct[0].1.chars().count() <= MAX_REPLY_CHARS, "{}", dm.direct[0].1.len());
    assert!(dm.files.is_empty() && dm.text.starts_with("short\n(huge.pgn left out"), "{}", dm.text);
    // One unbroken line of any script is cut at a character, never inside one.
    let wall = Reply::text("ж".repeat(20_000)).capped();
    assert!(wall.text.chars().count() <= MAX_REPLY_CHARS && wall.text.starts_with("жж"));
}

#[test]
fn the_reply_names_a_shrink_promotion_nobody_chose() {
    let shrink = |fen: &str, text: &str| {
        let pos = Position::from_fen(Variant::SHRINK, fen).unwrap();
        let parsed = notation::parse(text).unwrap();
        let mv = parsed.resolve(&pos).unwrap();
        shrink_promotion_note(&pos, &mv, &parsed.shrink_promotions)
    };
    // A queen on a1 would check White's king on e1 after the shrink; so would a rook.
    let note = shrink("4k3/8/8/8/8/8/p3K3/7R w - - 0 1", "Rh1-h5");
    assert_eq!(
        note,
        " The pawn on a1 became a bishop (no piece was named, and a queen or rook there would \
         leave your king in check; write [a1=N] to choose)."
    );
    assert_eq!(
        shrink("4k3/8/8/8/8/4K3/p7/7R w - - 0 1", "Rh3"),
        " The pawn on a1 became a queen (no piece was named; write [a1=N] to choose)."
    );
    assert_eq!(shrink("4k3/8/8/8/8/4K3/p7/7R w - - 0 1", "Rh1-h3[a1=N]"), "");
}
