//! Challenges: made, answered, withdrawn, and the rematch.

use super::*;

impl<S: Store> Service<S> {
    pub(super) fn challenge(
        &self,
        msg: &Incoming,
        variant: Variant,
        color: ColorChoice,
        clock: ClockTerms,
        rated: bool,
        level: Option<u8>,
    ) -> Replies {
        let ClockTerms { days, weekends_off } = clock;
        let Some(opponent) = msg.mentions.first() else {
            return Err(format!("name your opponent, like `!t challenge @alice {variant}`"));
        };
        if opponent.id == msg.author.id {
            return Err("you cannot challenge yourself; name someone else".into());
        }
        if self.is_bot_account(msg.platform, &opponent.id) {
            return self.practice_start(msg, opponent, variant, color, days, rated, level);
        }
        if level.is_some() {
            return Err(format!(
                "{} plays at their own level: `level` is only for a game against me (mention me as the \
                 opponent); leave it out to challenge {}",
                opponent.name, opponent.name
            ));
        }
        let me = self.me(msg)?;
        let them = self.store.player(msg.platform, &opponent.id, &opponent.name).map_err(internal)?;
        // Open challenges are bounded per player here and per channel (they lapse after a week).
        let open = self
            .store
            .open_challenges_since(msg.platform, msg.channel, msg.now - CHALLENGE_LIFE)
            .map_err(internal)?;
        if open.iter().filter(|c| c.challenger == me.id).count() >= MAX_OPEN_CHALLENGES_EACH {
            return Err(format!(
                "you have {MAX_OPEN_CHALLENGES_EACH} open challenges here; withdraw one with `!t cancel` first"
            ));
        }
        if open.len() >= MAX_OPEN_CHALLENGES_CHANNEL {
            return Err("this channel has too many open challenges; try again when some are answered".into());
        }
        let id = self
            .store
            .create_challenge(&Challenge {
                id: 0,
                platform: msg.platform.into(),
                channel: msg.channel.into(),
                challenger: me.id,
                challenged: them.id,
                variant: variant.name().into(),
                color: color.name().into(),
                days_per_move: days,
                created_at: msg.now,
                rated,
                weekends_off: weekends_off && days.is_some(),
            })
            .map_err(internal)?;
        let mut clock = days
            .map_or("no clock".to_string(), |d| format!("{d} day{} per move", if d == 1 { "" } else { "s" }));
        if weekends_off && days.is_some() {
            clock.push_str(", weekends off");
        }
        let side = match color {
            ColorChoice::Random => "colours drawn at random".to_string(),
            c => format!("{} plays {}", me.name, c.name()),
        };
        let kind = if rated { "rated " } else { "" };
        let mut reply = Reply::text(format!(
            "{} challenges {} to {kind}{variant} ({side}, {clock}). {}: `!t accept` or `!t decline`. (challenge {id})",
            me.name, them.name, them.name
        ));
        reply.actions = Some(Actions::Challenge(id));
        Ok(vec![reply.notifying(&them)])
    }

    /// The author's recent games on this platform with the opponent of each, newest first.
    pub(super) fn recent_opponents(
        &self,
        msg: &Incoming,
        me: &Player,
    ) -> Result<Vec<(GameRow, Player)>, String> {
        let mut out = Vec::new();
        for row in self.store.recent_games(me.id, 100).map_err(internal)? {
            if row.platform != msg.platform {
                continue;
            }
            let other = if row.white == me.id { row.black } else { row.white };
            if let Some(p) = self.store.player_by_id(other).map_err(internal)? {
                out.push((row, p));
            }
        }
        Ok(out)
    }

    pub(super) fn rematch(&self, msg: &Incoming, opponent: Option<String>) -> Replies {
        let me = self.me(msg)?;
        let wanted = opponent.or_else(|| msg.mentions.first().map(|u| u.id.clone()));
        let recent = self.recent_opponents(msg, &me)?;
        // The latest game with them, this channel's before others.
        let pick = recent
            .into_iter()
            .filter(|(_, p)| wanted.as_ref().is_none_or(|w| &p.user_id == w))
            .min_by_key(|(g, _)| (g.channel != msg.channel, -g.id));
        let Some((game, them)) = pick else {
            return Err(match wanted {
                Some(_) => "you have not played them yet; challenge them with `!t challenge @name`".into(),
                None => {
                    "you have no earlier game to rematch; challenge someone with `!t challenge @name`".into()
                }
            });
        };
        // By name: a rematch of a community variant is played by its file as it is now.
        let variant: Variant = game.variant.parse().map_err(|_| {
            format!(
                "{} is no longer offered here (its variant file was removed); challenge them to another \
                 variant with `!t challenge @name VARIANT`",
                game.variant
            )
        })?;
        let color = if game.white == me.id { ColorChoice::Black } else { ColorChoice::White };
        let opponent = [User::new(them.user_id, them.name)];
        self.challenge(
            &Incoming { mentions: &opponent, ..msg.clone() },
            variant,
            color,
            ClockTerms { days: game.days_per_move, weekends_off: game.weekends_off },
            game.rated,
            game.bot.map(|b| b.level),
        )
    }

    pub(super) fn pick_challenge(
        &self,
        msg: &Incoming,
        me: &Player,
        id: GameRef,
        mine: bool,
    ) -> Result<Challenge, String> {
        let open = self.store.open_challenges(msg.platform, msg.channel, me.id).map_err(internal)?;
        let relevant: Vec<Challenge> = open
            .into_iter()
            .filter(|c| c.created_at > msg.now - CHALLENGE_LIFE)
            .collect::<Vec<_>>()
            .into_iter()
            .filter(|c| if mine { c.challenger == me.id } else { c.challenged == me.id })
            .collect();
        match id {
            Some(id) => relevant.into_iter().find(|c| c.id == id).ok_or_else(|| {
                if mine {
                    format!("you have no open challenge {id} here; only the challenger can withdraw one")
                } else {
                    format!(
                        "there is no open challenge {id} for you here; only the one challenged can answer it"
                    )
                }
            }),
            None => match relevant.len() {
                0 if mine => Err("you have no open challenge here".into()),
                0 => {
                    Err("nobody has challenged you here; challenge someone with `!t challenge @name`".into())
                }
                _ => Ok(relevant.into_iter().next_back().expect("one at least")),
            },
        }
    }

    pub(super) fn accept(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        let c = self.pick_challenge(msg, &me, id, false)?;
        let challenger_white = match c.color.as_str() {
            "white" => true,
            "black" => false,
            // Random, from the clock and the ids: no extra dependency, fair enough for colours.
            _ => (msg.now ^ c.id ^ c.challenger).rem_euclid(2) == 0,
        };
        let (white, black) =
            if challenger_white { (c.challenger, c.challenged) } else { (c.challenged, c.challenger) };
        let variant: Variant =
            c.variant.parse().map_err(|_| "that challenge names an unknown variant".to_string())?;
        let start = Position::start(variant);
        // The challenge closes and the game begins in one transaction: never one without the other.
        let game = NewGame {
            platform: msg.platform,
            channel: msg.channel,
            variant: variant.name(),
            start_fen: &start.fen(),
            white,
            black,
            days_per_move: c.days_per_move,
            rated: c.rated,
            now: msg.now,
            bot: None,
            weekends_off: c.weekends_off,
            definition: StoredDefinition::of(variant),
        };
        let names = |id| {
            self.store.player_by_id(id).map_err(internal)?.ok_or_else(|| "a player has vanished".to_string())
        };
        let (white_player, black_player) = (names(white)?, names(black)?);
        let to_move = if start.turn() == Color::White { &white_player } else { &black_player };
        let mut clock = c.days_per_move.map_or(String::new(), |d| format!(", {d} days per move"));
        if c.weekends_off {
            clock.push_str(", weekends off");
        }
        if c.rated {
            clock.push_str(", rated");
        }
        // The game's start is announced from the outbox, stored with the game: `{game}` is its
        // number, the board is drawn when it is posted.
        let text = format!(
            "Game #{{game}} begins: {variant}, {} (white) vs {} (black){clock}. {}, you have the move ({}).",
            white_player.name,
            black_player.name,
            to_move.name,
            start.turn()
        );
        let notify = if to_move.id != me.id { vec![to_move.user_id.clone()] } else { Vec::new() };
        let claim = self.new_claim();
        let notice =
            NewNotice { kind: NoticeKind::Game, ..NewNotice::text(msg.platform, msg.channel, text, notify) }
                .claimed(Some(&claim));
        if self.store.accept_challenge(c.id, &game, &[notice]).map_err(internal)?.is_none() {
            return Err("that challenge was just withdrawn or taken up".into());
        }
        Ok(self.held_replies(&claim))
    }

    pub(super) fn close_challenge(&self, msg: &Incoming, id: GameRef, mine: bool) -> Replies {
        let me = self.me(msg)?;
        let (c, mine) = match self.pick_challenge(msg, &me, id, mine) {
            Ok(c) => (c, mine),
            // One Decline button serves both: from the challenger it withdraws the challenge.
            Err(e) if !mine && id.is_some() => {
                (self.pick_challenge(msg, &me, id, true).map_err(|_| e)?, true)
            }
            Err(e) => return Err(e),
        };
        let status = if mine { "cancelled" } else { "declined" };
        if !self.store.close_challenge(c.id, status).map_err(internal)? {
            return Err("that challenge is no longer open".into());
        }
        let other = if mine { c.challenged } else { c.challenger };
        let mut reply = Reply::text(format!("Challenge {} {status}.", c.id));
        if let Some(p) = self.store.player_by_id(other).map_err(internal)? {
            reply = reply.notifying(&p);
        }
        Ok(vec![reply])
    }
}

/// A challenge's clock: days per move, and whether weekends count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct ClockTerms {
    pub days: Option<u32>,
    pub weekends_off: bool,
}
