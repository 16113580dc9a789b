//! Players' and channels' settings.

use super::*;

impl<S: Store> Service<S> {
    /// A player's setting, else the default the channel's moderators chose, else none.
    pub(super) fn preference(
        &self,
        player: &Player,
        platform: &str,
        channel: &str,
        key: &str,
    ) -> Option<String> {
        let own = self.store.setting(player.id, key).ok().flatten();
        own.or_else(|| self.store.channel_setting(platform, channel, key).ok().flatten())
    }

    /// Plays the turn the author was asked to confirm, if the game has not moved on since.
    pub(super) fn confirm(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        let game = loaded.row.id;
        let Some((ply, text)) = self.store.pending_turn(me.id, game).map_err(internal)? else {
            return Err(format!("there is no turn of yours waiting for confirmation in game #{game}"));
        };
        self.store.set_pending_turn(me.id, game, None).map_err(internal)?;
        if ply != loaded.row.moves.len() {
            return Err(format!("game #{game} has moved on since; send your turn again"));
        }
        self.make_move_as(msg, Some(game), &format!("{text} !"), &format!("!t move {text}"))
    }

    /// A setting's value for this player here: their own choice, else the channel's, else the default.
    pub(super) fn setting_for(
        &self,
        player: &Player,
        platform: &str,
        channel: &str,
        setting: &Setting,
    ) -> String {
        self.preference(player, platform, channel, setting.key)
            .unwrap_or_else(|| self.setting_default(setting))
    }

    pub(super) fn setting_default(&self, setting: &Setting) -> String {
        match setting.key {
            // The theme and labels the bot was configured with.
            "theme" => self.render.theme.name().to_string(),
            "coordinates" => if self.render.coordinates { "on" } else { "off" }.to_string(),
            _ => setting.values[0].to_string(),
        }
    }

    /// Shows the author's settings, or changes one.
    pub(super) fn settings(&self, msg: &Incoming, change: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        let words: Vec<String> =
            change.unwrap_or_default().split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            let listed: Vec<String> = SETTINGS
                .iter()
                .map(|s| {
                    format!("{} {} ({})", s.key, self.setting_for(&me, msg.platform, msg.channel, s), s.what)
                })
                .collect();
            let tz = self.store.setting(me.id, vacation::TZ_KEY).map_err(internal)?;
            return Ok(vec![Reply::text(format!(
                "Your settings: {}; tz {} (your time zone, for clocks without weekends: `!t settings tz \
                 Europe/Berlin`). Change one like `!t settings board mine`.",
                listed.join("; "),
                tz.as_deref().unwrap_or("UTC")
            ))]);
        }
        if matches!(words[0].as_str(), "tz" | "timezone" | "zone") {
            // Zone names keep their case: `Europe/Berlin`.
            let name = change.unwrap_or_default().split_whitespace().nth(1).unwrap_or_default();
            let zone: chrono_tz::Tz = name.parse().ok().filter(|_| words.len() == 2).ok_or_else(|| {
                "say your time zone by its name, like `!t settings tz Europe/Berlin`, `America/New_York` or `UTC`"
                    .to_string()
            })?;
            self.store.set_setting(me.id, vacation::TZ_KEY, zone.name()).map_err(internal)?;
            return Ok(vec![Reply::text(format!(
                "Saved: tz {}. Clocks without weekends skip Saturday and Sunday there when it is your move.",
                zone.name()
            ))]);
        }
        let (setting, value) = parse_setting(&words, SETTINGS, "!t settings")?;
        self.store.set_setting(me.id, setting.key, &value).map_err(internal)?;
        Ok(vec![Reply::text(format!("Saved: {} {value}.", setting.key))])
    }

    /// Shows the channel's settings, or lets a moderator change one.
    pub(super) fn channel_settings(&self, msg: &Incoming, change: Option<&str>) -> Replies {
        let words: Vec<String> =
            change.unwrap_or_default().split_whitespace().map(str::to_lowercase).collect();
        let get = |setting: &Setting| -> Result<String, String> {
            let v = self.store.channel_setting(msg.platform, msg.channel, setting.key).map_err(internal)?;
            Ok(v.unwrap_or_else(|| self.setting_default(setting)))
        };
        if words.is_empty() {
            let gifs = get(&CHANNEL_SETTINGS[0])?;
            let threads = get(&CHANNEL_SETTINGS[5])?;
            // The players' defaults a channel may set: those between gifs and threads.
            let defaults: Vec<String> = CHANNEL_SETTINGS[1..5]
                .iter()
                .map(|s| Ok(format!("{} {}", s.key, get(s)?)))
                .collect::<Result<_, String>>()?;
            let allowance = self
                .store
                .channel_setting(msg.platform, msg.channel, vacation::ALLOWANCE_KEY)
                .map_err(internal)?
                .unwrap_or_else(|| vacation::DEFAULT_ALLOWANCE_DAYS.to_string());
            return Ok(vec![Reply::text(format!(
                "This channel: gifs {gifs} (a finished game is posted as an animated GIF), threads {threads} \
                 (each new game is played in a thread of its own); vacation {allowance} (days of vacation a player \
                 may take a year, asked here); for players who have not chosen: {}. Moderators change them like \
                 `!t channel gifs off`, `!t channel threads on`, `!t channel vacation 45` or `!t channel board white`.",
                defaults.join(", ")
            ))]);
        }
        if words[0] == vacation::ALLOWANCE_KEY {
            let days = words
                .get(1)
                .map(|w| w.trim_end_matches('d'))
                .and_then(|w| w.parse::<u32>().ok())
                .filter(|d| *d <= vacation::MAX_ALLOWANCE_DAYS && words.len() == 2)
                .ok_or_else(|| {
                    format!(
                        "say how many days of vacation a player may take a year, 0 to {}: `!t channel vacation 30`",
                        vacation::MAX_ALLOWANCE_DAYS
                    )
                })?;
            if !msg.is_admin {
                return Err("only the channel's moderators can change its settings".into());
            }
            self.store
                .set_channel_setting(msg.platform, msg.channel, vacation::ALLOWANCE_KEY, &days.to_string())
                .map_err(internal)?;
            return Ok(vec![Reply::text(format!("Saved for this channel: vacation {days} days a year."))]);
        }
        let (setting, value) = parse_setting(&words, &CHANNEL_SETTINGS, "!t channel")?;
        if !msg.is_admin {
            return Err("only the channel's moderators can change its settings".into());
        }
        self.store.set_channel_setting(msg.platform, msg.channel, setting.key, &value).map_err(internal)?;
        Ok(vec![Reply::text(format!("Saved for this channel: {} {value}.", setting.key))])
    }
}

/// `KEY VALUE` as one of `table`'s settings, or what would be right.
pub(super) fn parse_setting<'t>(
    words: &[String],
    table: &'t [Setting],
    command: &str,
) -> Result<(&'t Setting, String), String> {
    let names =
        || table.iter().map(|s| format!("`{} {}`", s.key, s.values.join("|"))).collect::<Vec<_>>().join(", ");
    let Some(setting) = table.iter().find(|s| s.key == words[0]) else {
        return Err(format!("there is no setting \"{}\"; the settings are {}", words[0], names()));
    };
    match words {
        [_, v] if setting.values.contains(&v.as_str()) => Ok((setting, v.clone())),
        _ => Err(format!(
            "say {}",
            setting
                .values
                .iter()
                .map(|v| format!("`{command} {} {v}`", setting.key))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}
