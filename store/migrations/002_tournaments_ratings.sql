-- Rated games, tournaments and their rounds. Ratings and standings are not stored: they are
-- computed from the finished games (and the organisers' recorded results), so nothing derived can
-- disagree with the games it comes from.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN finished_at INTEGER;
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;

CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    name TEXT NOT NULL,
    organiser INTEGER NOT NULL REFERENCES players (id),
    variant TEXT NOT NULL,
    -- swiss, round-robin, double-round-robin, knockout
    format TEXT NOT NULL,
    -- Planned rounds; for round robin and knockout fixed when the tournament starts.
    rounds INTEGER NOT NULL,
    days_per_move INTEGER,
    rated INTEGER NOT NULL,
    starts_at INTEGER,
    max_players INTEGER,
    -- Points in halves for a pairing-allocated bye.
    bye_halves INTEGER NOT NULL DEFAULT 2,
    -- open, running, paused, finished, cancelled
    status TEXT NOT NULL,
    -- The last round paired (0 before the start): the guard that pairs each round once.
    current_round INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX tournaments_channel ON tournaments (platform, channel, status);

CREATE TABLE tournament_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    player_id INTEGER NOT NULL REFERENCES players (id),
    joined_at INTEGER NOT NULL,
    -- The first round the player can be paired in (later for a late entry).
    first_round INTEGER NOT NULL DEFAULT 1,
    -- The last round the player took part in before withdrawing; never paired after it.
    withdrawn_after INTEGER,
    withdraw_reason TEXT,
    -- The rating the player was seeded by, fixed at the start (or at a late entry): the initial
    -- ranking that gives pairing numbers.
    seed_rating INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, player_id)
);

CREATE TABLE tournament_pairings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    -- Knockout: a drawn game is replayed with colours reversed; each game is one leg.
    leg INTEGER NOT NULL DEFAULT 0,
    white INTEGER NOT NULL REFERENCES players (id),
    -- NULL: `white` has no opponent (a bye or an absence, by `kind`).
    black INTEGER REFERENCES players (id),
    -- game, bye (pairing-allocated), half-bye (a missed round of a late entry), absent
    kind TEXT NOT NULL,
    game_id INTEGER REFERENCES games (id),
    -- A result set without the game (forfeits: '+-', '-+', '--'; by the organiser, or a
    -- withdrawal), overriding the game's.
    result TEXT,
    result_reason TEXT,
    PRIMARY KEY (tournament_id, round, board, leg)
);
CREATE UNIQUE INDEX tournament_pairings_game ON tournament_pairings (game_id);
