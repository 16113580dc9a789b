-- Correspondence play (issue 30).

-- Conditional turns: "if my opponent plays this, I answer that". A line is the turns still to come,
-- the opponent's first, alternating, one per line of `turns` in the game's stored notation; it is
-- alive only while the game has exactly `from_ply` moves and it is the opponent's turn. The move
-- that follows it is stored in one transaction with the answer the line gives, and the lines are
-- shortened or dropped there too.
CREATE TABLE conditional_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games (id),
    player_id INTEGER NOT NULL REFERENCES players (id),
    from_ply INTEGER NOT NULL,
    turns TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX conditional_lines_game ON conditional_lines (game_id, player_id);

-- Vacations: while one runs (`started_at` to `ends_at`, unix seconds; `ends_at` is moved to the
-- moment it was ended early), the clocks of the player's games do not run.
CREATE TABLE vacations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id INTEGER NOT NULL REFERENCES players (id),
    started_at INTEGER NOT NULL,
    ends_at INTEGER NOT NULL
);
CREATE INDEX vacations_player ON vacations (player_id, ends_at);

-- A clock on which Saturday and Sunday, in the time zone of the player to move, do not count.
ALTER TABLE games ADD COLUMN weekends_off INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN weekends_off INTEGER NOT NULL DEFAULT 0;

-- Vacations in a tournament's games: NULL as each player's allowance says, 0 none, N at most N
-- days a player.
ALTER TABLE tournaments ADD COLUMN vacation_days INTEGER;
