-- What each push target (a Qdrant collection, on a server or in a local folder) already holds:
-- one hash per chunk over its vector and payload, recorded only after the target acknowledged
-- the batch. A re-push sends the chunks whose hash changed, deletes the chunks that are gone,
-- and after a kill -9 resumes where the last acknowledged batch ended.
-- No foreign key to chunks: a deleted chunk's row is how the push knows to delete its point.

CREATE TABLE push_targets (
    id        INTEGER PRIMARY KEY,
    target    TEXT NOT NULL UNIQUE,       -- qdrant://host:port/collection, or the local folder
    pushed_at TEXT
) STRICT;

CREATE TABLE push_state (
    target_id INTEGER NOT NULL REFERENCES push_targets(id) ON DELETE CASCADE,
    chunk_id  INTEGER NOT NULL,
    hash      TEXT NOT NULL,
    PRIMARY KEY (target_id, chunk_id)
) STRICT, WITHOUT ROWID;
