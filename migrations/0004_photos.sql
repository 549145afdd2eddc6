CREATE TABLE `photos` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`pet_id` integer NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`url` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`pet_id`) REFERENCES `pets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `photos_id_unique` ON `photos` (`id`);--> statement-breakpoint
CREATE INDEX `photos_pet_state_seq_idx` ON `photos` (`pet_id`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `photos_state_created_idx` ON `photos` (`state`,`created_at`);