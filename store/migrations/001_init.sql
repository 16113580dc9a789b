-- Players, challenges, games and their moves. A game is its variant, start position and moves;
-- positions are rebuilt by replaying the moves through the rules.
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (platform, user_id)
);

CREATE TABLE challenges (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    challenger INTEGER NOT NULL REFERENCES players (id),
    challenged INTEGER NOT NULL REFERENCES players (id),
    variant TEXT NOT NULL,
    color TEXT NOT NULL,
    days_per_move INTEGER,
    created_at INTEGER NOT NULL,
    status TEXT NOT NULL
);
CREATE INDEX challenges_open ON challenges (platform, channel, status);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    variant TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    white INTEGER NOT NULL REFERENCES players (id),
    black INTEGER NOT NULL REFERENCES players (id),
    result TEXT,
    result_reason TEXT,
    days_per_move INTEGER,
    created_at INTEGER NOT NULL,
    last_move_at INTEGER NOT NULL,
    reminded INTEGER NOT NULL DEFAULT 0,
    draw_offer INTEGER REFERENCES players (id),
    takeback_offer INTEGER REFERENCES players (id)
);
CREATE INDEX games_channel ON games (platform, channel, result);

CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    played_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
