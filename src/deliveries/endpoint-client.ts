import { guardStorage } from "../storage/storage-guard.ts";
import type { Delivery } from "../webhooks/webhooks.schemas.ts";

/** The only way the rest of the Worker reaches an endpoint's Durable Object. */
export interface WebhookEndpointClient {
  /** Hands events, in commit order, to the endpoint's object, which delivers them from then on. */
  accept(webhookId: number, eventIds: readonly string[]): Promise<void>;
  /** A page of deliveries, newest first, below `beforeId`. */
  deliveries(
    webhookId: number,
    page: { beforeId: number | undefined; limit: number },
  ): Promise<{ deliveries: Delivery[]; hasMore: boolean }>;
  sendTest(webhookId: number): Promise<Delivery>;
  retry(webhookId: number, deliveryId: number): Promise<Delivery | undefined>;
  /** Queues again the endpoint's deliveries since `since` that failed or were skipped; how many. */
  recover(webhookId: number, since: number): Promise<number>;
  /** The owner enabled the endpoint again. */
  enabled(webhookId: number): Promise<void>;
  /** The endpoint was deleted. */
  forget(webhookId: number): Promise<void>;
}

/**
 * The object's stub, typed from its binding rather than from its class: the
 * object builds its services (this client among them) through services.ts.
 */
type EndpointStub = ReturnType<Env["WEBHOOK_ENDPOINT"]["get"]>;

/** Calls each endpoint's object by the endpoint's id; a fault is a 503 (see guardStorage). */
export function webhookEndpointClient(namespace: Env["WEBHOOK_ENDPOINT"]): WebhookEndpointClient {
  const call = <T>(webhookId: number, method: (endpoint: EndpointStub) => Promise<T>): Promise<T> =>
    guardStorage("Durable Object", () =>
      method(namespace.get(namespace.idFromName(String(webhookId)))),
    );
  return {
    accept: (webhookId, eventIds) => call(webhookId, (o) => o.accept(webhookId, eventIds)),
    deliveries: (webhookId, page) =>
      call(webhookId, (o) => o.deliveries(page.beforeId, page.limit)),
    sendTest: (webhookId) => call(webhookId, (o) => o.sendTest(webhookId)),
    retry: (webhookId, deliveryId) => call(webhookId, (o) => o.retry(webhookId, deliveryId)),
    recover: (webhookId, since) => call(webhookId, (o) => o.recover(webhookId, since)),
    enabled: (webhookId) => call(webhookId, (o) => o.enabled()),
    forget: (webhookId) => call(webhookId, (o) => o.forget()),
  };
}
