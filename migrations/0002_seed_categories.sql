-- Written by hand: the catalogue starts with seven categories. A migration cannot name the
-- operator account (its email differs per environment), so their owner is null, which means
-- the operator account.
INSERT INTO `categories` (`id`, `name`, `account_id`, `version`, `created_at`) VALUES
	(1, 'Dogs', NULL, 1, 0),
	(2, 'Cats', NULL, 1, 0),
	(3, 'Rabbits', NULL, 1, 0),
	(4, 'Birds', NULL, 1, 0),
	(5, 'Small mammals', NULL, 1, 0),
	(6, 'Reptiles', NULL, 1, 0),
	(7, 'Fish', NULL, 1, 0);
--> statement-breakpoint
INSERT INTO `category_names` (`rowid`, `name`) SELECT `id`, `name` FROM `categories`;
