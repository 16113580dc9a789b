-- Analysis after the game (issue 32): one per game, asked by a player, answered where it was
-- asked. Waiting while finished_at is NULL: a restart queues those again.
CREATE TABLE analyses (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    requester INTEGER NOT NULL REFERENCES players (id),
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX analyses_waiting ON analyses (finished_at, requested_at);
-- Each position's evaluation, White's view (`cp 35`, `mate -3`, `won white`), with the engine's
-- best turn there in the record's notation and the depth searched.
CREATE TABLE analysis_plies (
    game_id INTEGER NOT NULL REFERENCES analyses (game_id),
    ply INTEGER NOT NULL,
    eval TEXT NOT NULL,
    best TEXT,
    depth INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
