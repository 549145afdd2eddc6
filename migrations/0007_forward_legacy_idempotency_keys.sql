-- The release before idempotency_records keeps serving while a deploy rolls
-- out, and it records createPet keys in idempotency_keys. Forward each such
-- key to idempotency_records as it is written, and copy any written since
-- the table was made, so a retry that reaches the new release replays the
-- animal instead of creating a second one.
CREATE TRIGGER `idempotency_keys_forwarded` AFTER INSERT ON `idempotency_keys`
BEGIN
	INSERT OR IGNORE INTO `idempotency_records` (`api_key_hash`, `idempotency_key`, `operation`, `request_hash`, `response_status`, `response_body`, `created_at`)
	SELECT NEW.`api_key_hash`, NEW.`idempotency_key`, 'createPet', NEW.`request_hash`, 201,
		json_object('id', `p`.`id`, 'name', `p`.`name`, 'categoryId', `p`.`category_id`, 'status', `p`.`status`),
		NEW.`created_at`
	FROM `pets` AS `p` WHERE `p`.`id` = NEW.`pet_id`;
END;
--> statement-breakpoint
INSERT OR IGNORE INTO `idempotency_records` (`api_key_hash`, `idempotency_key`, `operation`, `request_hash`, `response_status`, `response_body`, `created_at`)
SELECT `k`.`api_key_hash`, `k`.`idempotency_key`, 'createPet', `k`.`request_hash`, 201,
	json_object('id', `p`.`id`, 'name', `p`.`name`, 'categoryId', `p`.`category_id`, 'status', `p`.`status`),
	`k`.`created_at`
FROM `idempotency_keys` AS `k` INNER JOIN `pets` AS `p` ON `p`.`id` = `k`.`pet_id`;
