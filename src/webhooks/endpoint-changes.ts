import type { Owner } from "../accounts/owner.ts";
import type { Claim, Made, Outcome, Replayed, Reused, Stored } from "../changes/outcomes.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import type { Services } from "../services.ts";
import * as writes from "./endpoint-writes.queries.ts";
import { generateWebhookSecret } from "./webhook-secrets.ts";
import type { CreatedWebhook, Webhook } from "./webhooks.schemas.ts";

/*
 * The one writer of webhook endpoints' state: the API, the dashboard and each
 * endpoint's delivering object change an endpoint through these functions
 * and nothing else. D1 is the system of record, which the object reads
 * before every attempt, so each change is a write there first; what the
 * object keeps of its own (its health, its deliveries) is told after.
 */

/** What registering an endpoint answers, besides an Idempotency-Key's replay or refusal. */
type Registration = Made<CreatedWebhook> | Stored | Replayed | Reused | { kind: "limit_reached" };

/**
 * Where a change of an endpoint comes from: an API request (its key's
 * account, with the claim of its Idempotency-Key if it sent one) or the
 * dashboard (the signed-in account; its forms are made once by
 * Post/Redirect/Get instead).
 */
type ChangeSource =
  | { kind: "key"; apiKeyHash: string; claim: Claim | undefined }
  | { kind: "account"; accountId: number };

const ownerOf = (changer: ChangeSource): Owner =>
  changer.kind === "key"
    ? { kind: "key", apiKeyHash: changer.apiKeyHash }
    : { kind: "account", accountId: changer.accountId };

/** The Idempotency-Key's claim, when the request sent one. */
const claimOf = (changer: ChangeSource) => (changer.kind === "key" ? changer.claim : undefined);

/**
 * Registers an endpoint of the changer's account with a new signing secret,
 * under the account's cap; with an Idempotency-Key, once per key, every
 * retry answered as the first, secret included.
 */
export async function registerWebhook(
  services: Services,
  request: { changer: ChangeSource; url: string; types: EventTypeSelector[]; now: number },
): Promise<Registration> {
  const { changer, url, types, now } = request;
  const endpoint = { owner: ownerOf(changer), url, types, now, secret: generateWebhookSecret() };
  const claim = claimOf(changer);
  if (claim === undefined) {
    const outcome = await writes.insertWebhookUnderCap(services.db, endpoint);
    if (outcome.kind === "limit_reached") return outcome;
    return { kind: "made", body: { ...outcome.webhook, secret: endpoint.secret } };
  }
  return writes.insertWebhookOnce(services.db, endpoint, claim);
}

/**
 * Changes an endpoint's URL, kinds or status (paused or enabled by its
 * owner); when it is enabled again, its object's health starts afresh.
 * Undefined when the owner has no endpoint by that id.
 */
export async function changeWebhook(
  services: Services,
  owner: Owner,
  id: number,
  change: writes.EndpointChange,
): Promise<Webhook | undefined> {
  const webhook = await writes.updateWebhook(services.db, owner, id, change);
  if (webhook && change.enabled === true) await services.webhookEndpoints.enabled(id);
  return webhook;
}

/**
 * The service disables the endpoint, saying why (it answered 410 Gone, or
 * failed for days), unless it is disabled already; its owner enables it again.
 */
export async function disableWebhook(services: Services, id: number, reason: string) {
  await writes.disableWebhook(services.db, id, reason);
}

/**
 * Deletes the endpoint, then its object's deliveries; false when the owner
 * has no endpoint by that id. If the object cannot be told now, its next
 * alarm finds the endpoint gone and forgets it then.
 */
export async function deleteWebhook(services: Services, owner: Owner, id: number) {
  const deleted = await writes.deleteWebhook(services.db, owner, id);
  if (deleted) await services.webhookEndpoints.forget(id).catch(() => undefined);
  return deleted;
}

/**
 * Gives the changer's account's endpoint a new signing secret; the old one
 * keeps signing for 24 hours. With an Idempotency-Key, once per key, every
 * retry answered with the same secret. Undefined when there is no such endpoint.
 */
export async function rotateWebhookSecret(
  services: Services,
  request: { changer: ChangeSource; id: number; now: number },
): Promise<Outcome<CreatedWebhook> | undefined> {
  const { changer, id, now } = request;
  const rotation = { owner: ownerOf(changer), id, secret: generateWebhookSecret(), now };
  return writes.rotateSecret(services.db, rotation, claimOf(changer));
}
