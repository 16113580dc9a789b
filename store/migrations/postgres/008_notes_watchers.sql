-- PostgreSQL's form of ../008_notes_watchers.sql (issue 30): a player's private note on a game,
-- the spectators who asked for a word on every turn of a game, and the daily digest's mark.
CREATE TABLE game_notes (
    player_id BIGINT NOT NULL REFERENCES players (id),
    game_id BIGINT NOT NULL REFERENCES games (id),
    text TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);

CREATE TABLE game_watchers (
    game_id BIGINT NOT NULL REFERENCES games (id),
    player_id BIGINT NOT NULL REFERENCES players (id),
    PRIMARY KEY (game_id, player_id)
);

CREATE TABLE digests_sent (
    player_id BIGINT NOT NULL REFERENCES players (id),
    -- Days since the Unix epoch (UTC).
    day BIGINT NOT NULL,
    PRIMARY KEY (player_id, day)
);

-- A player's finished games, newest first (`!t archive`).
CREATE INDEX games_white_finished ON games (white, result, id);
CREATE INDEX games_black_finished ON games (black, result, id);
