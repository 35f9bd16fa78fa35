-- Webhook subscriptions (docs/ladder-server.md, "Webhooks"): each sends its ladder's journal
-- entries of the kinds it names (JSON array; empty: every kind) to its URL, one at a time
-- in seq order. delivered_through is the durable cursor: every entry up to it was delivered
-- (answered 2xx) or is not of its kinds. attempts counts the failures in a row at the entry
-- after it; next_attempt holds the backoff. One server delivers a subscription at a time:
-- the one holding its lease (lease_holder until lease_until). revision counts the PUTs: a
-- failure is recorded only against the revision it was sent under.
CREATE TABLE webhooks (
    id                INTEGER PRIMARY KEY,
    ladder_id         INTEGER NOT NULL REFERENCES ladders(id),
    name              TEXT NOT NULL,
    url               TEXT NOT NULL,
    kinds             TEXT NOT NULL,
    secret            TEXT NOT NULL,
    paused            INTEGER NOT NULL DEFAULT 0,
    created_at        REAL NOT NULL,
    delivered_through INTEGER NOT NULL,
    delivered         INTEGER NOT NULL DEFAULT 0,
    attempts          INTEGER NOT NULL DEFAULT 0,
    next_attempt      REAL NOT NULL DEFAULT 0,
    failing_since     REAL,
    last_error        TEXT,
    last_attempt      REAL,
    revision          INTEGER NOT NULL DEFAULT 0,
    lease_holder      TEXT,
    lease_until       REAL NOT NULL DEFAULT 0,
    UNIQUE (ladder_id, name)
);
