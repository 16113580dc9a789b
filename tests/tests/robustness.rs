//! User input never panics: random and mangled move texts, position texts and records, for every
//! variant, get an answer (a move or a reason), never a crash.

use tessera_rules::{Position, Variant, notation, parse_record, replay};
use tessera_tests::XorShift;

const ALPHABET: &[u8] = b"abcdefghKQRBNPxX:=-+#@!()[]{}01234567899SMO. \t/,;$?*";

fn random_text(rng: &mut XorShift, max: usize) -> String {
    let len = rng.next_index() % max;
    (0..len).map(|_| ALPHABET[rng.next_index() % ALPHABET.len()] as char).collect()
}

/// A valid move text with one character changed, dropped or doubled.
fn mangled(rng: &mut XorShift, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let i = rng.next_index() % chars.len();
    match rng.next_index() % 3 {
        0 => chars[i] = ALPHABET[rng.next_index() % ALPHABET.len()] as char,
        1 => {
            chars.remove(i);
        }
        _ => chars.insert(i, chars[i]),
    }
    chars.into_iter().collect()
}

#[test]
fn move_texts_never_panic() {
    let mut rng = XorShift(0xBAD_5EED);
    for &variant in Variant::ALL {
        let pos = Position::start(variant);
        let legal: Vec<String> = pos.legal_moves().iter().take(50).map(|m| notation::lan(&pos, m)).collect();
        for _ in 0..400 {
            let text = random_text(&mut rng, 24);
            let _ = notation::parse_move(&pos, &text);
        }
        for text in &legal {
            for _ in 0..10 {
                let _ = notation::parse_move(&pos, &mangled(&mut rng, text));
            }
        }
    }
}

#[test]
fn position_texts_never_panic() {
    let mut rng = XorShift(0xFE11_0000_0001);
    for &variant in Variant::ALL {
        let fen = variant.start_fen();
        for _ in 0..300 {
            let _ = Position::from_fen(variant, &mangled(&mut rng, fen));
            let _ = Position::from_fen(variant, &random_text(&mut rng, 80));
        }
    }
}

#[test]
fn records_never_panic() {
    let mut rng = XorShift(0x0DD_BA11);
    for &variant in Variant::ALL {
        for _ in 0..100 {
            let text = random_text(&mut rng, 120);
            let _ = parse_record(&text);
            let _ = replay(variant, &text);
        }
    }
}

/// Cases per property: small in `cargo test`, as many as `TESSERA_FUZZ_CASES` says for a long run.
fn fuzz_config() -> proptest::test_runner::Config {
    let cases = std::env::var("TESSERA_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300);
    proptest::test_runner::Config { cases, failure_persistence: None, ..Default::default() }
}

/// Text as players type it: move-like pieces mixed with any Unicode (accents, CJK, emoji,
/// full-width letters, combining marks, byte-order marks, control characters).
fn player_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        Just("e4".to_string()),
        Just("Ng1-f3".to_string()),
        Just("@@e4".to_string()),
        Just("@g1-g3".to_string()),
        Just("[d5]".to_string()),
        Just("=Q".to_string()),
        Just("(N)".to_string()),
        Just("M1".to_string()),
        Just("O-O".to_string()),
        Just("\u{feff}".to_string()),
        Just("ç".to_string()),
        Just("你好".to_string()),
        Just("😀".to_string()),
        Just("Ｋ".to_string()),
        Just("e\u{301}".to_string()),
        "\\PC{0,6}",
        any::<String>(),
    ];
    proptest::collection::vec(piece, 0..6).prop_map(|parts| parts.join(" "))
}

proptest::proptest! {
    #![proptest_config(fuzz_config())]

    #[test]
    fn any_unicode_move_text_gets_an_answer(text in player_text(), v in 0..Variant::ALL.len()) {
        let pos = Position::start(Variant::ALL[v]);
        let _ = notation::parse(&text);
        let _ = notation::parse_move(&pos, &text);
    }

    #[test]
    fn any_unicode_position_text_gets_an_answer(text in player_text(), v in 0..Variant::ALL.len()) {
        let _ = Position::from_fen(Variant::ALL[v], &text);
        let start = Variant::ALL[v].start_fen();
        let _ = Position::from_fen(Variant::ALL[v], &format!("{start} {text}"));
    }

    #[test]
    fn any_unicode_record_gets_an_answer(text in player_text(), v in 0..Variant::ALL.len()) {
        let _ = parse_record(&text);
        let _ = replay(Variant::ALL[v], &text);
        let _ = replay(Variant::ALL[v], &format!("1. e4 {text}"));
    }

    #[test]
    fn any_bytes_as_a_record_get_an_answer(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = replay(Variant::CHESS, &text);
    }
}

#[test]
fn the_reported_texts_are_answered() {
    // Each once panicked: a character split in the middle while reading a move.
    let start = Position::start(Variant::CHESS);
    for text in ["ça va", "für dich", "你好", "e4 😀", "ℵ", "Ｋ", "e\u{301}4"] {
        let err = notation::parse_move(&start, text).unwrap_err();
        assert!(!err.to_string().is_empty(), "{text}");
        assert!(replay(Variant::CHESS, text).is_err(), "{text}");
    }
    // A byte-order mark before a record is not part of it.
    assert!(replay(Variant::CHESS, "\u{feff}1. e4 e5").is_ok());
}
