CREATE TABLE `account_invites` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_invites_account_idx` ON `account_invites` (`account_id`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`plan` text DEFAULT 'free' NOT NULL,
	`per_minute` integer,
	`per_day` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (lower("email"));--> statement-breakpoint
CREATE TABLE `api_keys` (
	`hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`last_four` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`expires_at` integer,
	`plan` text,
	`per_minute` integer,
	`per_day` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`synced_version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_keys_account_created_idx` ON `api_keys` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `api_keys_unsynced_idx` ON `api_keys` (`hash`) WHERE "api_keys"."synced_version" < "api_keys"."version";--> statement-breakpoint
CREATE TABLE `categories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`account_id` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `categories_live_id_idx` ON `categories` (`id`) WHERE "categories"."deleted_at" IS NULL;--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires_at_idx` ON `dashboard_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`account_id` integer,
	`data` text NOT NULL,
	`previous_status` text,
	`changes` text,
	`created_at` integer NOT NULL,
	`dispatched_at` integer,
	`claim_token` text,
	`claim_expires_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_undispatched_idx` ON `events` (`seq`) WHERE "events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE INDEX `events_claim_idx` ON `events` (`claim_token`) WHERE "events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE INDEX `events_created_at_idx` ON `events` (`created_at`);--> statement-breakpoint
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
CREATE TABLE `pets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`category_id` integer NOT NULL,
	`status` text DEFAULT 'available' NOT NULL,
	`account_id` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pets_live_id_idx` ON `pets` (`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pets_status_id_idx` ON `pets` (`status`,`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pets_category_id_idx` ON `pets` (`category_id`,`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pets_category_status_id_idx` ON `pets` (`category_id`,`status`,`id`) WHERE "pets"."deleted_at" IS NULL;--> statement-breakpoint
CREATE TABLE `session_notices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_hash` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`session_hash`) REFERENCES `dashboard_sessions`(`token_hash`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_notices_session_idx` ON `session_notices` (`session_hash`);--> statement-breakpoint
CREATE INDEX `session_notices_expires_at_idx` ON `session_notices` (`expires_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`url` text NOT NULL,
	`types` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secrets` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'enabled' NOT NULL,
	`disabled_reason` text,
	`after_seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_account_idx` ON `webhooks` (`account_id`,`id`);