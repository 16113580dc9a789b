-- PostgreSQL's form of ../009_threads.sql.
-- A thread per game (issue 30): the platform's id of the game's own thread in its channel (a
-- Discord thread's channel, a Matrix thread's root event); '' once making one failed (the game
-- stays in its channel); NULL while it has none. Set once: of two processes, one game's thread.
ALTER TABLE games ADD COLUMN thread TEXT;
-- A message written in a thread finds its game by it.
CREATE UNIQUE INDEX games_thread ON games (platform, thread) WHERE thread IS NOT NULL AND thread <> '';
