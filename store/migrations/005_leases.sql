-- Leases (issue 17): work that must happen once across every process on one database — the
-- clock's sweep of a platform, a Matrix account's sync, a Discord shard — belongs for a while to
-- the process named here. A holder renews before `expires_at` (unix milliseconds); a lease past
-- it may be taken by anyone. `generation` counts the holders since the lease was last given up.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    generation INTEGER NOT NULL DEFAULT 1
);
