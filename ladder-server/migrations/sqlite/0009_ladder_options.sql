-- A ladder's server-side options (PUT /v1/ladders/{ladder}/options): JSON of LadderOptions.
ALTER TABLE ladders ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
