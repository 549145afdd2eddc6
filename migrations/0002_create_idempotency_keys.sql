CREATE TABLE `idempotency_keys` (
	`api_key_hash` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`pet_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_hash`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_at_idx` ON `idempotency_keys` (`created_at`);