-- Pages on the web (issue 31): a tournament or a game made public at an unguessable address.
-- Unpublishing deletes the row, so the old address answers as an unknown one; publishing again
-- gives a new address. One live address per thing published.
CREATE TABLE publications (
    token TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('tournament', 'game')),
    target INTEGER NOT NULL,
    created_by INTEGER NOT NULL REFERENCES players (id),
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX publications_target ON publications (kind, target);
