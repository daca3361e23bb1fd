-- The evidence graph between searchable chunks: an edge joins two chunks whose word 3-gram
-- shingle sets overlap (estimated Jaccard >= the threshold recorded in meta 'evidence_params').
-- Stored once per pair (a < b). The cascades delete a chunk's edges with the chunk, so a
-- re-indexed document can never leave an edge pointing at a missing (or reused) chunk id;
-- trag_tui.evidence.update_evidence also sweeps for orphans left by a connection that had
-- foreign keys switched off.

CREATE TABLE chunk_edges (
    a      INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    b      INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    weight REAL NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;

-- The primary key serves lookups by a; this one serves the cascade and neighbour lookups by b.
CREATE INDEX chunk_edges_b ON chunk_edges(b);
