//! Five-field cron expressions in UTC (`minute hour day-of-month month day-of-week`), as a
//! ladder's schedule takes them: each field `*`, a number, a range `a-b`, a step `*/n` or
//! `a-b/n`, or a comma-separated list of those; day-of-week 0 to 7 (0 and 7 are Sunday).
//! When both day fields are restricted, a day matches either (as cron does).

/// A parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    minutes: u64,
    hours: u32,
    days: u32,
    months: u16,
    weekdays: u8,
    days_restricted: bool,
    weekdays_restricted: bool,
}

fn field(text: &str, min: u32, max: u32, name: &str) -> Result<(u64, bool), String> {
    let mut bits = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => (range, step.parse::<u32>().ok().filter(|s| *s > 0).ok_or_else(|| format!("{name}: bad step in {part:?}"))?),
            None => (part, 1),
        };
        let (low, high) = if range == "*" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            (a.parse().map_err(|_| format!("{name}: {a:?} is not a number"))?, b.parse().map_err(|_| format!("{name}: {b:?} is not a number"))?)
        } else {
            let value: u32 = range.parse().map_err(|_| format!("{name}: {range:?} is not a number"))?;
            (value, if part.contains('/') { max } else { value })
        };
        if low < min || high > max || low > high {
            return Err(format!("{name}: {part:?} is outside {min}-{max}"));
        }
        let mut value = low;
        while value <= high {
            bits |= 1 << value;
            value += step;
        }
    }
    Ok((bits, text != "*"))
}

impl Cron {
    /// Parses an expression.
    ///
    /// # Errors
    /// Not five fields, or a field out of its range, with what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields.as_slice() else {
            return Err(format!("{text:?}: a schedule is five fields (minute hour day-of-month month day-of-week), UTC"));
        };
        let (minutes, _) = field(minute, 0, 59, "minute")?;
        let (hours, _) = field(hour, 0, 23, "hour")?;
        let (days, days_restricted) = field(day, 1, 31, "day of month")?;
        let (months, _) = field(month, 1, 12, "month")?;
        let (mut weekdays, weekdays_restricted) = field(weekday, 0, 7, "day of week")?;
        if weekdays & (1 << 7) != 0 {
            weekdays |= 1;
        }
        #[allow(clippy::cast_possible_truncation)]
        Ok(Self { minutes, hours: hours as u32, days: days as u32, months: months as u16, weekdays: (weekdays & 0x7f) as u8, days_restricted, weekdays_restricted })
    }

    fn day_matches(&self, day: u32, weekday: u32) -> bool {
        let by_day = self.days & (1 << day) != 0;
        let by_weekday = self.weekdays & (1 << weekday) != 0;
        match (self.days_restricted, self.weekdays_restricted) {
            (true, true) => by_day || by_weekday,
            _ => by_day && by_weekday,
        }
    }

    /// The first time strictly after `after` (Unix seconds) that the expression names, or
    /// `None` within the next eight years (`0 0 31 2 *` never comes).
    #[must_use]
    pub fn next_after(&self, after: f64) -> Option<f64> {
        #[allow(clippy::cast_possible_truncation)]
        let mut minute = (after / 60.0).floor() as i64 + 1;
        let limit = minute + 8 * 366 * 24 * 60;
        while minute < limit {
            let days = minute.div_euclid(1440);
            let (year, month, day) = civil(days);
            let weekday = u32::try_from((days + 4).rem_euclid(7)).unwrap_or(0); // 1970-01-01 was a Thursday
            if self.months & (1 << month) == 0 {
                minute = (days_from_civil(if month == 12 { year + 1 } else { year }, if month == 12 { 1 } else { month + 1 }, 1)) * 1440;
                continue;
            }
            if !self.day_matches(day, weekday) {
                minute = (days + 1) * 1440;
                continue;
            }
            let of_day = minute.rem_euclid(1440);
            let (hour, min) = (u32::try_from(of_day / 60).unwrap_or(0), u32::try_from(of_day % 60).unwrap_or(0));
            if self.hours & (1 << hour) == 0 {
                minute = days * 1440 + (i64::from(hour) + 1) * 60;
                continue;
            }
            if self.minutes & (1 << min) == 0 {
                minute += 1;
                continue;
            }
            #[allow(clippy::cast_precision_loss)]
            return Some(minute as f64 * 60.0);
        }
        None
    }
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The day count since 1970-01-01 of a date.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix seconds of a UTC date and time.
    fn at(year: i64, month: u32, day: u32, hour: i64, minute: i64) -> f64 {
        ((days_from_civil(year, month, day) * 1440 + hour * 60 + minute) * 60) as f64
    }

    #[test]
    fn dates_round_trip() {
        for days in [-800_000, -1, 0, 1, 59, 365, 11_016, 20_000, 2_932_896] {
            let (y, m, d) = civil(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }

    #[test]
    fn next_times() {
        let monthly = Cron::parse("0 0 1 * *").unwrap();
        assert_eq!(monthly.next_after(at(2026, 11, 27, 10, 30)), Some(at(2026, 12, 1, 0, 0)));
        assert_eq!(monthly.next_after(at(2026, 12, 1, 0, 0)), Some(at(2027, 1, 1, 0, 0)), "strictly after");
        let weekly = Cron::parse("30 18 * * 0").unwrap(); // Sundays 18:30
        assert_eq!(weekly.next_after(at(2026, 11, 27, 0, 0)), Some(at(2026, 11, 29, 18, 30)));
        let sevens = Cron::parse("30 18 * * 7").unwrap();
        assert_eq!(sevens, weekly, "7 is Sunday too");
        let steps = Cron::parse("*/15 9-17 * * 1-5").unwrap();
        assert_eq!(steps.next_after(at(2026, 11, 27, 17, 50)), Some(at(2026, 11, 30, 9, 0)), "Friday evening to Monday morning");
        let either = Cron::parse("0 12 13 * 5").unwrap(); // the 13th or any Friday
        assert_eq!(either.next_after(at(2026, 11, 27, 12, 0)), Some(at(2026, 12, 4, 12, 0)));
        assert_eq!(either.next_after(at(2026, 12, 5, 0, 0)), Some(at(2026, 12, 11, 12, 0)));
        let leap = Cron::parse("0 0 29 2 *").unwrap();
        assert_eq!(leap.next_after(at(2026, 1, 1, 0, 0)), Some(at(2028, 2, 29, 0, 0)));
        assert_eq!(Cron::parse("0 0 31 2 *").unwrap().next_after(at(2026, 1, 1, 0, 0)), None);
        let list = Cron::parse("5,10,50 * * * *").unwrap();
        assert_eq!(list.next_after(at(2026, 1, 1, 0, 10)), Some(at(2026, 1, 1, 0, 50)));
    }

    #[test]
    fn bad_expressions_say_why() {
        for (text, needle) in [
            ("* * * *", "five fields"),
            ("60 * * * *", "minute"),
            ("* 24 * * *", "hour"),
            ("* * 0 * *", "day of month"),
            ("* * * 13 *", "month"),
            ("* * * * 8", "day of week"),
            ("*/0 * * * *", "step"),
            ("a * * * *", "not a number"),
            ("5-1 * * * *", "outside"),
        ] {
            let error = Cron::parse(text).unwrap_err();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }
}
