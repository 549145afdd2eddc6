-- Written by hand: drizzle-kit cannot express FTS5 tables. Both are contentless (the names
-- live in their own tables) and are written by each change's own batch, never by a trigger.
-- Their tokenizer is the one folding the API promises: words of letters and digits, case and
-- accents ignored (remove_diacritics 2), so `bel` finds Bélla; æ, ø and ß are kept as they are.
-- The prefix indexes serve `q`'s words, each a prefix, from the index up to 8 characters.
CREATE VIRTUAL TABLE `pet_search` USING fts5(
	name,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '1 2 3 4 5 6 7 8'
);
--> statement-breakpoint
-- Category names, read only to tell whether two names are the same words.
CREATE VIRTUAL TABLE `category_names` USING fts5(
	name,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2'
);
