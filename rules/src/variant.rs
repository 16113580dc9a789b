//! The closed set of games Tessera plays, with their names and the rule switches that set them apart.

use std::fmt;
use std::str::FromStr;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// FIDE chess.
    Chess,
}

/// What ends a game when the side to move has no legal turn and is not in check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StalemateRule {
    Draw,
    /// The stalemated side loses (the limited-squares family, L8).
    Loss,
}

impl Variant {
    /// Every variant `tessera variants` lists, in the order it lists them.
    pub const ALL: &'static [Variant] = &[Variant::Chess];

    /// The canonical name, used in commands, records and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
        }
    }

    /// Other names players type for the same game.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::Chess => &["fide", "standard", "orthodox"],
        }
    }

    /// A one-line description for `tessera variants` and the help command.
    pub fn summary(self) -> &'static str {
        match self {
            Variant::Chess => "FIDE chess on the full 8x8 board",
        }
    }

    /// The start position in Tessera's text format.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::Chess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        }
    }

    pub fn stalemate(self) -> StalemateRule {
        match self {
            Variant::Chess => StalemateRule::Draw,
        }
    }

    /// Whether a piece move leaves every square and hole where it was. Move generation takes
    /// shortcuts (pins, king steps) only then.
    pub fn piece_moves_keep_geometry(self) -> bool {
        match self {
            Variant::Chess => true,
        }
    }

    /// Whether a lone-minor-piece ending is a draw by rule (G4).
    pub fn insufficient_material_draws(self) -> bool {
        matches!(self, Variant::Chess)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        write!(
            f,
            "unknown variant \"{}\"; choose one of: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    /// Accepts names and aliases in any case, with `-`, `_` or spaces between words.
    fn from_str(text: &str) -> Result<Variant, UnknownVariant> {
        let norm = |s: &str| -> String {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let wanted = norm(text);
        Variant::ALL
            .iter()
            .copied()
            .find(|v| norm(v.name()) == wanted || v.aliases().iter().any(|a| norm(a) == wanted))
            .ok_or_else(|| UnknownVariant(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse() {
        for &v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            for a in v.aliases() {
                assert_eq!(a.parse::<Variant>(), Ok(v));
            }
        }
        assert_eq!("FIDE".parse::<Variant>(), Ok(Variant::Chess));
        let err = "checkers".parse::<Variant>().unwrap_err();
        assert!(err.to_string().contains("chess"));
    }
}
