-- The searchable chunks of each document, in an index that holds nothing else: a scope (the
-- documents of a named speaker, source or district) becomes its chunk ids without reading the
-- chunk rows, whose text fills most of the file. At a million chunks a district's 24,000
-- chunks took 28 ms from the rows and take 9 ms from this (bench/scale_bench.py).
CREATE INDEX chunks_searchable_document ON chunks(document_id) WHERE searchable = 1;
