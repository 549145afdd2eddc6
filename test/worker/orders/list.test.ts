import { beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { seedKey, seedUnlimitedKey } from "../support/keys.ts";
import { move, type OrderBody, type OrderStatus, placeOrder } from "../support/orders.ts";
import { api, ORIGIN } from "../support/request.ts";

let key: string;
let sameAccountKey: string;
let otherKey: string;
/** Every order this file's account placed, as it stands now, in id order. */
const orders: OrderBody[] = [];
/** Orders of another account, placed in between, which the listing must never show. */
const otherOrders: OrderBody[] = [];

beforeAll(async () => {
  const first = await seedUnlimitedKey();
  key = first.key;
  sameAccountKey = (await seedKey({ account: first.row.account.email })).key;
  otherKey = (await seedKey()).key;
  // 25 orders: statuses interleaved, so a filtered page must skip over the others.
  for (let i = 0; i < 25; i++) {
    const pet = await createPet(key, { name: `Ordered ${i}`, categoryId: 6 });
    let order = await placeOrder(key, pet.id);
    const action = (["complete", "cancel", undefined] as const)[i % 3];
    if (action) order = (await (await move(key, order.id, action)).json()) as OrderBody;
    orders.push(order);
    const theirs = await createPet(otherKey, { name: `Theirs ${i}`, categoryId: 7 });
    otherOrders.push(await placeOrder(otherKey, theirs.id));
  }
});

/** The address in `Link: <…>; rel="next"`, or null on the last page. */
function nextLink(res: Response): string | null {
  const link = res.headers.get("Link");
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  return match?.[1] ?? null;
}

/** Follows rel="next" from the first page to the last, as a client would. */
async function walk(query: string, as = key): Promise<OrderBody[][]> {
  const pages: OrderBody[][] = [];
  let path: string | null = `/v1/store/orders${query}`;
  while (path !== null) {
    const res = await api(path, { key: as });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    pages.push(JSON.parse(text) as OrderBody[]);
    const next = nextLink(res);
    if (next === null) break;
    expect(next.startsWith(`${ORIGIN}/v1/store/orders?`), next).toBe(true);
    path = next.slice(ORIGIN.length);
    expect(pages.length, "runaway paging").toBeLessThan(100);
  }
  return pages;
}

describe("GET /v1/store/orders", () => {
  it("pages through the account's orders in id order, each exactly once", async () => {
    const pages = await walk("?limit=7");
    expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 4]);
    expect(pages.flat()).toEqual(orders);
  });

  it("pages with a status filter, each matching order exactly once", async () => {
    for (const status of ["placed", "completed", "cancelled"] as OrderStatus[]) {
      const expected = orders.filter((order) => order.status === status);
      const pages = await walk(`?limit=3&status=${status}`);
      expect(pages.length, status).toBeGreaterThan(2);
      expect(pages.flat()).toEqual(expected);
    }
  });

  it("keeps limit and status in the next link, and omits it on the last page", async () => {
    const res = await api("/v1/store/orders?status=placed&limit=2&ignored=1", { key });
    await res.json();
    const next = new URL(nextLink(res) ?? "");
    expect(next.pathname).toBe("/v1/store/orders");
    expect(next.searchParams.get("limit")).toBe("2");
    expect(next.searchParams.get("status")).toBe("placed");
    expect(next.searchParams.get("ignored")).toBeNull();
    const all = await api("/v1/store/orders?limit=100", { key });
    expect(((await all.json()) as OrderBody[]).length).toBe(orders.length);
    expect(all.headers.get("Link")).toBeNull();
  });

  it("defaults to 20 a page", async () => {
    const res = await api("/v1/store/orders", { key });
    expect(await res.json()).toEqual(orders.slice(0, 20));
    expect(nextLink(res)).not.toBeNull();
  });

  it("shows every key of the account the same orders, and another account only its own", async () => {
    expect((await walk("?limit=100", sameAccountKey)).flat()).toEqual(orders);
    expect((await walk("?limit=4", otherKey)).flat()).toEqual(otherOrders);
    const fresh = await seedKey();
    const res = await api("/v1/store/orders", { key: fresh.key });
    expect(await res.json()).toEqual([]);
    expect(res.headers.get("Link")).toBeNull();
  });

  it("refuses a bad limit, status or cursor with 400", async () => {
    for (const [query, path] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=2.5", "limit"],
      ["limit=abc", "limit"],
      ["status=pending", "status"],
      ["status=PLACED", "status"],
      ["cursor=nope", "cursor"],
      ["cursor=", "cursor"],
    ]) {
      const res = await api(`/v1/store/orders?${query}`, { key });
      await expectError(res, 400, "invalid_request", { paths: [path ?? ""] });
    }
  });
});

describe("GET /v1/store/orders/{orderId}", () => {
  it("returns one order of the account, to any of its keys", async () => {
    for (const order of [orders[0], orders[1], orders[2]]) {
      for (const as of [key, sameAccountKey]) {
        const res = await api(`/v1/store/orders/${order?.id}`, { key: as });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual(order);
      }
    }
  });

  it("answers 404 for an unknown or malformed identifier", async () => {
    for (const orderId of ["9007199254740991", "abc", "0", "9007199254740992", "1e3", "+1"]) {
      const res = await api(`/v1/store/orders/${orderId}`, { key });
      const body = await expectError(res, 404, "not_found");
      expect(body.message).toBe("This account has no order with this identifier.");
    }
  });
});

describe("another account's order", () => {
  it("is 404 for get, complete and cancel, looks like an unknown one, and does not move", async () => {
    const theirs = otherOrders.find((order) => order.status === "placed");
    if (!theirs) throw new Error("no placed order to try");
    const unknown = await expectError(
      await api("/v1/store/orders/9007199254740991", { key }),
      404,
      "not_found",
    );
    for (const res of [
      await api(`/v1/store/orders/${theirs.id}`, { key }),
      await api(`/v1/store/orders/${theirs.id}/complete`, { method: "POST", key }),
      await api(`/v1/store/orders/${theirs.id}/cancel`, { method: "POST", key }),
    ]) {
      const body = await expectError(res, 404, "not_found");
      expect(body).toEqual(unknown);
    }
    const res = await api(`/v1/store/orders/${theirs.id}`, { key: otherKey });
    expect(await res.json()).toEqual(theirs);
  });
});
