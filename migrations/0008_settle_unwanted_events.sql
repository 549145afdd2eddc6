-- An event no webhook endpoint wants when it is written has nothing to
-- dispatch: it is marked dispatched at once, in the change's own
-- transaction, so a change leaves work for the dispatcher only when some
-- endpoint will receive it. An endpoint made later never receives older
-- events (its after_seq), so the decision cannot go stale.
CREATE TRIGGER `events_unwanted_settled` AFTER INSERT ON `events`
WHEN NOT EXISTS (
	SELECT 1 FROM `webhooks`
	WHERE (NEW.`account_id` IS NULL OR `webhooks`.`account_id` = NEW.`account_id`)
		AND EXISTS (SELECT 1 FROM json_each(`webhooks`.`types`) AS `wanted`
			WHERE `wanted`.`value` = NEW.`type`
				OR `wanted`.`value` = substr(NEW.`type`, 1, instr(NEW.`type`, '.')) || '*')
) BEGIN
	UPDATE `events` SET `dispatched_at` = NEW.`created_at` WHERE `seq` = NEW.`seq`;
END;
