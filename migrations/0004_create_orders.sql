CREATE TABLE `idempotency_records` (
	`api_key_hash` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`operation` text NOT NULL,
	`request_hash` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_hash`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_records_created_at_idx` ON `idempotency_records` (`created_at`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`pet_id` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pet_id`) REFERENCES `pets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `orders_account_id_idx` ON `orders` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `orders_account_status_id_idx` ON `orders` (`account_id`,`status`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_one_placed_per_pet_idx` ON `orders` (`pet_id`) WHERE "orders"."status" = 'placed';--> statement-breakpoint
-- Live records of the previous release, with the response each one was sent: until this
-- release nothing changed an animal after its creation, so its row is that response.
INSERT INTO `idempotency_records` (`api_key_hash`, `idempotency_key`, `operation`, `request_hash`, `response_status`, `response_body`, `created_at`)
SELECT `k`.`api_key_hash`, `k`.`idempotency_key`, 'createPet', `k`.`request_hash`, 201,
	json_object('id', `p`.`id`, 'name', `p`.`name`, 'categoryId', `p`.`category_id`, 'status', `p`.`status`),
	`k`.`created_at`
FROM `idempotency_keys` AS `k` INNER JOIN `pets` AS `p` ON `p`.`id` = `k`.`pet_id`;
