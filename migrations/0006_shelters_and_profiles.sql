CREATE TABLE `shelters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`phone` text,
	`website` text,
	`street` text,
	`city` text NOT NULL,
	`region` text,
	`postal_code` text,
	`country` text NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `shelters_live_id_idx` ON `shelters` (`id`) WHERE "shelters"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `shelters_country_id_idx` ON `shelters` (`country`,`id`) WHERE "shelters"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `shelters_account_idx` ON `shelters` (`account_id`) WHERE "shelters"."deleted_at" IS NULL;--> statement-breakpoint
ALTER TABLE `pets` ADD `shelter_id` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `breed` text;--> statement-breakpoint
ALTER TABLE `pets` ADD `age` text;--> statement-breakpoint
ALTER TABLE `pets` ADD `sex` text;--> statement-breakpoint
ALTER TABLE `pets` ADD `size` text;--> statement-breakpoint
ALTER TABLE `pets` ADD `good_with_children` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `good_with_dogs` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `good_with_cats` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `house_trained` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `special_needs` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `spayed_neutered` integer;--> statement-breakpoint
ALTER TABLE `pets` ADD `description` text;--> statement-breakpoint
CREATE INDEX `pets_shelter_id_idx` ON `pets` (`shelter_id`,`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pets_age_id_idx` ON `pets` (`age`,`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pets_size_id_idx` ON `pets` (`size`,`id`) WHERE "pets"."deleted_at" IS NULL;