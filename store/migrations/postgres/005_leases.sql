-- PostgreSQL's form of ../005_leases.sql: who does the once-only work, until when.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    generation BIGINT NOT NULL DEFAULT 1
);
