-- Rating periods, continued (docs/ladder-server.md, "Rating periods").

-- The option rating_periods, kept here too so that a report's transaction reads it with the
-- ladder's season (a server's cached options may be seconds old).
ALTER TABLE ladders ADD COLUMN rating_periods BOOLEAN NOT NULL DEFAULT false;

-- The held matches of a ladder, found without reading its other entries (a period end reads
-- them all, and a ladder that turns rating periods on may have a long history before).
CREATE INDEX journal_held ON journal (ladder_id, seq) WHERE kind = 'pair' AND results LIKE '%"held":true%';
