-- A compact copy of each searchable chunk's vector: its sign bits (bit i set when dimension i
-- is positive, least significant bit first), with the chunk's day as the vector table keeps it.
-- A large index scans these for a first pass and rescores the best few hundred with the full
-- vectors (trag_tui/storage/quantised.py). Written beside each vector; an index from before
-- this step gains its rows on the next `trag-tui index`, and until then is searched exactly.
CREATE TABLE chunk_codes (
    chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    day      INTEGER NOT NULL,
    code     BLOB NOT NULL
) STRICT;
