-- Webhook subscriptions (docs/ladder-server.md, "Webhooks"): each sends its ladder's journal
-- entries of the kinds it names (JSON array; empty: every kind) to its URL, one at a time
-- in seq order. delivered_through is the durable cursor: every entry up to it was delivered
-- (answered 2xx) or is not of its kinds. attempts counts the failures in a row at the entry
-- after it; next_attempt holds the backoff. One server delivers a subscription at a time:
-- the one holding its lease (lease_holder until lease_until). revision counts the PUTs: a
-- failure is recorded only against the revision it was sent under.
CREATE TABLE webhooks (
    id                BIGSERIAL PRIMARY KEY,
    ladder_id         BIGINT NOT NULL REFERENCES ladders(id),
    name              TEXT NOT NULL,
    url               TEXT NOT NULL,
    kinds             TEXT NOT NULL,
    secret            TEXT NOT NULL,
    paused            BOOLEAN NOT NULL DEFAULT false,
    created_at        DOUBLE PRECISION NOT NULL,
    delivered_through BIGINT NOT NULL,
    delivered         BIGINT NOT NULL DEFAULT 0,
    attempts          BIGINT NOT NULL DEFAULT 0,
    next_attempt      DOUBLE PRECISION NOT NULL DEFAULT 0,
    failing_since     DOUBLE PRECISION,
    last_error        TEXT,
    last_attempt      DOUBLE PRECISION,
    revision          BIGINT NOT NULL DEFAULT 0,
    lease_holder      TEXT,
    lease_until       DOUBLE PRECISION NOT NULL DEFAULT 0,
    UNIQUE (ladder_id, name)
);
