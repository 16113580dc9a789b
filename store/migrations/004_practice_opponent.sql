-- Games against the bot itself (issue 16): which player is the bot and the level it plays at.
-- Both NULL in a game between people. Kept with the game so a restart resumes the bot's turns.
ALTER TABLE games ADD COLUMN bot_player INTEGER REFERENCES players (id);
ALTER TABLE games ADD COLUMN bot_level INTEGER;
