//! Names as the bot shows them: players' display names and tournaments' names are whatever a
//! platform let someone type, and the bot writes them into prose, code blocks, pictures and TRF
//! files. [`clean`] is applied where a name enters the store, so that everything after it shows a
//! name that
//!
//! * holds no control or format characters: no bidi embeddings, overrides or isolates (U+202A–202E,
//!   U+2066–2069, U+200E/F) to reorder the text around it, no zero-width characters (U+200B–200D,
//!   U+2060–2064, U+FEFF, the soft hyphen…) to hide in it, no line breaks; a zero-width joiner
//!   stays only inside an emoji sequence (👨‍👩‍👧), a variation selector only after an emoji;
//! * has its blanks collapsed to single spaces, and no blank-looking letters (Hangul fillers);
//! * has no backtick, which nothing can escape inside a code span or block (the standings'
//!   ` ``` ` block): each becomes the look-alike `ˋ` (U+02CB);
//! * keeps at most three combining marks on a letter (no "Zalgo" text over the lines around);
//! * is at most [`MAX_NAME`] characters (Discord's display names are at most 32), cut with "…";
//! * is marked when it passes for another: a word mixing Latin letters with Cyrillic or Greek
//!   ones (`tеssera` with a Cyrillic е) gets ` (Latin+Cyrillic)` after the name, and a name
//!   written wholly in another script's look-alikes of Latin letters (Cyrillic `рау` for "pay")
//!   gets ` (Cyrillic)`. The look-alikes are Unicode's confusables (UTS #39) through the
//!   `unicode-security` crate.
//!
//! Markup is not this module's business: each adapter escapes what its platform would read as
//! markup (see `discord.rs`); the local mode prints plain text.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};
use unicode_script::{Script, UnicodeScript};

/// Most characters of a player's name, before any look-alike mark.
pub const MAX_NAME: usize = 32;
/// Most characters of a tournament's name (what `tournament create … name` accepts).
pub const MAX_TITLE: usize = 80;
/// A name with nothing visible left, and no id to fall back on.
pub const UNNAMED: &str = "unnamed";
/// Most combining marks kept on one letter.
const MAX_MARKS: usize = 3;

/// A player's name as the bot shows it (see the module's documentation); [`UNNAMED`] when nothing
/// is left of it.
pub fn clean(raw: &str) -> String {
    clean_or(raw, "")
}

/// [`clean`], falling back on the player's platform id when nothing is left of the name: a Matrix
/// id's localpart (`@bob:example.org` is "bob"), another platform's id as it is, else [`UNNAMED`].
pub fn clean_or(raw: &str, user_id: &str) -> String {
    let text = plain(raw, usize::MAX);
    let text = strip_mark(&text);
    let mut name = cut(text, MAX_NAME);
    if name.is_empty() {
        let local = match user_id.strip_prefix('@').and_then(|id| id.split_once(':')) {
            Some((local, _)) => local,
            None => user_id,
        };
        name = plain(local, MAX_NAME);
    }
    if name.is_empty() {
        return UNNAMED.to_string();
    }
    match look_alike(&name) {
        Some(scripts) => format!("{name} ({scripts})"),
        None => name,
    }
}

/// A tournament's name as the bot shows it: cleaned as a player's is, at most [`MAX_TITLE`]
/// characters, not marked; `None` when nothing is left of it.
pub fn title(raw: &str) -> Option<String> {
    Some(plain(raw, MAX_TITLE)).filter(|t| !t.is_empty())
}

/// `text` cleaned (as [`clean`] does, without marking) and cut to `max` characters with "…": for
/// the narrow columns of a table.
pub fn fit(text: &str, max: usize) -> String {
    plain(text, max)
}

/// Whether a character only looks blank: Hangul fillers and the braille blank are letters and
/// symbols that draw nothing, used for names that look empty.
fn blank_looking(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}')
}

/// Emoji and the characters that take part in their sequences (skin tones, keycaps, VS16).
fn emoji_like(c: char) -> bool {
    !c.is_ascii() && (c.is_emoji_char() || c.is_emoji_component())
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

fn is_mark(c: char) -> bool {
    matches!(c.general_category(), GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark)
}

/// The text with control and format characters gone, blanks collapsed, backticks replaced, marks
/// capped, cut to `max` characters.
fn plain(raw: &str, max: usize) -> String {
    let chars: Vec<char> = raw.nfc().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len().min(4 * MAX_TITLE));
    let mut space = false;
    let mut marks = 0;
    for (i, &c) in chars.iter().enumerate() {
        let category = c.general_category();
        let blank = c.is_whitespace()
            || blank_looking(c)
            || matches!(
                category,
                GeneralCategory::Control
                    | GeneralCategory::SpaceSeparator
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            );
        if blank {
            space = !out.is_empty();
            marks = 0;
            continue;
        }
        let after_emoji = out.last().is_some_and(|&p| emoji_like(p)) && !space;
        let keep = match c {
            // Joins emoji into one picture; anywhere else it only hides.
            '\u{200D}' => after_emoji && chars.get(i + 1).is_some_and(|&n| emoji_like(n)),
            c if is_variation_selector(c) => after_emoji,
            // The combining grapheme joiner draws nothing.
            '\u{034F}' => false,
            _ if category == GeneralCategory::Format => false,
            c if is_mark(c) => {
                // A mark needs a letter to sit on, and only a few fit on one.
                marks += 1;
                marks <= MAX_MARKS && !space && !out.is_empty()
            }
            _ => true,
        };
        if !keep {
            continue;
        }
        if !is_mark(c) {
            marks = 0;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(if c == '`' { 'ˋ' } else { c });
    }
    cut_chars(out, max)
}

/// `text`, at most `max` characters: when longer, cut at a character boundary that separates no
/// letter from its marks nor an emoji sequence, then "…".
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    cut_chars(text.chars().collect(), max)
}

fn cut_chars(mut chars: Vec<char>, max: usize) -> String {
    if chars.len() > max {
        let mut end = max.saturating_sub(1);
        // Back off over what belongs to the character before it.
        while end > 0
            && chars.get(end).is_some_and(|&c| is_mark(c) || is_variation_selector(c) || c == '\u{200D}')
        {
            end -= 1;
        }
        // A joiner cannot end the text.
        while end > 0 && chars[end - 1] == '\u{200D}' {
            end -= 1;
        }
        chars.truncate(end);
        while chars.last() == Some(&' ') {
            chars.pop();
        }
        if max > 0 {
            chars.push('…');
        }
    }
    chars.into_iter().collect()
}

/// The name of a script as the mark writes it.
fn script_name(script: Script) -> &'static str {
    match script {
        Script::Common | Script::Inherited | Script::Unknown => "symbols",
        other => other.full_name(),
    }
}

/// A look-alike mark the text already ends with (` (Latin+Cyrillic)`), taken off: the mark is
/// computed afresh, so [`clean`] gives the same for a name cleaned before, and nobody sets one
/// by hand.
fn strip_mark(text: &str) -> &str {
    let Some(inner) = text.strip_suffix(')') else { return text };
    let Some((name, label)) = inner.rsplit_once(" (") else { return text };
    let known = |part: &str| part == "symbols" || Script::from_full_name(part).is_some();
    if !label.is_empty() && label.split('+').all(known) { name.trim_end() } else { text }
}

/// The scripts a name passes for Latin with, if it does: those of a word that mixes Latin letters
/// with Cyrillic or Greek ones, or those of a name with no Latin letter whose look-alike skeleton
/// (UTS #39) is plain ASCII.
fn look_alike(name: &str) -> Option<String> {
    const CONFUSED: [Script; 3] = [Script::Latin, Script::Greek, Script::Cyrillic];
    let mut mixed = [false; 3];
    for word in name.split(' ') {
        let mut found = [false; 3];
        for c in word.chars().filter(|c| c.is_alphabetic()) {
            if let Some(i) = CONFUSED.iter().position(|&s| s == c.script()) {
                found[i] = true;
            }
        }
        if found[0] && (found[1] || found[2]) {
            mixed.iter_mut().zip(found).for_each(|(m, f)| *m |= f);
        }
    }
    if mixed.iter().any(|&m| m) {
        let scripts: Vec<&str> =
            CONFUSED.iter().zip(mixed).filter(|(_, m)| *m).map(|(s, _)| s.full_name()).collect();
        return Some(scripts.join("+"));
    }
    let foreign: Vec<char> = name.chars().filter(|c| c.is_alphabetic() && !c.is_ascii()).collect();
    if foreign.is_empty()
        || foreign.iter().any(|c| c.script() == Script::Latin)
        || name.chars().any(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    if !unicode_security::skeleton(name).all(|c| c.is_ascii()) {
        return None;
    }
    let mut scripts: Vec<&str> = Vec::new();
    for c in foreign {
        let s = script_name(c.script());
        if !scripts.contains(&s) {
            scripts.push(s);
        }
    }
    Some(scripts.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_kept() {
        for name in [
            "alice",
            "Dvořák",
            "李小龙",
            "José María",
            "Ωmega-Fan 3",
            "Сергей",
            "Γιώργος",
            "😀 bob",
            "O'Brien",
        ] {
            let cleaned = clean(name);
            assert!(cleaned.starts_with(name), "{name} → {cleaned}");
        }
        assert_eq!(clean("alice"), "alice");
        assert_eq!(clean("Сергей"), "Сергей", "a Russian name is no look-alike");
        assert_eq!(clean("Γιώργος"), "Γιώργος");
        assert_eq!(clean("李小龙"), "李小龙");
        // Decomposed accents are composed.
        assert_eq!(clean("Dvor\u{30c}a\u{301}k"), "Dvořák");
    }

    #[test]
    fn bidi_controls_and_zero_width_characters_are_stripped() {
        let cases = [
            ("\u{202e}alice\u{202c}", "alice"),
            ("al\u{202a}i\u{202b}c\u{202d}e", "alice"),
            ("\u{2066}bob\u{2069} \u{2067}x\u{2068}", "bob x"),
            ("\u{200e}carol\u{200f}", "carol"),
            ("d\u{200b}a\u{200c}v\u{200d}e", "dave"),
            ("e\u{2060}v\u{2061}e\u{2062}\u{2063}\u{2064}", "eve"),
            ("\u{feff}frank", "frank"),
            ("gr\u{ad}ace", "grace"),
            ("h\u{34f}al", "hal"),
            ("\u{e0001}\u{e0041}ivan", "ivan"),
            ("ja\u{fe0f}ck", "jack"),
            ("\u{61c}\u{180e}kim", "kim"),
        ];
        for (raw, want) in cases {
            assert_eq!(clean(raw), want, "{raw:?}");
        }
        // Inside emoji sequences the joiner and the selector stay.
        assert_eq!(clean("👨\u{200d}👩\u{200d}👧 fam"), "👨\u{200d}👩\u{200d}👧 fam");
        assert_eq!(clean("❤\u{fe0f} love"), "❤\u{fe0f} love");
        assert_eq!(clean("👍🏽"), "👍🏽");
        assert_eq!(clean("a\u{200d}😀"), "a😀", "a joiner after a letter hides");
    }

    #[test]
    fn controls_and_blanks_collapse_to_single_spaces() {
        assert_eq!(clean("  ann\n\r\tlee\u{0}\u{7}\u{1b}[31m red  "), "ann lee [31m red");
        assert_eq!(clean("a\u{2028}b\u{2029}c\u{85}d\u{3000}e\u{a0}f"), "a b c d e f");
        assert_eq!(clean("x\u{3164}y\u{2800}z\u{115f}"), "x y z");
    }

    #[test]
    fn backticks_cannot_close_a_code_block() {
        assert_eq!(clean("```evil```"), "ˋˋˋevilˋˋˋ");
        assert_eq!(clean("`rm -rf`"), "ˋrm -rfˋ");
        assert!(!clean("a`b``c").contains('`'));
    }

    #[test]
    fn combining_marks_are_capped() {
        let zalgo = format!("q{}algo", "\u{301}\u{302}\u{303}\u{304}\u{305}".repeat(20));
        let cleaned = clean(&zalgo);
        assert_eq!(cleaned, "q\u{301}\u{302}\u{303}algo");
        assert_eq!(clean("\u{301}\u{302}x"), "x", "marks need a letter");
        assert_eq!(clean("a \u{301}b"), "a b");
        // Scripts that stack marks keep their usual few.
        assert_eq!(clean("क्षि"), "क्षि");
    }

    #[test]
    fn long_names_are_cut_to_32_characters() {
        let long = "W".repeat(10_000);
        let cleaned = clean(&long);
        assert_eq!(cleaned.chars().count(), MAX_NAME);
        assert_eq!(cleaned, format!("{}…", "W".repeat(31)));
        assert_eq!(clean(&"x".repeat(32)), "x".repeat(32), "32 fit");
        assert_eq!(clean(&"x".repeat(33)), format!("{}…", "x".repeat(31)));
        // Cut between whole characters: no letter loses its accent, no emoji is split.
        let accented = "e\u{301}".repeat(40);
        let cleaned = clean(&accented);
        assert_eq!(cleaned, format!("{}…", "é".repeat(31)));
        let decomposed = format!("{}x\u{301}\u{302}", "a".repeat(29));
        assert_eq!(clean(&decomposed), decomposed, "32 characters, marks count");
        let decomposed = format!("{}x\u{301}\u{302}yy", "a".repeat(30));
        assert_eq!(clean(&decomposed), format!("{}…", "a".repeat(30)));
        let family = "👨\u{200d}👩\u{200d}👧".repeat(10);
        let cleaned = clean(&family);
        assert!(cleaned.ends_with("👧…"), "{cleaned}");
        assert!(cleaned.chars().count() <= MAX_NAME);
        // Spaces before the cut go.
        assert_eq!(clean(&format!("{} {}", "a".repeat(30), "b".repeat(10))), format!("{}…", "a".repeat(30)));
        // A long run of invisible characters before the name costs nothing visible.
        assert_eq!(clean(&format!("{}zoe", "\u{200b}".repeat(10_000))), "zoe");
    }

    #[test]
    fn an_empty_name_falls_back_on_the_id() {
        for raw in ["", "   ", "\u{200b}\u{202e}\u{feff}", "\u{3164}\u{3164}", "\n\t", "\u{301}"] {
            assert_eq!(clean(raw), UNNAMED, "{raw:?}");
            assert_eq!(clean_or(raw, "@bob:example.org"), "bob", "{raw:?}");
            assert_eq!(clean_or(raw, "123456789012345678"), "123456789012345678");
            assert_eq!(clean_or(raw, "@\u{200b}:x"), UNNAMED);
        }
        assert_eq!(clean_or("ann", "@bob:example.org"), "ann");
        assert_eq!(title("  \u{202e} "), None);
        assert_eq!(title(" Spring\nOpen "), Some("Spring Open".into()));
        assert_eq!(title(&"T".repeat(500)).unwrap().chars().count(), MAX_TITLE);
    }

    #[test]
    fn look_alike_names_are_marked() {
        // tessera with a Cyrillic е (U+0435).
        assert_eq!(clean("t\u{435}ssera"), "t\u{435}ssera (Latin+Cyrillic)");
        assert_ne!(clean("t\u{435}ssera"), clean("tessera"));
        assert_eq!(clean("p\u{430}ypal support"), "p\u{430}ypal support (Latin+Cyrillic)");
        assert_eq!(clean("\u{3bf}scar"), "\u{3bf}scar (Latin+Greek)");
        // A name wholly of Cyrillic look-alikes of Latin letters.
        assert_eq!(clean("\u{440}\u{430}\u{443}"), "\u{440}\u{430}\u{443} (Cyrillic)");
        // Separate words in separate scripts are no disguise; neither is a script of its own.
        assert_eq!(clean("Ivan Иванов"), "Ivan Иванов");
        assert_eq!(clean("Иван"), "Иван");
        // The mark survives cutting, is not doubled, and cannot be faked.
        let long = format!("t\u{435}ssera{}", "x".repeat(40));
        let cleaned = clean(&long);
        assert!(cleaned.ends_with("… (Latin+Cyrillic)"), "{cleaned}");
        assert_eq!(clean(&cleaned), cleaned);
        assert_eq!(clean("tessera (Latin+Cyrillic)"), "tessera");
        assert_eq!(clean("bob (admin)"), "bob (admin)");
    }

    #[test]
    fn cleaning_twice_changes_nothing() {
        let names = [
            "t\u{435}ssera",
            &"W".repeat(10_000),
            "```x```",
            "\u{202e}abc",
            "\u{440}\u{430}\u{443}",
            "a\u{301}\u{302}\u{303}\u{304}",
            "",
            "👨\u{200d}👩\u{200d}👧",
        ];
        for name in names {
            let once = clean(name);
            assert_eq!(clean(&once), once, "{name:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        #[test]
        fn any_name_cleans_to_a_safe_short_one(raw in ".{0,80}", ascii in "[ -~]{0,40}") {
            for raw in [raw.as_str(), ascii.as_str(), &format!("{raw}{ascii}")] {
                let name = clean(raw);
                let (body, mark) = match name.strip_suffix(')').and_then(|n| n.rsplit_once(" (")) {
                    Some((body, mark)) if look_alike(body).as_deref() == Some(mark) => (body, Some(mark)),
                    _ => (name.as_str(), None),
                };
                proptest::prop_assert!(!body.is_empty() && body.chars().count() <= MAX_NAME, "{:?}", name);
                proptest::prop_assert!(mark.is_none_or(|m| m.len() < 40));
                proptest::prop_assert!(!name.contains('`'));
                proptest::prop_assert!(!name.starts_with(' ') && !name.ends_with(' ') && !name.contains("  "));
                for c in name.chars() {
                    let category = c.general_category();
                    proptest::prop_assert!(
                        c == ' ' || !(c.is_whitespace() || matches!(category, GeneralCategory::Control | GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator)),
                        "{:?} in {:?}", c, name
                    );
                    proptest::prop_assert!(category != GeneralCategory::Format || c == '\u{200d}', "{:?} in {:?}", c, name);
                }
                proptest::prop_assert_eq!(clean(&name), name.clone());
                let fitted = fit(raw, 20);
                proptest::prop_assert!(fitted.chars().count() <= 20 && !fitted.contains('\n'));
            }
        }
    }

    #[test]
    fn fitting_cuts_to_a_column() {
        assert_eq!(fit("alice", 20), "alice");
        assert_eq!(fit(&"n".repeat(30), 20), format!("{}…", "n".repeat(19)));
        assert_eq!(fit("a\nb```", 20), "a bˋˋˋ");
    }
}
