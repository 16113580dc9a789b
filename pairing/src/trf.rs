//! FIDE's Tournament Report File (TRF-16), read the way endorsed pairing programs read it.
//!
//! Columns are counted in Unicode characters (a name like `Dvořák` is six), lines end in CR, LF or CRLF,
//! record codes we do not use are ignored, and any bytes at all give either a [`Tournament`] or a
//! [`TrfError`] naming the line: the reader never panics. Its work is bounded: at most
//! [`MAX_TRF_BYTES`] of input and [`MAX_PLAYERS`] players.

use std::fmt;

use crate::tournament::{Colour, Player, PointSystem, ResultCode, RoundEntry, Tournament};

/// The largest TRF file read: 8 MiB. A 4,000-player Swiss of 30 rounds writes about 2 MB.
pub const MAX_TRF_BYTES: usize = 8 << 20;
/// Most players a TRF file may hold: the bot's own Swiss takes at most this many.
pub const MAX_PLAYERS: usize = 4000;

/// Why a TRF file could not be read; `line` counts from 1 (0 when the problem is the whole file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfError {
    pub line: usize,
    pub kind: TrfErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrfErrorKind {
    /// The line is not UTF-8.
    NotUtf8,
    /// The line holds a NUL byte: binary data, not a text file.
    Binary,
    /// The file is larger than `limit` bytes ([`MAX_TRF_BYTES`]).
    TooLarge { limit: usize },
    /// The file names more than `limit` players ([`MAX_PLAYERS`]); `line` is the first too many.
    TooManyPlayers { limit: usize },
    /// A `001` field that should be a number is not (`field` names it).
    BadNumber { field: &'static str },
    /// A round column is malformed (bad colour or result code, or an impossible combination).
    BadRoundEntry { round: usize },
    /// Text after the last whole round column.
    TrailingText,
    /// Two `001` lines with the same start number.
    DuplicateStartNumber { id: u32 },
    /// Start numbers must be 1..N with no gap; this one is missing.
    MissingStartNumber { id: u32 },
    /// A round entry names a start number that is not in the file, or the player himself.
    UnknownOpponent { id: u32, round: usize, opponent: u32 },
    /// A played game whose opponent's column does not name the player back with the other colour.
    InconsistentGame { id: u32, round: usize },
    /// No `XXR` (total rounds) line, or a bad one.
    MissingTotalRounds,
    /// A points line (`BBW` ...) that is not a number.
    BadPoints,
}

impl fmt::Display for TrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            TrfErrorKind::NotUtf8 => write!(f, "not UTF-8 text; a TRF file is text"),
            TrfErrorKind::Binary => write!(f, "binary data (a NUL byte), not a TRF text file"),
            TrfErrorKind::TooLarge { limit } => {
                write!(f, "larger than {} MiB, the most a TRF file may be", limit >> 20)
            }
            TrfErrorKind::TooManyPlayers { limit } => {
                write!(f, "more than {limit} players, the most a tournament may have")
            }
            TrfErrorKind::BadNumber { field } => write!(f, "the {field} is not a number"),
            TrfErrorKind::BadRoundEntry { round } => write!(f, "round {round}: malformed entry"),
            TrfErrorKind::TrailingText => write!(f, "text after the last round column"),
            TrfErrorKind::DuplicateStartNumber { id } => write!(f, "start number {id} appears twice"),
            TrfErrorKind::MissingStartNumber { id } => {
                write!(f, "start number {id} is missing (start numbers must be 1..N)")
            }
            TrfErrorKind::UnknownOpponent { id, round, opponent } => {
                write!(f, "player {id}, round {round}: no player {opponent} to play")
            }
            TrfErrorKind::InconsistentGame { id, round } => {
                write!(f, "player {id}, round {round}: the opponent's entry does not match")
            }
            TrfErrorKind::MissingTotalRounds => write!(f, "no total number of rounds (XXR)"),
            TrfErrorKind::BadPoints => write!(f, "bad points value"),
        }
    }
}

impl std::error::Error for TrfError {}

fn err(line: usize, kind: TrfErrorKind) -> TrfError {
    TrfError { line, kind }
}

/// Splits on CR, LF or CRLF, numbering lines from 1, one line at a time (a file of line ends
/// alone is no list of millions).
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    let mut number = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let rest = &bytes[start..];
        let end = rest.iter().position(|&b| b == b'\r' || b == b'\n').unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = if rest[end..].starts_with(b"\r\n") { 2 } else { usize::from(end < rest.len()) };
        start += end + skip;
        number += 1;
        Some((number, line))
    })
}

fn field(chars: &[char], from: usize, to: usize) -> String {
    let to = to.min(chars.len());
    if from >= to {
        return String::new();
    }
    chars[from..to].iter().collect::<String>().trim().to_string()
}

fn parse_number(text: &str, line: usize, name: &'static str) -> Result<Option<u32>, TrfError> {
    if text.is_empty() {
        return Ok(None);
    }
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(err(line, TrfErrorKind::BadNumber { field: name }));
    }
    text.parse::<u32>().map(Some).map_err(|_| err(line, TrfErrorKind::BadNumber { field: name }))
}

/// Points written with one decimal (`1.5`, ` 3`), in tenths.
fn parse_points(text: &str) -> Option<u32> {
    let text = text.trim();
    let (whole, tenth) = match text.split_once('.') {
        Some((w, t)) => (w, t),
        None => (text, "0"),
    };
    if whole.is_empty() && tenth.is_empty() {
        return None;
    }
    let whole: u32 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    if tenth.len() > 1 || !tenth.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let tenth: u32 = if tenth.is_empty() { 0 } else { tenth.parse().ok()? };
    whole.checked_mul(10)?.checked_add(tenth)
}

fn parse_entry(chars: &[char], line: usize, round: usize) -> Result<RoundEntry, TrfError> {
    let bad = || err(line, TrfErrorKind::BadRoundEntry { round });
    let opponent_text: String = chars[0..4].iter().collect();
    let opponent = if opponent_text.trim().is_empty() {
        None
    } else {
        let text = opponent_text.trim();
        if !text.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        match text.parse::<u32>().map_err(|_| bad())? {
            0 => None,
            n => Some(n),
        }
    };
    let colour = match chars[5] {
        'w' | 'W' => Some(Colour::White),
        'b' | 'B' => Some(Colour::Black),
        '-' | ' ' => None,
        _ => return Err(bad()),
    };
    let result = ResultCode::from_char(chars[7]).ok_or_else(bad)?;
    let entry = RoundEntry { opponent, colour, result };
    if !crate::tournament::entry_is_valid(&entry) {
        return Err(bad());
    }
    Ok(entry)
}

fn parse_player(chars: &[char], line: usize) -> Result<Player, TrfError> {
    let id = parse_number(&field(chars, 4, 8), line, "start number")?
        .ok_or(err(line, TrfErrorKind::BadNumber { field: "start number" }))?;
    let rating = parse_number(&field(chars, 48, 52), line, "rating")?.unwrap_or(0);
    let rating = u16::try_from(rating).map_err(|_| err(line, TrfErrorKind::BadNumber { field: "rating" }))?;
    let mut rounds = Vec::new();
    let mut start = 91;
    while start + 8 <= chars.len() {
        rounds.push(parse_entry(&chars[start..start + 8], line, rounds.len() + 1)?);
        start += 10;
    }
    if chars.iter().skip(start).any(|&c| c != ' ') {
        return Err(err(line, TrfErrorKind::TrailingText));
    }
    while rounds.last().is_some_and(RoundEntry::is_blank) {
        rounds.pop();
    }
    Ok(Player {
        id,
        sex: field(chars, 9, 10),
        title: field(chars, 10, 13),
        name: field(chars, 14, 47),
        rating,
        federation: field(chars, 53, 56),
        fide_id: field(chars, 57, 68),
        birth_date: field(chars, 69, 79),
        rounds,
    })
}

/// Reads a TRF-16 file.
///
/// `001` lines give the players (start number, name, rating, round columns; the score column is ignored
/// and recomputed), `012` the name, `XXR` (or `142`) the total rounds and is required, `XXC white1|black1`
/// the first round's colour, and `BBW BBD BBL BBZ BBF BBU` a point system other than 1-½-0. Other records
/// are ignored.
///
/// # Errors
/// A [`TrfError`] with the line of the first problem; input over [`MAX_TRF_BYTES`] or with more
/// than [`MAX_PLAYERS`] players is refused before it is read further.
pub fn read_trf(bytes: &[u8]) -> Result<Tournament, TrfError> {
    if bytes.len() > MAX_TRF_BYTES {
        return Err(err(0, TrfErrorKind::TooLarge { limit: MAX_TRF_BYTES }));
    }
    let mut tournament = Tournament::default();
    let mut players: Vec<(usize, Player)> = Vec::new();
    let mut total_rounds = None;
    let mut pairing_bye_given = false;
    for (number, raw) in lines(bytes) {
        if raw.contains(&0) {
            return Err(err(number, TrfErrorKind::Binary));
        }
        let text = std::str::from_utf8(raw).map_err(|_| err(number, TrfErrorKind::NotUtf8))?;
        let chars: Vec<char> = text.chars().collect();
        if chars.len() < 3 {
            continue;
        }
        let code: String = chars[0..3].iter().collect();
        let rest = || chars[3..].iter().collect::<String>();
        let points = || parse_points(&rest()).ok_or(err(number, TrfErrorKind::BadPoints));
        match code.as_str() {
            "001" if players.len() == MAX_PLAYERS => {
                return Err(err(number, TrfErrorKind::TooManyPlayers { limit: MAX_PLAYERS }));
            }
            "001" => players.push((number, parse_player(&chars, number)?)),
            "012" => tournament.name = Some(rest().trim().to_string()).filter(|n| !n.is_empty()),
            "XXR" | "142" => {
                let rounds = rest().trim().parse::<u32>().ok().filter(|&r| r > 0);
                total_rounds = Some(rounds.ok_or(err(number, TrfErrorKind::MissingTotalRounds))?);
            }
            "XXC" => {
                for token in rest().split_whitespace() {
                    match token {
                        "white1" => tournament.initial_colour = Some(Colour::White),
                        "black1" => tournament.initial_colour = Some(Colour::Black),
                        _ => {}
                    }
                }
            }
            "BBW" => tournament.points.win = points()?,
            "BBD" => tournament.points.draw = points()?,
            "BBL" => tournament.points.loss = points()?,
            "BBZ" => tournament.points.zero_bye = points()?,
            "BBF" => tournament.points.forfeit_loss = points()?,
            "BBU" => {
                tournament.points.pairing_bye = points()?;
                pairing_bye_given = true;
            }
            _ => {}
        }
    }
    tournament.total_rounds = total_rounds.ok_or(err(0, TrfErrorKind::MissingTotalRounds))?;
    if !pairing_bye_given {
        tournament.points.pairing_bye = tournament.points.win;
    }

    players.sort_by_key(|(_, p)| p.id);
    for pair in players.windows(2) {
        if pair[0].1.id == pair[1].1.id {
            return Err(err(pair[1].0, TrfErrorKind::DuplicateStartNumber { id: pair[1].1.id }));
        }
    }
    for (index, (_, player)) in players.iter().enumerate() {
        let expected = index as u32 + 1;
        if player.id != expected {
            return Err(err(0, TrfErrorKind::MissingStartNumber { id: expected }));
        }
    }
    let line_of: Vec<usize> = players.iter().map(|(l, _)| *l).collect();
    tournament.players = players.into_iter().map(|(_, p)| p).collect();
    tournament.validate().map_err(|problem| {
        use crate::tournament::InvalidTournament as I;
        let line_for = |id: u32| line_of.get(id as usize - 1).copied().unwrap_or(0);
        match problem {
            I::UnknownOpponent { player, round, opponent } => {
                err(line_for(player), TrfErrorKind::UnknownOpponent { id: player, round, opponent })
            }
            I::InconsistentGame { player, round } => {
                err(line_for(player), TrfErrorKind::InconsistentGame { id: player, round })
            }
            I::BadEntry { player, round } => err(line_for(player), TrfErrorKind::BadRoundEntry { round }),
            I::BadStartNumbers { index, .. } => {
                err(0, TrfErrorKind::MissingStartNumber { id: index as u32 + 1 })
            }
            I::NoTotalRounds | I::Finished { .. } => err(0, TrfErrorKind::MissingTotalRounds),
        }
    })?;
    Ok(tournament)
}

/// A text field as its columns hold it, counted in characters whatever they are: line breaks and
/// other control characters (which would end the record or shift what follows) become spaces,
/// then at most `width` characters are kept.
fn cut(text: &str, width: usize) -> String {
    let plain: String = text
        .chars()
        .map(|c| if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c })
        .collect();
    plain.trim().chars().take(width).collect()
}

fn format_points(points: u32) -> String {
    format!("{}.{}", points / 10, points % 10)
}

/// Writes a tournament as TRF-16 (LF line ends). [`read_trf`] reads it back equal, provided the text
/// fields fit their columns (name 33 characters, title 3, federation 3, FIDE id 11, birth date 10) and
/// have no spaces at either end nor control characters. Whatever the fields hold, every column stays
/// in place: fields are cut to their width in characters, and line breaks in them become spaces.
#[must_use]
pub fn write_trf(tournament: &Tournament) -> String {
    let mut out = String::new();
    if let Some(name) = &tournament.name {
        out.push_str(&format!("012 {}\n", cut(name, usize::MAX)));
    }
    let scores: Vec<u32> = tournament
        .players
        .iter()
        .map(|p| tournament.score_after(p, p.entered_rounds().max(p.rounds.len())))
        .collect();
    let mut order: Vec<usize> = (0..tournament.players.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(scores[i]), i));
    let mut rank = vec![0; order.len()];
    for (position, &i) in order.iter().enumerate() {
        rank[i] = position + 1;
    }
    for (i, player) in tournament.players.iter().enumerate() {
        let mut line = format!(
            "001 {:>4} {:1}{:>3} {:<33} {:>4} {:<3} {:>11} {:<10} {:>4} {:>4}",
            player.id,
            cut(&player.sex, 1),
            cut(&player.title, 3),
            cut(&player.name, 33),
            if player.rating == 0 { String::new() } else { player.rating.to_string() },
            cut(&player.federation, 3),
            cut(&player.fide_id, 11),
            cut(&player.birth_date, 10),
            format_points(scores[i]),
            rank[i],
        );
        for entry in &player.rounds[..player.entered_rounds()] {
            if entry.is_blank() {
                line.push_str("          ");
                continue;
            }
            let opponent = entry.opponent.map_or_else(|| "0000".to_string(), |o| format!("{o:>4}"));
            let colour = match entry.colour {
                Some(Colour::White) => 'w',
                Some(Colour::Black) => 'b',
                None => '-',
            };
            line.push_str(&format!("  {opponent} {colour} {}", entry.result.to_char()));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!("XXR {}\n", tournament.total_rounds));
    match tournament.initial_colour {
        Some(Colour::White) => out.push_str("XXC white1\n"),
        Some(Colour::Black) => out.push_str("XXC black1\n"),
        None => {}
    }
    let points = tournament.points;
    if points != PointSystem::default() {
        for (code, value) in [
            ("BBW", points.win),
            ("BBD", points.draw),
            ("BBL", points.loss),
            ("BBZ", points.zero_bye),
            ("BBF", points.forfeit_loss),
            ("BBU", points.pairing_bye),
        ] {
            out.push_str(&format!("{code} {:>4}\n", format_points(value)));
        }
    }
    out
}
