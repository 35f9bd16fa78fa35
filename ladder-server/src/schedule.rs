//! Schedules: each server looks every second for ladders whose next scheduled season end or
//! decay is due, runs it as the event `scheduled/<kind>/<time>` (so however many servers
//! run the schedule, the journal's id makes it happen once, and a server that stopped half
//! way runs it again harmlessly), then moves the ladder's next time to the schedule's next
//! one after it (a compare-and-set: once). Times missed while no server ran fold into one
//! event, for the latest of them, at the next look: a month of downtime brings one season
//! end, not one soft reset per missed week, which would compress the ratings again and
//! again. The journal entry records the scheduled time and how many earlier ones it stands
//! for (`missed`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::cron::Cron;
use crate::events::{EventRequest, LadderEvent};
use crate::http::AppState;

/// How often a server looks for due events.
const TICK: Duration = Duration::from_secs(1);

/// Runs until the server drains.
pub async fn run(state: Arc<AppState>) {
    loop {
        tokio::time::sleep(TICK).await;
        if state.draining.load(Ordering::SeqCst) {
            return;
        }
        if let Err(error) = tick(&state).await {
            tracing::warn!(error = %error, "running the schedules failed; trying again");
        }
    }
}

async fn tick(state: &AppState) -> Result<(), crate::error::ApiError> {
    let due = state.store.due(crate::model::now()).await?;
    let now = crate::model::now();
    for (name, event, at) in due {
        let Some(ladder) = state.store.ladder(&name).await? else { continue };
        let ladder = Arc::new(ladder);
        // The ladder's schedule as it is now (an operator may have changed it since `at` was
        // set; a removed schedule still runs the time it had set, once).
        let summary = state.store.ladders(Some(&name)).await?.into_iter().next();
        let cron = summary
            .and_then(|s| match event {
                LadderEvent::SeasonEnd => s.schedule.season_end,
                LadderEvent::Decay => s.schedule.decay,
                LadderEvent::PeriodEnd => s.schedule.period_end,
            })
            .and_then(|text| {
                // A schedule stored before the parser refused its form (`N/step`, say) runs
                // the time it had set, once, and says why it stops.
                Cron::parse(&text).map_err(|error| tracing::warn!(ladder = %name, schedule = %text, %error, "a stored schedule no longer parses; set it again")).ok()
            });
        let (latest, missed) = cron.as_ref().map_or((at, 0), |cron| latest_due(cron, at, now));
        let answer = state.store.ladder_event(Arc::clone(&ladder), EventRequest::scheduled(event, latest, missed)).await;
        if let Err(error) = &answer {
            if error.status.is_server_error() {
                tracing::warn!(ladder = %name, event = event.kind(), at = latest, error = %error, "a scheduled event failed; it runs again");
                continue;
            }
        }
        let next = cron.and_then(|cron| cron.next_after(latest));
        if state.store.advance(&ladder, event, at, next).await? {
            tracing::info!(ladder = %name, event = event.kind(), scheduled = latest, missed, next = ?next, "ran a scheduled event");
        }
    }
    Ok(())
}

/// The latest time of `cron` from `at` up to `now`, and how many earlier ones (from `at` on)
/// it passes over. Bounded: a minute-by-minute schedule missed for a year is half a million
/// steps of microseconds each.
fn latest_due(cron: &Cron, at: f64, now: f64) -> (f64, u64) {
    let (mut latest, mut missed) = (at, 0);
    while let Some(next) = cron.next_after(latest).filter(|&next| next <= now) {
        latest = next;
        missed += 1;
    }
    (latest, missed)
}

#[cfg(test)]
mod tests {
    use super::latest_due;
    use crate::cron::Cron;

    #[test]
    fn missed_times_fold_into_the_latest() {
        let monthly = Cron::parse("0 0 1 * *").unwrap();
        let jan = 1_767_225_600.0; // 2026-01-01 00:00 UTC
        let nov = 1_793_491_200.0; // 2026-11-01 00:00 UTC
        assert_eq!(latest_due(&monthly, jan, nov + 3600.0), (nov, 10));
        assert_eq!(latest_due(&monthly, jan, jan), (jan, 0), "due now: itself");
        assert_eq!(latest_due(&monthly, jan, nov), (nov, 10), "a time equal to now is due");
    }
}
