-- Community variants (issue 33): the file a game started under is kept with the game, so an
-- edited or removed file never changes a game in progress or its replay. A definition is keyed by
-- its name and a hash of its text (`hans38-five@0123456789abcdef`); games of the built-ins keep
-- NULL, their rules being compiled in.
CREATE TABLE variant_definitions (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
ALTER TABLE games ADD COLUMN variant_key TEXT REFERENCES variant_definitions (key);
-- A tournament's games all play the definition it was created with.
ALTER TABLE tournaments ADD COLUMN variant_key TEXT REFERENCES variant_definitions (key);
