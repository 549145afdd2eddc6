/** Where a delivery stands; the endpoint's Durable Object keeps it, listDeliveries shows it. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "skipped"] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
