-- The outbox (issue 27): every notice a player must get — a round paired, a game lost on time, a
-- reminder, a result set by the organiser — is written here in the transaction of the change it
-- announces, posted after the commit, and marked sent once the platform took it. A process posts
-- only the rows it has claimed (`claimed_by` until `claimed_until`, unix milliseconds); an
-- unsent row whose claim ran out is taken up by the next process that looks.
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    -- 'text'; 'round' (a tournament's round, its pairings read when posted); 'game' (a game begun or over:
    -- its board, and its GIF once over, are drawn when posted).
    kind TEXT NOT NULL,
    subject INTEGER,
    round INTEGER,
    body TEXT NOT NULL,
    -- Platform user ids of the players it concerns, one per line.
    notify TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    claimed_by TEXT,
    claimed_until INTEGER,
    sent_at INTEGER
);
CREATE INDEX outbox_unsent ON outbox (platform, sent_at, id);

-- Messages a platform may deliver again after a restart (Matrix's catch-up): answered once.
CREATE TABLE handled_messages (
    platform TEXT NOT NULL,
    message_id TEXT NOT NULL,
    handled_at INTEGER NOT NULL,
    PRIMARY KEY (platform, message_id)
);

-- One place for a tournament game's result: the game. Results an organiser set on a pairing that
-- has a game move into the game (a forfeit stays marked as one), and the pairing's copy goes.
UPDATE games SET
    result = (SELECT CASE p.result WHEN '+-' THEN '1-0' WHEN '-+' THEN '0-1' WHEN '--' THEN '0-0' ELSE p.result END
              FROM tournament_pairings p WHERE p.game_id = games.id),
    result_reason = (SELECT CASE WHEN p.result IN ('+-', '-+', '--') THEN 'forfeit: ' ELSE 'set by the organiser: ' END
                     || COALESCE(p.result_reason, '')
                     FROM tournament_pairings p WHERE p.game_id = games.id),
    rated = CASE WHEN (SELECT p.result FROM tournament_pairings p WHERE p.game_id = games.id) IN ('+-', '-+', '--')
                 THEN 0 ELSE rated END
    WHERE id IN (SELECT game_id FROM tournament_pairings WHERE game_id IS NOT NULL AND result IS NOT NULL);
UPDATE tournament_pairings SET result = NULL, result_reason = NULL WHERE game_id IS NOT NULL AND result IS NOT NULL;
