-- The earliest day a chunk's text was told: its own day, or the earlier day of another
-- document whose chunk shares its shingles (an edge of the evidence graph). A photo gallery of
-- past years, a backgrounder, yesterday's paragraphs in today's update: retold, not new. Filled
-- with the graph's other scores; NULL until then, and for undated chunks.
ALTER TABLE chunks ADD COLUMN told_day INTEGER;
