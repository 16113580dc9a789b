//! Reading and writing TRF-16 as endorsed programs do.

mod common;

use proptest::prelude::*;
use tessera_pairing::{
    Colour, MAX_PLAYERS, MAX_TRF_BYTES, Player, ResultCode, RoundEntry, Tournament, TrfErrorKind,
    pair_next_round, read_trf, write_trf,
};

/// A `001` line with the fixed columns, then round entries.
fn line(id: u32, name: &str, rating: u16, entries: &[&str]) -> String {
    let mut out = format!(
        "001 {id:>4} {:1}{:>3} {name:<33} {rating:>4} {:3} {:>11} {:10} {:>4} {id:>4}",
        "", "", "", "", "", "0.0"
    );
    for e in entries {
        out.push_str("  ");
        out.push_str(e);
    }
    out
}

#[test]
fn reads_unicode_names_and_any_line_end() {
    let lines = [
        line(1, "Dvořák, Antonín", 2200, &["   2 w 1"]),
        line(2, "Smetana, Bedřich", 2100, &["   1 b 0"]),
        "XXR 3".to_string(),
        "XXC white1".to_string(),
        "999 an unknown record".to_string(),
    ];
    for end in ["\n", "\r\n", "\r"] {
        let text = lines.join(end);
        let t = read_trf(text.as_bytes()).unwrap();
        assert_eq!(t.players[0].name, "Dvořák, Antonín");
        assert_eq!(t.players[0].rounds, vec![RoundEntry::game(2, Colour::White, ResultCode::Win)]);
        assert_eq!(t.players[1].rating, 2100);
        assert_eq!(t.total_rounds, 3);
        assert_eq!(t.initial_colour, Some(Colour::White));
        assert_eq!(t.played_rounds(), 1);
    }
}

#[test]
fn total_rounds_are_required_and_start_numbers_have_no_gaps() {
    let no_xxr = line(1, "A", 0, &[]);
    assert_eq!(read_trf(no_xxr.as_bytes()).unwrap_err().kind, TrfErrorKind::MissingTotalRounds);
    let gap = [line(1, "A", 0, &[]), line(3, "C", 0, &[]), "XXR 2".into()].join("\n");
    assert_eq!(read_trf(gap.as_bytes()).unwrap_err().kind, TrfErrorKind::MissingStartNumber { id: 2 });
    let twice = [line(1, "A", 0, &[]), line(1, "B", 0, &[]), "XXR 2".into()].join("\n");
    let error = read_trf(twice.as_bytes()).unwrap_err();
    assert_eq!((error.line, error.kind), (2, TrfErrorKind::DuplicateStartNumber { id: 1 }));
    let bad = [line(1, "A", 0, &["   2 x 1"]), line(2, "B", 0, &["   1 b 0"]), "XXR 2".into()].join("\n");
    let error = read_trf(bad.as_bytes()).unwrap_err();
    assert_eq!((error.line, error.kind), (1, TrfErrorKind::BadRoundEntry { round: 1 }));
    let inconsistent =
        [line(1, "A", 0, &["   2 w 1"]), line(2, "B", 0, &["   1 w 0"]), "XXR 2".into()].join("\n");
    assert_eq!(
        read_trf(inconsistent.as_bytes()).unwrap_err().kind,
        TrfErrorKind::InconsistentGame { id: 1, round: 1 }
    );
    assert_eq!(read_trf(b"\xff\xfe001").unwrap_err().kind, TrfErrorKind::NotUtf8);
}

#[test]
fn the_round_to_pair_follows_the_last_played_column_and_byes_in_it_leave_players_out() {
    // Round 1 played; round 2's column already holds 3's half-point bye and 4's absence.
    let text = [
        line(1, "A", 0, &["   2 w 1"]),
        line(2, "B", 0, &["   1 b 0"]),
        line(3, "C", 0, &["   4 w =", "0000 - H"]),
        line(4, "D", 0, &["   3 b =", "0000 - -"]),
        line(5, "E", 0, &["0000 - U"]),
        "XXR 3".into(),
    ]
    .join("\n");
    let t = read_trf(text.as_bytes()).unwrap();
    assert_eq!(t.played_rounds(), 1);
    let p = pair_next_round(&t).unwrap();
    // 1, 2, 5 are paired; 5 had the PAB so 2 (lowest score) gets this one; 1 had White, so Black now.
    assert_eq!(p.to_text(), "2\n5 1\n2 0\n");
}

#[test]
fn forfeits_are_not_games_and_the_two_may_meet_again() {
    let text = [line(1, "A", 0, &["   2 w +"]), line(2, "B", 0, &["   1 b -"]), "XXR 3".into()].join("\n");
    let t = read_trf(text.as_bytes()).unwrap();
    let p = pair_next_round(&t).unwrap();
    assert_eq!(p.boards.len(), 1);
}

#[test]
fn input_is_capped_in_size_and_players() {
    // Over the size cap: refused before anything is parsed, whatever it holds.
    let huge = vec![b'\n'; MAX_TRF_BYTES + 1];
    let error = read_trf(&huge).unwrap_err();
    assert_eq!((error.line, &error.kind), (0, &TrfErrorKind::TooLarge { limit: MAX_TRF_BYTES }));
    assert_eq!(error.to_string(), "larger than 8 MiB, the most a TRF file may be");
    // Exactly at the cap is read (and here fails for want of players and rounds, not size).
    let full = vec![b'\n'; MAX_TRF_BYTES];
    assert_eq!(read_trf(&full).unwrap_err().kind, TrfErrorKind::MissingTotalRounds);
    // One player more than the cap: refused at that player's line.
    let mut text: String = (1..=MAX_PLAYERS as u32 + 1).map(|id| line(id, "P", 0, &[]) + "\n").collect();
    text.push_str("XXR 3\n");
    let error = read_trf(text.as_bytes()).unwrap_err();
    assert_eq!((error.line, &error.kind), (MAX_PLAYERS + 1, &TrfErrorKind::TooManyPlayers { limit: 4000 }));
    assert_eq!(error.to_string(), "line 4001: more than 4000 players, the most a tournament may have");
    // The cap itself is accepted.
    let text: String =
        (1..=MAX_PLAYERS as u32).map(|id| line(id, "P", 0, &[]) + "\n").chain(["XXR 3".into()]).collect();
    assert_eq!(read_trf(text.as_bytes()).unwrap().players.len(), MAX_PLAYERS);
    // Binary data says so.
    let error = read_trf(b"012 x\n\0\0\0\0").unwrap_err();
    assert_eq!((error.line, &error.kind), (2, &TrfErrorKind::Binary));
    assert_eq!(error.to_string(), "line 2: binary data (a NUL byte), not a TRF text file");
}

#[test]
fn hostile_names_keep_every_column_in_place() {
    let names = [
        "李".repeat(60),
        "Dvor\u{30c}a\u{301}k ".repeat(12),
        "😀👨\u{200d}👩\u{200d}👧".repeat(20),
        "x\n001 9999      forged".to_string(),
        "tab\there\rcr\u{2028}ls\u{85}nel".to_string(),
        "\u{202e}evil\u{202c} ```**x**".to_string(),
        "ｗｉｄｅ".repeat(10),
        "W".repeat(10_000),
    ];
    let players: Vec<Player> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Player {
            id: i as u32 + 1,
            name: name.clone(),
            rating: 1500 + i as u16,
            title: "GMXX".into(),
            federation: "Ω\nÅÅÅ".into(),
            ..Player::default()
        })
        .collect();
    let mut t = Tournament {
        name: Some("Open\n001    1 forged\rXXR 1".into()),
        total_rounds: 3,
        players,
        ..Tournament::default()
    };
    for round in 1..=2 {
        let p = pair_next_round(&t).unwrap();
        let results = vec![ResultCode::Win; p.boards.len()];
        common::record(&mut t, round, &p, &results);
    }
    let text = write_trf(&t);
    let lines: Vec<&str> = text.lines().collect();
    // One line per player, the name line, XXR: nothing a name held started a record.
    assert_eq!(lines.len(), names.len() + 2, "{text}");
    assert_eq!(lines[0], "012 Open 001    1 forged XXR 1");
    let records: Vec<&str> = lines.iter().map(|l| &l[..3]).collect();
    assert_eq!(records.iter().filter(|r| **r == "001").count(), names.len());
    for (i, line) in lines[1..=names.len()].iter().enumerate() {
        // TRF-16's columns (1-based): 1-3 code, 5-8 start number, 10 sex, 11-13 title, 15-47 name,
        // 49-52 rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date, 81-84 points, 86-89 rank,
        // then per round 92-95 opponent, 97 colour, 99 result, every 10 columns.
        let chars: Vec<char> = line.chars().collect();
        let col = |from: usize, to: usize| chars[from - 1..to].iter().collect::<String>();
        assert_eq!(col(1, 3), "001");
        assert_eq!(col(5, 8), format!("{:>4}", i + 1), "{line}");
        assert_eq!(col(11, 13), "GMX");
        let shown: String =
            names[i].chars().map(|c| if c.is_control() || c == '\u{2028}' { ' ' } else { c }).collect();
        let shown: String = shown.trim().chars().take(33).collect();
        assert_eq!(col(15, 47), format!("{shown:<33}"), "{line}");
        assert_eq!([col(14, 14), col(48, 48), col(53, 53)], [" ", " ", " "], "{line}");
        assert_eq!(col(49, 52), (1500 + i).to_string());
        assert_eq!(col(54, 56), "Ω Å");
        assert!(col(81, 84).trim().parse::<f64>().is_ok(), "{line}");
        assert!(col(86, 89).trim().parse::<u32>().is_ok(), "{line}");
        for round in 0..2 {
            let at = 92 + 10 * round;
            assert!(col(at, at + 3).trim().parse::<u32>().is_ok(), "{line}");
            assert!(matches!(col(at + 5, at + 5).as_str(), "w" | "b" | "-"), "{line}");
        }
        assert_eq!(chars.len(), 91 + 10 + 8, "{line}");
    }
    // It reads back: the same games, the names as cut.
    let back = read_trf(text.as_bytes()).unwrap();
    assert_eq!(back.players.len(), names.len());
    for (a, b) in back.players.iter().zip(&t.players) {
        assert_eq!(a.rounds, b.rounds);
        assert_eq!(a.rating, b.rating);
        assert!(a.name.chars().count() <= 33);
    }
    assert_eq!(pair_next_round(&back), pair_next_round(&t));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_bytes_give_a_tournament_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_trf(&bytes);
    }

    #[test]
    fn mangled_files_never_panic(cut in 0usize..400, byte: u8, at in 0usize..400) {
        let text = [line(1, "Dvořák", 2000, &["   2 w 1", "0000 - H"]), line(2, "B", 1900, &["   1 b 0"]), "XXR 5".into()]
            .join("\r\n");
        let mut bytes = text.into_bytes();
        bytes.truncate(cut.max(1));
        if at < bytes.len() {
            bytes[at] = byte;
        }
        if let Ok(t) = read_trf(&bytes) {
            let _ = pair_next_round(&t);
        }
    }

    #[test]
    fn written_tournaments_read_back_equal(players in 2u32..30, rounds in 1u32..8, seed: u64) {
        let mut t = common::fresh(players, rounds + 1);
        t.name = Some("Open ♞ 2025".into());
        t.players[0].name = "Dvořák, Antonín".into();
        t.players[0].title = "GM".into();
        t.players[0].federation = "CZE".into();
        let mut state = seed | 1;
        for round in 1..=rounds as usize {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let Ok(p) = pair_next_round(&t) else { break };
            let results: Vec<ResultCode> = p.boards.iter().enumerate()
                .map(|(i, _)| [ResultCode::Win, ResultCode::Draw, ResultCode::Loss, ResultCode::ForfeitWin][((state >> (i % 60)) % 4) as usize])
                .collect();
            common::record(&mut t, round, &p, &results);
        }
        let text = write_trf(&t);
        prop_assert_eq!(read_trf(text.as_bytes()).unwrap(), t);
    }
}
