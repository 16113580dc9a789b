//! Glicko-2 ratings, one per player and variant, from the rated games in the order they finished.
//!
//! Ratings are not stored: they are recomputed from the games, each game a rating period of its
//! own as Lichess does, so a corrected result or a restored backup can never leave a rating that
//! disagrees with the games. The maths is the `skillratings` crate's.

use std::collections::HashMap;

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::model::PlayerId;
use crate::model::RatedResult;

/// Above this deviation a rating is provisional, shown as `1500?`.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A player's standing in one variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        let start = Glicko2Rating::new();
        Rating {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
            wins: 0,
            draws: 0,
            losses: 0,
        }
    }
}

impl Rating {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// `1523`, or `1523?` while provisional.
    pub fn display(&self) -> String {
        let r = self.rating.round() as i64;
        if self.is_provisional() { format!("{r}?") } else { r.to_string() }
    }

    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }

    fn update(&mut self, new: Glicko2Rating, score: Outcomes) {
        self.rating = new.rating;
        self.deviation = new.deviation;
        self.volatility = new.volatility;
        match score {
            Outcomes::WIN => self.wins += 1,
            Outcomes::DRAW => self.draws += 1,
            Outcomes::LOSS => self.losses += 1,
        }
    }
}

/// Every player's rating in every variant they played rated games in.
#[derive(Clone, Debug, Default)]
pub struct Ratings {
    by_variant: HashMap<String, HashMap<PlayerId, Rating>>,
}

impl Ratings {
    /// Plays the results through Glicko-2 in the order given (the order they finished).
    pub fn compute(results: &[RatedResult]) -> Ratings {
        let config = Glicko2Config::new();
        let mut ratings = Ratings::default();
        for r in results {
            let outcome = match r.result.as_str() {
                "1-0" => Outcomes::WIN,
                "0-1" => Outcomes::LOSS,
                "1/2-1/2" => Outcomes::DRAW,
                _ => continue,
            };
            if r.white == r.black {
                continue;
            }
            let table = ratings.by_variant.entry(r.variant.clone()).or_default();
            let white = table.get(&r.white).copied().unwrap_or_default();
            let black = table.get(&r.black).copied().unwrap_or_default();
            let (new_white, new_black) = glicko2(&white.glicko(), &black.glicko(), &outcome, &config);
            let black_outcome = match outcome {
                Outcomes::WIN => Outcomes::LOSS,
                Outcomes::LOSS => Outcomes::WIN,
                Outcomes::DRAW => Outcomes::DRAW,
            };
            table.entry(r.white).or_default().update(new_white, outcome);
            table.entry(r.black).or_default().update(new_black, black_outcome);
        }
        ratings
    }

    /// A player's rating in a variant; the starting rating if they have no rated game in it.
    pub fn get(&self, variant: &str, player: PlayerId) -> Rating {
        self.by_variant.get(variant).and_then(|t| t.get(&player)).copied().unwrap_or_default()
    }

    /// Variants the player has a rating in, with it, most games first.
    pub fn of_player(&self, player: PlayerId) -> Vec<(String, Rating)> {
        let mut out: Vec<(String, Rating)> =
            self.by_variant.iter().filter_map(|(v, t)| t.get(&player).map(|r| (v.clone(), *r))).collect();
        out.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.cmp(&b.0)));
        out
    }

    /// The players of a variant that `keep` admits, best first: established ratings before
    /// provisional ones, then by rating.
    pub fn leaderboard(&self, variant: &str, keep: impl Fn(PlayerId) -> bool) -> Vec<(PlayerId, Rating)> {
        let mut out: Vec<(PlayerId, Rating)> = self
            .by_variant
            .get(variant)
            .map(|t| t.iter().filter(|(p, _)| keep(**p)).map(|(p, r)| (*p, *r)).collect())
            .unwrap_or_default();
        out.sort_by(|a, b| {
            a.1.is_provisional()
                .cmp(&b.1.is_provisional())
                .then(b.1.rating.total_cmp(&a.1.rating))
                .then(a.0.cmp(&b.0))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    fn result(game: i64, white: PlayerId, black: PlayerId, result: &str) -> RatedResult {
        RatedResult {
            game,
            variant: "chess".into(),
            platform: "test".into(),
            channel: "c".into(),
            white,
            black,
            result: result.into(),
            finished_at: game,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // Glickman, "Example of the Glicko-2 system" (2013): a 1500/200 player beats a 1400/30,
        // loses to a 1550/100 and a 1700/300, with tau 0.5: 1464.06, 151.52, 0.05999.
        let player = Glicko2Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
        let opponent = |rating, deviation| Glicko2Rating { rating, deviation, volatility: 0.06 };
        let results = [
            (opponent(1400.0, 30.0), Outcomes::WIN),
            (opponent(1550.0, 100.0), Outcomes::LOSS),
            (opponent(1700.0, 300.0), Outcomes::LOSS),
        ];
        let config = Glicko2Config { tau: 0.5, ..Glicko2Config::new() };
        let new = glicko2_rating_period(&player, &results, &config);
        assert!((new.rating - 1464.06).abs() < 0.01, "{}", new.rating);
        assert!((new.deviation - 151.52).abs() < 0.01, "{}", new.deviation);
        assert!((new.volatility - 0.05999).abs() < 0.00001, "{}", new.volatility);
    }

    #[test]
    fn ratings_follow_the_games_in_order() {
        let ratings = Ratings::compute(&[result(1, 1, 2, "1-0")]);
        let (winner, loser) = (ratings.get("chess", 1), ratings.get("chess", 2));
        // Two new players: the winner gains what the loser drops, about 162 points each.
        assert!((winner.rating - 1662.3).abs() < 0.5, "{}", winner.rating);
        assert!((loser.rating - 1337.7).abs() < 0.5, "{}", loser.rating);
        assert_eq!((winner.wins, loser.losses), (1, 1));
        assert!(winner.is_provisional() && winner.display().ends_with('?'));
        // Unrated elsewhere: the start rating.
        assert_eq!(ratings.get("shrink", 1).rating, 1500.0);
        assert_eq!(ratings.get("chess", 3).games(), 0);
        // Many games bring the deviation under the provisional mark.
        let many: Vec<RatedResult> = (0..40)
            .map(|i| result(i, 1 + i % 2, 2 - i % 2, if i % 3 == 0 { "1/2-1/2" } else { "1-0" }))
            .collect();
        let ratings = Ratings::compute(&many);
        assert!(!ratings.get("chess", 1).is_provisional(), "{:?}", ratings.get("chess", 1));
        assert!(!ratings.get("chess", 1).display().ends_with('?'));
        let board = ratings.leaderboard("chess", |_| true);
        assert_eq!(board.len(), 2);
        assert!(board[0].1.rating >= board[1].1.rating);
        assert_eq!(ratings.leaderboard("chess", |p| p == 2).len(), 1);
    }
}
