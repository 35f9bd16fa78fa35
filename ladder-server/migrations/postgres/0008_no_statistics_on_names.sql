-- No planner statistics on the columns that hold player names (ANALYZE copies sample values
-- into pg_statistic: a histogram of names, whole journal inputs), so an erased name is not
-- kept there. No query of the server filters on them by value.
ALTER TABLE players ALTER COLUMN name SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN inputs SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN joined SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN results SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN corrected_inputs SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN annul_reason SET STATISTICS 0;
ALTER TABLE journal ALTER COLUMN player_keys SET STATISTICS 0;
ALTER TABLE rebuild_checkpoints ALTER COLUMN state SET STATISTICS 0;
