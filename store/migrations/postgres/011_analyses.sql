-- PostgreSQL's form of ../011_analyses.sql.
-- Analysis after the game (issue 32): one per game, asked by a player, answered where it was
-- asked. Waiting while finished_at is NULL: a restart queues those again.
CREATE TABLE analyses (
    game_id BIGINT PRIMARY KEY REFERENCES games (id),
    requester BIGINT NOT NULL REFERENCES players (id),
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX analyses_waiting ON analyses (finished_at, requested_at);
-- Each position's evaluation, White's view (`cp 35`, `mate -3`, `won white`), with the engine's
-- best turn there in the record's notation and the depth searched.
CREATE TABLE analysis_plies (
    game_id BIGINT NOT NULL REFERENCES analyses (game_id),
    ply BIGINT NOT NULL,
    eval TEXT NOT NULL,
    best TEXT,
    depth BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
