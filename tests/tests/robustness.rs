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
