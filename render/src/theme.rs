//! Colour themes. The default reads well on both Discord's dark and light backgrounds: a dark frame,
//! warm squares with strong contrast, pieces outlined in the opposite colour.

use std::fmt;
use std::str::FromStr;

/// An sRGB colour with alpha.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rgba(pub u8, pub u8, pub u8, pub u8);

impl Rgba {
    pub const fn rgb(r: u8, g: u8, b: u8) -> Rgba {
        Rgba(r, g, b, 255)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub name: &'static str,
    /// Frame around the board, and the colour of locations without a square.
    pub background: Rgba,
    /// The dotted outline that marks a location without a square.
    pub hole_mark: Rgba,
    pub light: Rgba,
    pub dark: Rgba,
    pub quad: Rgba,
    pub quad_edge: Rgba,
    pub anti_tile: Rgba,
    pub anti_mark: Rgba,
    pub coordinates: Rgba,
    pub last_move: Rgba,
    pub check: Rgba,
    pub chip: Rgba,
    pub white_piece: Rgba,
    pub white_line: Rgba,
    pub black_piece: Rgba,
    pub black_line: Rgba,
    /// The names around the board, and the dimmer name of the side not to move.
    pub caption: Rgba,
    pub caption_dim: Rgba,
    /// Behind the name of the side to move.
    pub to_move: Rgba,
    /// The result banner of a finished game: won, drawn, and its text.
    pub banner_win: Rgba,
    pub banner_draw: Rgba,
    pub banner_text: Rgba,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ThemeName {
    /// Warm wood tones on a dark frame: the default.
    #[default]
    Walnut,
    /// Cool grey-blue on a light frame.
    Slate,
}

impl ThemeName {
    pub const ALL: [ThemeName; 2] = [ThemeName::Walnut, ThemeName::Slate];

    pub fn theme(self) -> Theme {
        let pieces = (
            Rgba::rgb(250, 250, 248),
            Rgba::rgb(24, 24, 24),
            Rgba::rgb(34, 34, 36),
            Rgba::rgb(236, 236, 232),
        );
        match self {
            ThemeName::Walnut => Theme {
                name: "walnut",
                background: Rgba::rgb(40, 42, 46),
                hole_mark: Rgba::rgb(96, 100, 108),
                light: Rgba::rgb(234, 216, 178),
                dark: Rgba::rgb(170, 122, 78),
                quad: Rgba::rgb(212, 180, 124),
                quad_edge: Rgba::rgb(92, 60, 32),
                anti_tile: Rgba::rgb(122, 30, 36),
                anti_mark: Rgba::rgb(238, 170, 170),
                coordinates: Rgba::rgb(222, 224, 228),
                last_move: Rgba(255, 210, 0, 110),
                check: Rgba(230, 30, 30, 170),
                chip: Rgba(30, 110, 230, 230),
                white_piece: pieces.0,
                white_line: pieces.1,
                black_piece: pieces.2,
                black_line: pieces.3,
                caption: Rgba::rgb(236, 238, 242),
                caption_dim: Rgba::rgb(150, 154, 162),
                to_move: Rgba::rgb(74, 80, 92),
                banner_win: Rgba::rgb(226, 178, 52),
                banner_draw: Rgba::rgb(168, 174, 184),
                banner_text: Rgba::rgb(24, 24, 26),
            },
            ThemeName::Slate => Theme {
                name: "slate",
                background: Rgba::rgb(242, 243, 245),
                hole_mark: Rgba::rgb(170, 176, 186),
                light: Rgba::rgb(222, 228, 232),
                dark: Rgba::rgb(122, 146, 162),
                quad: Rgba::rgb(176, 196, 208),
                quad_edge: Rgba::rgb(52, 72, 88),
                anti_tile: Rgba::rgb(150, 40, 48),
                anti_mark: Rgba::rgb(250, 200, 200),
                coordinates: Rgba::rgb(43, 45, 49),
                last_move: Rgba(255, 190, 0, 120),
                check: Rgba(220, 20, 20, 170),
                chip: Rgba(20, 90, 210, 230),
                white_piece: pieces.0,
                white_line: pieces.1,
                black_piece: pieces.2,
                black_line: pieces.3,
                caption: Rgba::rgb(30, 32, 36),
                caption_dim: Rgba::rgb(112, 118, 128),
                to_move: Rgba::rgb(212, 222, 232),
                banner_win: Rgba::rgb(236, 190, 64),
                banner_draw: Rgba::rgb(190, 198, 208),
                banner_text: Rgba::rgb(24, 24, 26),
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ThemeName::Walnut => "walnut",
            ThemeName::Slate => "slate",
        }
    }
}

impl fmt::Display for ThemeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ThemeName {
    type Err = String;

    fn from_str(s: &str) -> Result<ThemeName, String> {
        ThemeName::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown theme \"{s}\"; choose walnut or slate"))
    }
}
