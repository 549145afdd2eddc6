import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { ApiRequestInit } from "./request.ts";
import { api } from "./request.ts";

export type OrderStatus = "placed" | "completed" | "cancelled";
export type PetStatus = "available" | "pending" | "sold";

export interface OrderBody {
  id: number;
  petId: number;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

const ORDER_KEYS = ["createdAt", "id", "petId", "status", "updatedAt"];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** An Order as the contract promises it: all five keys, nothing else, well-typed. */
export function expectOrder(value: unknown): asserts value is OrderBody {
  expect(value).toBeTypeOf("object");
  const order = value as Record<string, unknown>;
  expect(Object.keys(order).sort()).toEqual(ORDER_KEYS);
  expect(Number.isSafeInteger(order.id) && (order.id as number) >= 1).toBe(true);
  expect(Number.isSafeInteger(order.petId) && (order.petId as number) >= 1).toBe(true);
  expect(["placed", "completed", "cancelled"]).toContain(order.status);
  for (const time of [order.createdAt, order.updatedAt]) {
    expect(time).toMatch(RFC3339_UTC);
    expect(new Date(time as string).toISOString()).toBe(time);
  }
}

/** POST /v1/store/orders for the animal; the caller reads the body. */
export function place(key: string, petId: number, init: ApiRequestInit = {}): Promise<Response> {
  return api("/v1/store/orders", { ...init, method: "POST", key, json: { petId } });
}

/** POST /v1/store/orders/{id}/complete or /cancel. */
export function move(
  key: string,
  orderId: number | string,
  action: "complete" | "cancel",
): Promise<Response> {
  return api(`/v1/store/orders/${orderId}/${action}`, { method: "POST", key });
}

/** Places an order and insists it worked, so arrange steps fail loudly. */
export async function placeOrder(key: string, petId: number): Promise<OrderBody> {
  const res = await place(key, petId);
  const body = (await res.json()) as OrderBody;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The animal's status as stored, read straight from D1. */
export async function storedPetStatus(petId: number): Promise<PetStatus | undefined> {
  const row = await env.DB.prepare("SELECT status FROM pets WHERE id = ?")
    .bind(petId)
    .first<{ status: PetStatus }>();
  return row?.status;
}

export interface StoredOrder {
  id: number;
  accountId: number;
  petId: number;
  status: OrderStatus;
}

/** Every order of these animals as stored, in id order. */
export async function storedOrders(petIds: readonly number[]): Promise<StoredOrder[]> {
  if (petIds.length === 0) return [];
  const { results } = await env.DB.prepare(
    `SELECT id, account_id AS accountId, pet_id AS petId, status FROM orders
     WHERE pet_id IN (${petIds.map(() => "?").join(", ")}) ORDER BY id`,
  )
    .bind(...petIds)
    .all<StoredOrder>();
  return results;
}

/**
 * Fails unless each animal's status matches its orders: a pending animal has
 * exactly one placed order, an available one none, and a sold one none,
 * with exactly one completed order when an order made it sold (`soldByOrder`).
 */
export async function expectAnimalsMatchOrders(
  petIds: readonly number[],
  soldByOrder: ReadonlySet<number> = new Set(petIds),
): Promise<void> {
  const orders = await storedOrders(petIds);
  for (const petId of petIds) {
    const status = await storedPetStatus(petId);
    const mine = orders.filter((order) => order.petId === petId);
    const placed = mine.filter((order) => order.status === "placed").length;
    const completed = mine.filter((order) => order.status === "completed").length;
    const what = `animal ${petId} is ${status} with orders ${JSON.stringify(mine)}`;
    if (status === "pending") expect(placed, what).toBe(1);
    else expect(placed, what).toBe(0);
    if (status === "sold" && soldByOrder.has(petId)) expect(completed, what).toBe(1);
    else expect(completed, what).toBe(0);
  }
}
