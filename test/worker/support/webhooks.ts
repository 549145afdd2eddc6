import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { ReceivedRequest } from "../../receiver/receiver.ts";
import { api } from "./request.ts";

/** How the test receiver answers a path (see test/receiver/receiver.ts). */
export type Scenario =
  | "ok"
  | "fail"
  | "redirect"
  | "gone"
  | "hang"
  | `flaky-${number}`
  | `slow-${number}`
  | `throttle-${number}`;

export interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  previousStatus?: string;
}

export interface WebhookBody {
  id: number;
  url: string;
  types: string[];
  status: "enabled" | "disabled";
  disabledReason?: string;
  createdAt: string;
  secret?: string;
}

export interface AttemptBody {
  attemptedAt: string;
  responseStatus: number | null;
  error: string | null;
}

export interface DeliveryBody {
  id: number;
  eventId: string;
  status: "pending" | "succeeded" | "failed" | "skipped";
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: AttemptBody[];
}

/** A name no other test uses, for the receiver's log. */
export function uniqueName(label: string): string {
  return `${label}-${crypto.randomUUID()}`;
}

/** The test receiver's address for a scenario and a name. */
export function receiverUrl(scenario: Scenario, name: string): string {
  return `http://127.0.0.1:${env.WEBHOOK_RECEIVER_PORT}/${scenario}/${name}`;
}

/** Where nothing listens: every connection is refused. */
export function refusingUrl(name: string): string {
  return `http://127.0.0.1:${env.WEBHOOK_CLOSED_PORT}/${name}`;
}

/** What the receiver got for this name, in order of arrival. */
export async function received(name: string): Promise<ReceivedRequest[]> {
  const response = await fetch(
    `http://127.0.0.1:${env.WEBHOOK_RECEIVER_PORT}/received/${encodeURIComponent(name)}`,
  );
  return (await response.json()) as ReceivedRequest[];
}

/** Polls until `check` gives a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the receiver has got at least `count` requests for the name, and returns them. */
export function receivedAtLeast(
  name: string,
  count: number,
  timeoutMs?: number,
): Promise<ReceivedRequest[]> {
  return eventually(
    `${count} deliveries to ${name}`,
    async () => {
      const requests = await received(name);
      return requests.length >= count ? requests : undefined;
    },
    timeoutMs,
  );
}

/** Registers an endpoint and insists it worked; the reply holds the secret. */
export async function registerWebhook(
  key: string,
  url: string,
  types: string[] = ["pet.*", "order.*"],
): Promise<Required<WebhookBody>> {
  const response = await api("/v1/webhooks", { method: "POST", key, json: { url, types } });
  const body = (await response.json()) as Required<WebhookBody>;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** Follows `Link: rel="next"` from `path` to the last page and returns every item. */
export async function allPages<T>(path: string, key: string): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined = path;
  while (next) {
    const response = await api(next, { key });
    const page = (await response.json()) as T[];
    expect(response.status, JSON.stringify(page)).toBe(200);
    items.push(...page);
    const link = response.headers.get("Link");
    const url = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
    next = url ? new URL(url).pathname + new URL(url).search : undefined;
  }
  return items;
}

/** Every event the key's account sees (optionally of one type or family), oldest first. */
export function feed(key: string, type?: string): Promise<EventBody[]> {
  const query = type === undefined ? "" : `&type=${encodeURIComponent(type)}`;
  return allPages<EventBody>(`/v1/events?limit=100${query}`, key);
}

/** Every delivery recorded for the endpoint, newest first. */
export function deliveriesOf(key: string, webhookId: number): Promise<DeliveryBody[]> {
  return allPages<DeliveryBody>(`/v1/webhooks/${webhookId}/deliveries?limit=100`, key);
}

/** Waits until the endpoint has `count` deliveries, none pending, and returns them, newest first. */
export function settledDeliveries(
  key: string,
  webhookId: number,
  count: number,
  timeoutMs?: number,
): Promise<DeliveryBody[]> {
  return eventually(
    `${count} settled deliveries for endpoint ${webhookId}`,
    async () => {
      const deliveries = await deliveriesOf(key, webhookId);
      const settled = deliveries.every((delivery) => delivery.status !== "pending");
      return deliveries.length >= count && settled ? deliveries : undefined;
    },
    timeoutMs,
  );
}

/** Changes an endpoint with updateWebhook and insists it worked. */
export async function updateWebhook(
  key: string,
  webhookId: number,
  change: Record<string, unknown>,
): Promise<WebhookBody> {
  const response = await api(`/v1/webhooks/${webhookId}`, { method: "PATCH", key, json: change });
  const body = (await response.json()) as WebhookBody;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Events as stored, for checks that must not depend on the feed's own filters. */
export async function storedEvents(): Promise<
  { seq: number; id: string; type: string; data: string }[]
> {
  const { results } = await env.DB.prepare(
    "SELECT seq, id, type, data FROM events ORDER BY seq",
  ).all<{
    seq: number;
    id: string;
    type: string;
    data: string;
  }>();
  return results;
}
