//! Ratings: a player's, the leaderboard, a profile.

use super::*;

impl<S: Store> Service<S> {
    pub(in crate::service) fn rating(&self, msg: &Incoming, variant: Option<Variant>) -> Replies {
        let who = match msg.mentions.first() {
            Some(u) => self.store.player(msg.platform, &u.id, &u.name).map_err(internal)?,
            None => self.me(msg)?,
        };
        let ratings = self.ratings()?;
        let text = match variant {
            Some(v) => {
                let r = ratings.get(v.name(), who.id);
                format!(
                    "{} in {v}: {} (deviation {:.0}; {} games: +{} ={} -{})",
                    who.name,
                    r.display(),
                    r.deviation,
                    r.games(),
                    r.wins,
                    r.draws,
                    r.losses
                )
            }
            None => {
                let all = ratings.of_player(who.id);
                if all.is_empty() {
                    format!("{} has no rated games yet; every variant starts at 1500?.", who.name)
                } else {
                    let list: Vec<String> = all
                        .iter()
                        .map(|(v, r)| format!("{v} {} ({} games)", r.display(), r.games()))
                        .collect();
                    format!("{}: {}", who.name, list.join(" · "))
                }
            }
        };
        Ok(vec![Reply::text(text)])
    }

    pub(in crate::service) fn leaderboard(&self, msg: &Incoming, variant: Option<Variant>) -> Replies {
        let results = self.store.rated_results().map_err(internal)?;
        let variant = match variant {
            Some(v) => v,
            None => {
                // The variant most played here.
                let mut counts: HashMap<&str, usize> = HashMap::new();
                for r in results.iter().filter(|r| r.platform == msg.platform && r.channel == msg.channel) {
                    *counts.entry(r.variant.as_str()).or_default() += 1;
                }
                let top = counts.into_iter().max_by_key(|(v, n)| (*n, std::cmp::Reverse(*v))).map(|(v, _)| v);
                match top.and_then(|v| v.parse::<Variant>().ok()) {
                    Some(v) => v,
                    None => {
                        return Ok(vec![Reply::text(
                            "No rated games here yet. Play one with `!t challenge @name hans38 rated`.",
                        )]);
                    }
                }
            }
        };
        // Players who played rated games of this variant here.
        let here: std::collections::HashSet<PlayerId> = results
            .iter()
            .filter(|r| r.platform == msg.platform && r.channel == msg.channel && r.variant == variant.name())
            .flat_map(|r| [r.white, r.black])
            .collect();
        let ratings = Ratings::compute(&results);
        let board = ratings.leaderboard(variant.name(), |p| here.contains(&p));
        if board.is_empty() {
            return Ok(vec![Reply::text(format!("No rated {variant} games here yet."))]);
        }
        let mut lines = vec![format!("{variant} leaderboard:")];
        for (i, (player, r)) in board.iter().take(20).enumerate() {
            let name = self.store.player_by_id(*player).map_err(internal)?.map_or("?".into(), |p| p.name);
            lines.push(format!("{:>2}. {name} {} ({} games)", i + 1, r.display(), r.games()));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    pub(in crate::service) fn profile(&self, msg: &Incoming) -> Replies {
        let who = match msg.mentions.first() {
            Some(u) => self.store.player(msg.platform, &u.id, &u.name).map_err(internal)?,
            None => self.me(msg)?,
        };
        let ratings = self.ratings()?;
        let mut lines = vec![format!("{}:", who.name)];
        let rated = ratings.of_player(who.id);
        if rated.is_empty() {
            lines.push("no rated games yet".into());
        }
        for (v, r) in &rated {
            lines.push(format!(
                "{v}: {} — {} games, +{} ={} -{}",
                r.display(),
                r.games(),
                r.wins,
                r.draws,
                r.losses
            ));
        }
        let recent = self.store.recent_games(who.id, 5).map_err(internal)?;
        if !recent.is_empty() {
            lines.push("Recent games:".into());
        }
        for g in recent.iter().rev() {
            let opponent = self
                .store
                .player_by_id(if g.white == who.id { g.black } else { g.white })
                .map_err(internal)?;
            let white = g.white == who.id;
            let colour = if white { "white" } else { "black" };
            // Told from the profile owner's side, not as a score.
            let had = if who.user_id == msg.author.id { "you".to_string() } else { who.name.clone() };
            let result = match (g.result.as_deref(), white) {
                (None, _) => "in play",
                (Some("1-0"), true) | (Some("0-1"), false) => "won",
                // A double forfeit (0-0) is lost by both.
                (Some("1-0"), false) | (Some("0-1"), true) | (Some("0-0"), _) => "lost",
                (Some(_), _) => "drawn",
            };
            lines.push(format!(
                "#{} {} vs {} ({had} had {colour}{}): {result}",
                g.id,
                g.variant,
                opponent.map_or("?".into(), |p| p.name),
                if g.rated { ", rated" } else { "" },
            ));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }
}
