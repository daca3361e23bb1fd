-- The one-file index: files seen, documents found in them, chunks cut from documents,
-- and the full-text index over chunk text and document title.
-- The vector table (vec0) is created when the first embedding is stored, because its
-- dimension is the embedder's, recorded in meta; see trag_tui/store.py.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE files (
    id           INTEGER PRIMARY KEY,
    path         TEXT NOT NULL UNIQUE,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    -- 1 once every document of the file is stored; a file left at 0 by a crash is resumed.
    complete     INTEGER NOT NULL DEFAULT 0,
    documents    INTEGER NOT NULL DEFAULT 0,
    note         TEXT,
    indexed_at   TEXT NOT NULL
) STRICT;

CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    source_id    TEXT NOT NULL,
    title        TEXT NOT NULL DEFAULT '',
    speaker      TEXT NOT NULL DEFAULT '',
    date         TEXT,
    day          INTEGER,            -- days since 1970-01-01; NULL when the date is unknown
    date_source  TEXT NOT NULL CHECK (date_source IN
                     ('filename', 'xml', 'metadata', 'text', 'default', 'unknown')),
    content_hash TEXT NOT NULL,
    meta         TEXT NOT NULL DEFAULT '{}',
    UNIQUE (file_id, ordinal)
) STRICT;
CREATE INDEX documents_source_id ON documents(source_id);
CREATE INDEX documents_day ON documents(day);

CREATE TABLE chunks (
    id           INTEGER PRIMARY KEY,
    document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    -- Child chunks are searched; their parent passage is what an answer quotes.
    -- A short document has one chunk that is searched and quoted (parent_id NULL).
    parent_id    INTEGER REFERENCES chunks(id) ON DELETE CASCADE,
    searchable   INTEGER NOT NULL,
    text         TEXT NOT NULL,
    start_char   INTEGER NOT NULL,
    end_char     INTEGER NOT NULL,
    day          INTEGER,            -- inherited from the document
    content_hash TEXT NOT NULL,
    -- Evidence graph, filled after embedding: MinHash of word 3-gram shingles (uint32 array),
    -- degree centrality, PageRank, and the near-duplicate cluster's representative chunk.
    signature    BLOB,
    centrality   REAL,
    pagerank     REAL,
    cluster_id   INTEGER
) STRICT;
CREATE INDEX chunks_document ON chunks(document_id);
CREATE INDEX chunks_hash ON chunks(content_hash);
CREATE INDEX chunks_day ON chunks(day) WHERE searchable = 1;

-- Contentless: the text lives once, in chunks; rows are deleted by rowid (= chunks.id).
CREATE VIRTUAL TABLE chunk_fts USING fts5(
    text, title,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Document frequencies per term, to drop query terms too common to discriminate.
CREATE VIRTUAL TABLE chunk_vocab USING fts5vocab(chunk_fts, 'row');
