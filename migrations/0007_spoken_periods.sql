-- The periods a chunk speaks of, beside the day its document was published: the reference
-- period of the document's title ("Consumer price inflation, May 2024") or of the heading it
-- stands under, and the dated expressions in its own text ("in the 12 months to May 2024",
-- "last week"), read against the publication day (trag_tui/periods.py). A question about a
-- period finds a chunk published in it or speaking of it. Days are days since 1970-01-01.
-- Maintained incrementally after each indexing run; a document is read once (periods_seen),
-- and the cascades drop a deleted chunk's or document's rows with it.

CREATE TABLE chunk_periods (
    chunk_id   INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    start_day  INTEGER NOT NULL,
    end_day    INTEGER NOT NULL,
    source     TEXT NOT NULL CHECK (source IN ('title', 'heading', 'text')),
    expression TEXT NOT NULL,
    CHECK (start_day <= end_day)
) STRICT;
CREATE INDEX chunk_periods_chunk ON chunk_periods(chunk_id);
CREATE INDEX chunk_periods_start ON chunk_periods(start_day, end_day);

CREATE TABLE periods_seen (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
) STRICT;
