CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`webhook_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`outcome` text NOT NULL,
	`response_status` integer,
	`error` text,
	`next_retry_at` integer,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_webhook_idx` ON `delivery_attempts` (`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `delivery_attempts_attempted_at_idx` ON `delivery_attempts` (`attempted_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`account_id` integer,
	`data` text NOT NULL,
	`previous_status` text,
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
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`url` text NOT NULL,
	`types` text NOT NULL,
	`secret` text NOT NULL,
	`after_seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_account_idx` ON `webhooks` (`account_id`,`id`);--> statement-breakpoint
-- Event ids: `evt_` and 26 random Crockford base32 characters, drawn afresh on every read.
CREATE VIEW `new_event_ids` AS SELECT 'evt_' ||
	substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (random() & 31) + 1, 1) AS `id`;--> statement-breakpoint
-- The events, written by the statement that makes the change, from the row it wrote; the
-- time is the database's, so it never runs against the feed's order. Triggers neither count
-- in changes() nor move last_insert_rowid() for the statements that follow in a batch.
CREATE TRIGGER `pets_created_event` AFTER INSERT ON `pets` BEGIN
	INSERT INTO `events` (`id`, `type`, `data`, `created_at`)
	SELECT `id`, 'pet.created', json_object('id', NEW.`id`, 'name', NEW.`name`, 'categoryId', NEW.`category_id`, 'status', NEW.`status`), CAST(round(unixepoch('subsec') * 1000) AS INTEGER)
	FROM `new_event_ids`;
END;--> statement-breakpoint
CREATE TRIGGER `pets_status_changed_event` AFTER UPDATE OF `status` ON `pets`
WHEN NEW.`status` IS NOT OLD.`status` BEGIN
	INSERT INTO `events` (`id`, `type`, `data`, `previous_status`, `created_at`)
	SELECT `id`, 'pet.status_changed', json_object('id', NEW.`id`, 'name', NEW.`name`, 'categoryId', NEW.`category_id`, 'status', NEW.`status`), OLD.`status`, CAST(round(unixepoch('subsec') * 1000) AS INTEGER)
	FROM `new_event_ids`;
END;--> statement-breakpoint
CREATE TRIGGER `orders_placed_event` AFTER INSERT ON `orders`
WHEN NEW.`status` = 'placed' BEGIN
	INSERT INTO `events` (`id`, `type`, `account_id`, `data`, `created_at`)
	SELECT `id`, 'order.placed', NEW.`account_id`,
		json_object('id', NEW.`id`, 'petId', NEW.`pet_id`, 'status', NEW.`status`,
		'createdAt', strftime('%Y-%m-%dT%H:%M:%S', NEW.`created_at` / 1000, 'unixepoch') || printf('.%03dZ', NEW.`created_at` % 1000),
		'updatedAt', strftime('%Y-%m-%dT%H:%M:%S', NEW.`updated_at` / 1000, 'unixepoch') || printf('.%03dZ', NEW.`updated_at` % 1000)),
		CAST(round(unixepoch('subsec') * 1000) AS INTEGER)
	FROM `new_event_ids`;
END;--> statement-breakpoint
CREATE TRIGGER `orders_moved_event` AFTER UPDATE OF `status` ON `orders`
WHEN NEW.`status` IS NOT OLD.`status` AND NEW.`status` IN ('completed', 'cancelled') BEGIN
	INSERT INTO `events` (`id`, `type`, `account_id`, `data`, `created_at`)
	SELECT `id`, 'order.' || NEW.`status`, NEW.`account_id`,
		json_object('id', NEW.`id`, 'petId', NEW.`pet_id`, 'status', NEW.`status`,
		'createdAt', strftime('%Y-%m-%dT%H:%M:%S', NEW.`created_at` / 1000, 'unixepoch') || printf('.%03dZ', NEW.`created_at` % 1000),
		'updatedAt', strftime('%Y-%m-%dT%H:%M:%S', NEW.`updated_at` / 1000, 'unixepoch') || printf('.%03dZ', NEW.`updated_at` % 1000)),
		CAST(round(unixepoch('subsec') * 1000) AS INTEGER)
	FROM `new_event_ids`;
END;
