DROP TABLE `delivery_attempts`;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `previous_secrets` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `status` text DEFAULT 'enabled' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `disabled_reason` text;