-- Each player's own settings (`!t settings`): whether risky turns are confirmed, how boards face.
CREATE TABLE player_settings (
    player_id INTEGER NOT NULL REFERENCES players (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (player_id, key)
);

-- A turn the bot asked its player to confirm (it would lose by rule, or leaves out an action),
-- valid while the game is still at `ply` moves.
CREATE TABLE pending_turns (
    player_id INTEGER NOT NULL REFERENCES players (id),
    game_id INTEGER NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);

-- A channel's settings, set by its moderators (`!t channel`): whether finished games are posted
-- as GIFs.
CREATE TABLE channel_settings (
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (platform, channel, key)
);
