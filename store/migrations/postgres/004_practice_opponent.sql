-- PostgreSQL's form of ../004_practice_opponent.sql: games against the bot itself.
ALTER TABLE games ADD COLUMN bot_player BIGINT REFERENCES players (id);
ALTER TABLE games ADD COLUMN bot_level BIGINT;
