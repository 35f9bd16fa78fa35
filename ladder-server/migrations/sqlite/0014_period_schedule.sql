-- Rating periods (docs/ladder-server.md, "Rating periods"): a ladder's schedule of period
-- ends, as its season ends and decay have theirs, and the next time it runs.
ALTER TABLE ladders ADD COLUMN schedule_period_end TEXT;
ALTER TABLE ladders ADD COLUMN next_period_end REAL;
