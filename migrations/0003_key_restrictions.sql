ALTER TABLE `api_keys` ADD `grace_ends_at` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `scopes` text DEFAULT '["pets:read","pets:write","orders:read","orders:write","events:read","webhooks:read","webhooks:write"]' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_ranges` text;--> statement-breakpoint
-- Until now expires_at held the end of a rolled key's grace period; it now holds the key's own expiry.
UPDATE `api_keys` SET `grace_ends_at` = `expires_at`, `expires_at` = NULL WHERE `expires_at` IS NOT NULL;
