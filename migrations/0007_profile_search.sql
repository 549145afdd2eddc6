-- Written by hand: drizzle-kit cannot express FTS5 tables. The animals' index gains the words
-- of each one's breed, which `breed` searches as `q` searches names; an FTS5 table takes no new
-- column, so it is made again with both and filled from the live animals (no breed is known yet).
-- The shelters' names get an index of their own, for their `q`. Both stay contentless, with the
-- tokenizer and prefixes of the first search index, and are written by each change's own batch.
DROP TABLE `pet_search`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `pet_search` USING fts5(
	name,
	breed,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '1 2 3 4 5 6 7 8'
);
--> statement-breakpoint
INSERT INTO `pet_search` (rowid, name, breed) SELECT id, name, breed FROM pets WHERE deleted_at IS NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `shelter_search` USING fts5(
	name,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '1 2 3 4 5 6 7 8'
);
