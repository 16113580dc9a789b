-- PostgreSQL's form of ../003_settings.sql: players' settings, turns awaiting confirmation,
-- channels' settings.
CREATE TABLE player_settings (
    player_id BIGINT NOT NULL REFERENCES players (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (player_id, key)
);

CREATE TABLE pending_turns (
    player_id BIGINT NOT NULL REFERENCES players (id),
    game_id BIGINT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);

CREATE TABLE channel_settings (
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (platform, channel, key)
);
