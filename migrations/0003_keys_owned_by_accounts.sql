CREATE TABLE `account_invites` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_invites_account_idx` ON `account_invites` (`account_id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `per_minute` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `per_day` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `plan` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `per_minute` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `per_day` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `version` integer DEFAULT 1000000000000000 NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `synced_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `api_keys_unsynced_idx` ON `api_keys` (`hash`) WHERE "api_keys"."synced_version" < "api_keys"."version";