//! Vacations and the correspondence clock they stop: when the player to move runs out of time,
//! counting only the time the clock ran (not during either player's vacation, nor, on a
//! weekend-free clock, on Saturday and Sunday in the time zone of the player to move).

use chrono::{Datelike, NaiveDate, TimeZone};

use super::*;
use crate::model::VacationStart;

/// The yearly vacation allowance where a channel's moderators set none.
pub(super) const DEFAULT_ALLOWANCE_DAYS: u32 = 30;
/// The longest allowance a channel may set.
pub(super) const MAX_ALLOWANCE_DAYS: u32 = 365;
/// The window the allowance counts over.
const YEAR: i64 = 365 * DAY;

/// The player setting naming their time zone, and the channel setting giving the allowance.
pub(super) const TZ_KEY: &str = "tz";
pub(super) const ALLOWANCE_KEY: &str = "vacation";

impl<S: Store> Service<S> {
    /// When the player to move in a running game on a clock runs out of time: `days_per_move`
    /// of running clock after the last move. Every reader of a deadline (the clock's tick, a
    /// move's check, the captions and listings) asks here.
    pub(super) fn deadline_of(&self, row: &GameRow) -> Option<i64> {
        let days = row.days_per_move.filter(|_| row.result.is_none())?;
        let stops = self.clock_stops(row).unwrap_or_else(|e| {
            // The clock then runs as if nobody were away: never a game without a deadline.
            tracing::error!(game = row.id, "vacations could not be read: {e:#}");
            Vec::new()
        });
        let zone = if row.weekends_off { Some(self.zone_of_mover(row)) } else { None };
        Some(run_clock(row.last_move_at, i64::from(days) * DAY, &stops, zone))
    }

    /// The spans the game's clock stands still for vacations, merged and in order: each
    /// player's, as far as the game's tournament allows.
    fn clock_stops(&self, row: &GameRow) -> Result<Vec<(i64, i64)>> {
        let tournament = match self.store.tournament_of_game(row.id)? {
            Some((t, _)) => self.store.tournament(t)?,
            None => None,
        };
        let cap = tournament.as_ref().and_then(|t| t.vacation_days).map(|d| i64::from(d) * DAY);
        if cap == Some(0) {
            return Ok(Vec::new());
        }
        // A tournament's cap counts every vacation since it was made.
        let since = match &tournament {
            Some(t) if cap.is_some() => t.created_at,
            _ => row.last_move_at,
        };
        let vacations = self.store.vacations(&[row.white, row.black], since)?;
        let mut stops = Vec::new();
        for player in [row.white, row.black] {
            let mut left = cap.unwrap_or(i64::MAX);
            for v in vacations.iter().filter(|v| v.player == player) {
                let start = v.start.max(since);
                let end = v.end.min(start.saturating_add(left));
                if end > start {
                    stops.push((start, end));
                    left -= end - start;
                }
            }
        }
        Ok(merge(stops))
    }

    /// The time zone of the player to move (UTC unless they set one).
    fn zone_of_mover(&self, row: &GameRow) -> chrono_tz::Tz {
        let mover = match listings::row_turn(row) {
            Some(Color::White) | None => row.white,
            Some(Color::Black) => row.black,
        };
        self.store
            .setting(mover, TZ_KEY)
            .ok()
            .flatten()
            .and_then(|name| name.parse().ok())
            .unwrap_or(chrono_tz::UTC)
    }

    /// `!t vacation`: starts one (`5d`), ends it (`off`), or shows where the author stands.
    pub(super) fn vacation(&self, msg: &Incoming, length: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        // The smallest allowance of the channels concerned (where asked, and where each of the
        // player's clocked games is played): a vacation stops them all, so no channel's moderators
        // grant more than another's allow.
        let allowance_of = |platform: &str, channel: &str| -> Result<u32, String> {
            Ok(self
                .store
                .channel_setting(platform, channel, ALLOWANCE_KEY)
                .map_err(internal)?
                .and_then(|v| v.parse::<u32>().ok())
                .unwrap_or(DEFAULT_ALLOWANCE_DAYS))
        };
        let mut allowance_days = allowance_of(msg.platform, msg.channel)?;
        for g in
            self.store.player_games(me.id).map_err(internal)?.iter().filter(|g| g.days_per_move.is_some())
        {
            allowance_days = allowance_days.min(allowance_of(&g.platform, &g.channel)?);
        }
        let allowance = i64::from(allowance_days) * DAY;
        let window = msg.now - YEAR;
        let mine = self.store.vacations(&[me.id], window).map_err(internal)?;
        let used: i64 = mine.iter().filter(|v| v.start >= window).map(|v| v.end - v.start).sum();
        let running = mine.iter().find(|v| v.start <= msg.now && v.end > msg.now).copied();
        let word = length.unwrap_or_default().trim().to_lowercase();
        let days_word = |secs: i64| {
            let d = (secs + DAY - 1) / DAY;
            format!("{d} day{}", if d == 1 { "" } else { "s" })
        };
        match word.as_str() {
            "" => {
                let now = match running {
                    Some(v) => format!("You are on vacation until {}. ", when(v.end)),
                    None => String::new(),
                };
                Ok(vec![Reply::text(format!(
                    "{now}Vacation stops the clocks of all your games. You have used {} of {allowance_days} days in \
                     the last 365 (the smallest allowance of this channel and your games' channels). Start one with `!t vacation 5d`; end it early with \
                     `!t vacation off`.",
                    days_word(used)
                ))])
            }
            "off" | "end" | "stop" => {
                let Some(v) = running else { return Err("you are not on vacation".into()) };
                let notices = self.vacation_notices(&me, &format!("{} is back from vacation", me.name))?;
                if !self.store.end_vacation(me.id, msg.now, &notices).map_err(internal)? {
                    return Err("you are not on vacation".into());
                }
                self.ring_bells();
                Ok(vec![Reply::text(format!(
                    "Welcome back: your vacation ended (it was to last until {}), and your games' clocks run again. \
                     It counted {} of your allowance.",
                    when(v.end),
                    days_word(msg.now - v.start)
                ))])
            }
            w => {
                let days = w
                    .strip_suffix('d')
                    .or_else(|| w.strip_suffix("days"))
                    .or_else(|| w.strip_suffix("day"))
                    .unwrap_or(w)
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|d| (1..=MAX_ALLOWANCE_DAYS).contains(d))
                    .ok_or_else(|| {
                        format!("say how many days, like `!t vacation 5d` (1 to {MAX_ALLOWANCE_DAYS}), or `!t vacation off`")
                    })?;
                let end = msg.now + i64::from(days) * DAY;
                let notices =
                    self.vacation_notices(&me, &format!("{} is on vacation until {}", me.name, when(end)))?;
                match self
                    .store
                    .start_vacation(me.id, msg.now, end, window, allowance, &notices)
                    .map_err(internal)?
                {
                    VacationStart::Started => {
                        self.ring_bells();
                        Ok(vec![Reply::text(format!(
                            "Enjoy your vacation: the clocks of all your games stand still until {} ({} of your \
                             {allowance_days}-day allowance left after it). Your opponents are told. `!t vacation off` \
                             ends it early.",
                            when(end),
                            days_word((allowance - used - (end - msg.now)).max(0))
                        ))])
                    }
                    VacationStart::AlreadyOn { until } => Err(format!(
                        "you are on vacation already, until {}; `!t vacation off` ends it, then start a new one",
                        when(until)
                    )),
                    VacationStart::OverAllowance { used } => Err(format!(
                        "that is more than your allowance: {} of {allowance_days} days used in the last 365, so at \
                         most {} more",
                        days_word(used),
                        (allowance - used).max(0) / DAY
                    )),
                }
            }
        }
    }

    /// What each opponent in the player's running games on a clock is told, in each game's
    /// channel, with the game's new deadline worked out when it is posted.
    fn vacation_notices(&self, me: &Player, what: &str) -> Result<Vec<NewNotice>, String> {
        let games = self.store.player_games(me.id).map_err(internal)?;
        Ok(games
            .into_iter()
            .filter(|g| g.days_per_move.is_some())
            .filter_map(|g| {
                // A tournament that allows no vacation keeps the clock running: nothing to tell.
                let tournament = self.store.tournament_of_game(g.id).ok().flatten();
                let cap =
                    tournament.and_then(|(t, _)| self.store.tournament(t).ok().flatten()?.vacation_days);
                if cap == Some(0) {
                    return None;
                }
                let opponent = if g.white == me.id { g.black } else { g.white };
                let them = self.store.player_by_id(opponent).ok().flatten()?;
                let text = format!("Game #{}: {what}; the game's clock stands still meanwhile.", g.id);
                // About the game: posted in its thread where it has one.
                Some(NewNotice {
                    subject: Some(g.id),
                    ..NewNotice::text(&g.platform, &g.channel, text, vec![them.user_id])
                })
            })
            .collect())
    }
}

/// A moment as the players read it: the date and the UTC time.
fn when(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0)
        .map_or_else(|| unix.to_string(), |t| t.format("%Y-%m-%d %H:%M UTC").to_string())
}

/// Overlapping or touching spans joined, in order.
fn merge(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    spans.sort();
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The weekend (Saturday 00:00 to Monday 00:00 in `zone`) that holds `t`, else the next one.
fn weekend_from(t: i64, zone: chrono_tz::Tz) -> (i64, i64) {
    let local = zone.timestamp_opt(t, 0).single().map_or_else(
        || chrono::DateTime::from_timestamp(t, 0).unwrap_or_default().date_naive(),
        |d| d.date_naive(),
    );
    let from_monday = i64::from(local.weekday().num_days_from_monday());
    // Saturday is day 5: this week's, or last week's when `t` falls on a Sunday.
    let saturday = local + chrono::Duration::days(5 - from_monday.min(5) - i64::from(from_monday == 6));
    let midnight = |d: NaiveDate| {
        let naive = d.and_hms_opt(0, 0, 0).unwrap_or_default();
        // A midnight a clock change skips begins an hour later.
        zone.from_local_datetime(&naive)
            .earliest()
            .or_else(|| zone.from_local_datetime(&(naive + chrono::Duration::hours(1))).earliest())
            .map_or(naive.and_utc().timestamp(), |d| d.timestamp())
    };
    (midnight(saturday), midnight(saturday + chrono::Duration::days(2)))
}

/// The moment `need` seconds of running clock have passed since `start`, the clock standing
/// still through `stops` (merged, in order) and, with a zone, through every weekend there.
pub(super) fn run_clock(start: i64, need: i64, stops: &[(i64, i64)], zone: Option<chrono_tz::Tz>) -> i64 {
    let (mut t, mut left) = (start, need);
    loop {
        // The first stop that has not ended by `t`.
        let vacation = stops.iter().copied().find(|&(_, e)| e > t);
        let weekend = zone.map(|z| weekend_from(t, z));
        let next = match (vacation, weekend) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        match next {
            Some((s, e)) if s <= t => t = e,
            Some((s, _)) if s - t < left => {
                left -= s - t;
                t = s;
            }
            _ => return t + left,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONDAY_NOON: i64 = 1_795_435_200; // 2026-11-23 12:00 UTC, a Monday

    #[test]
    fn the_clock_runs_through_without_stops() {
        assert_eq!(run_clock(MONDAY_NOON, 3 * DAY, &[], None), MONDAY_NOON + 3 * DAY);
    }

    #[test]
    fn a_vacation_moves_the_deadline_by_the_part_after_the_move() {
        let stops = [(MONDAY_NOON - DAY, MONDAY_NOON + 2 * DAY)];
        assert_eq!(run_clock(MONDAY_NOON, 3 * DAY, &stops, None), MONDAY_NOON + 5 * DAY);
        // After the deadline it moves nothing.
        let late = [(MONDAY_NOON + 4 * DAY, MONDAY_NOON + 6 * DAY)];
        assert_eq!(run_clock(MONDAY_NOON, 3 * DAY, &late, None), MONDAY_NOON + 3 * DAY);
    }

    #[test]
    fn weekends_do_not_count_in_the_movers_zone() {
        // Monday noon + 5 days of clock: Monday to Friday noon is 4 days, the weekend stands still,
        // Saturday..Sunday skipped, so Monday noon (UTC) the week after.
        assert_eq!(run_clock(MONDAY_NOON, 5 * DAY, &[], Some(chrono_tz::UTC)), MONDAY_NOON + 7 * DAY);
        // In Tokyo (UTC+9) the weekend begins at Friday 15:00 UTC.
        let tokyo: chrono_tz::Tz = "Asia/Tokyo".parse().unwrap();
        let friday_15_utc = MONDAY_NOON + 4 * DAY + 3 * 3600;
        assert_eq!(run_clock(MONDAY_NOON, 4 * DAY + 3 * 3600, &[], Some(tokyo)), friday_15_utc);
        assert_eq!(
            run_clock(MONDAY_NOON, 4 * DAY + 4 * 3600, &[], Some(tokyo)),
            friday_15_utc + 2 * DAY + 3600
        );
        // A move on Sunday: the clock starts on Monday 00:00.
        let sunday = MONDAY_NOON + 6 * DAY;
        assert_eq!(run_clock(sunday, DAY, &[], Some(chrono_tz::UTC)), MONDAY_NOON + 7 * DAY + 12 * 3600);
    }

    #[test]
    fn weekends_and_vacations_together() {
        // A vacation from Friday noon to Tuesday noon: 3 days (Mon..Thu noon... ) then stops.
        let stops = [(MONDAY_NOON + 4 * DAY, MONDAY_NOON + 8 * DAY)];
        // Monday noon to Friday noon: 4 days run; then nothing until Tuesday noon; 1 day more.
        assert_eq!(run_clock(MONDAY_NOON, 5 * DAY, &stops, Some(chrono_tz::UTC)), MONDAY_NOON + 9 * DAY);
    }

    #[test]
    fn spans_merge() {
        assert_eq!(merge(vec![(5, 9), (1, 3), (2, 6), (10, 11)]), vec![(1, 9), (10, 11)]);
    }
}
