//! The clock's decisions: reminders and losses on time, settled at each tick.

use super::*;

impl<S: Store> Service<S> {
    /// Reminders and losses on time on every platform. The bot's process runs one
    /// [`tessera_bot::clock::Clock`], which ticks only the platforms it can announce on.
    pub fn tick(&self, now: i64) -> Result<Vec<Notice>> {
        self.tick_for(now, None)
    }

    /// Reminders and losses on time, and tournaments moving on, for the games and tournaments of
    /// `platforms` (all when `None`). A game on a platform not running here is left for a process
    /// that can tell its players: its clock is only a deadline in the database until then.
    /// Returns the notices waiting to be posted on those platforms, claimed for this caller.
    pub fn tick_for(&self, now: i64, platforms: Option<&[&str]>) -> Result<Vec<Notice>> {
        let served = |p: &str| platforms.is_none_or(|ps| ps.contains(&p));
        for row in self.store.clocked_games()?.into_iter().filter(|r| served(&r.platform)) {
            let Ok(loaded) = self.load(row) else { continue };
            let (Some(days), Some(deadline)) = (loaded.row.days_per_move, loaded.deadline) else { continue };
            let mover = loaded.player(loaded.game.position().turn());
            // One game's failure is logged and skipped: the other games' clocks still run. Each
            // notice is stored with its change and posted from the outbox after the tick.
            match self.settle_clock(&loaded, now, false) {
                Ok(Some(_)) => continue,
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(game = loaded.row.id, "the clock could not be settled: {e:#}");
                    continue;
                }
            }
            if !loaded.row.reminded && now >= deadline - (days as i64 * DAY / 2).min(DAY) {
                let hours = ((deadline - now) / 3600).max(1);
                let text = format!(
                    "{}, it is your move in game #{} ({}); about {hours} hours left.",
                    mover.name,
                    loaded.row.id,
                    loaded.variant()
                );
                // About the game: posted in its thread, where it has one.
                let notice = NewNotice {
                    subject: Some(loaded.row.id),
                    ..NewNotice::text(
                        &loaded.row.platform,
                        &loaded.row.channel,
                        text,
                        vec![mover.user_id.clone()],
                    )
                };
                // False: another process reminded them, or the mover moved meanwhile.
                if let Err(e) = self.store.mark_reminded(loaded.row.id, loaded.row.last_move_at, &[notice]) {
                    tracing::error!(game = loaded.row.id, "could not be marked reminded: {e:#}");
                }
            }
        }
        // Tournaments: rounds whose games just ended on time, starts that are due, and any round
        // a crash left unpaired.
        if let Err(e) = self.tournament_tick(now, &served) {
            tracing::error!("the tournaments' tick failed: {e:#}");
        }
        if let Err(e) = self.digest_tick(now, &served) {
            tracing::error!("the daily digests could not be written: {e:#}");
        }
        Ok(self.outbox_due(platforms))
    }
}
