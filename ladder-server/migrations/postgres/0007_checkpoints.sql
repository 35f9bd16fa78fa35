-- Rebuild checkpoints (checkpoint.rs): a ladder's replayed state after one of its entries,
-- so that an annulment or correction replays only from the latest checkpoint before the
-- match. Laid every N entries by rebuilds and by the server's checkpointer; an amendment
-- drops those at or after its match (and bumps `amendments`, so that a checkpoint computed
-- meanwhile is not stored); an erasure drops the ladder's (they hold names).
CREATE TABLE rebuild_checkpoints (
    ladder_id BIGINT NOT NULL REFERENCES ladders (id),
    seq       BIGINT  NOT NULL,
    state     TEXT    NOT NULL,
    PRIMARY KEY (ladder_id, seq)
);
ALTER TABLE ladders ADD COLUMN amendments BIGINT NOT NULL DEFAULT 0;
