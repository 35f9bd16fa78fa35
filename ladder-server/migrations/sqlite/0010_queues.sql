-- Matchmaking queues (PUT /v1/ladders/{ladder}/queues/{queue}), their tickets and the
-- matches they made. A queue's row also numbers its matches (match_seq) and holds the
-- matcher's lease (one matcher per queue at a time).
CREATE TABLE queues (
    ladder_id INTEGER NOT NULL REFERENCES ladders(id),
    name TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at REAL NOT NULL,
    match_seq INTEGER NOT NULL DEFAULT 0,
    lease_holder TEXT,
    lease_until REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (ladder_id, name)
);

-- row_id orders arrivals (the engine's ticket id); id is the public id.
CREATE TABLE tickets (
    row_id INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    ladder_id INTEGER NOT NULL,
    queue TEXT NOT NULL,
    client_id TEXT,
    request TEXT NOT NULL,
    players TEXT NOT NULL,
    size INTEGER NOT NULL,
    rating REAL NOT NULL,
    attributes TEXT NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    match_id TEXT
);
CREATE UNIQUE INDEX tickets_by_client_id ON tickets (ladder_id, queue, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX tickets_waiting ON tickets (ladder_id, queue, row_id) WHERE state = 'waiting';
CREATE INDEX tickets_by_update ON tickets (updated);

-- One row per player of a waiting ticket: a player waits at most once per queue.
CREATE TABLE waiting_players (
    ladder_id INTEGER NOT NULL,
    queue TEXT NOT NULL,
    player TEXT NOT NULL,
    ticket_row INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, queue, player)
);
CREATE INDEX waiting_players_by_ticket ON waiting_players (ticket_row);

CREATE TABLE queue_matches (
    ladder_id INTEGER NOT NULL,
    queue TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (ladder_id, queue, seq)
);
CREATE UNIQUE INDEX queue_matches_by_id ON queue_matches (ladder_id, id);
