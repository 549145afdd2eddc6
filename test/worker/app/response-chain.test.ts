import { env } from "cloudflare:test";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../../src/api/cursor.ts";
import { contentTag } from "../../../src/api/entity-tags.ts";
import type { AppEnv } from "../../../src/context.ts";
import { responseChain } from "../../../src/middleware/response-chain.ts";
import { createPet, freshIp, RATE_LIMIT_HEADERS, UUID } from "../support/assertions.ts";
import { bookmarkOf } from "../support/consistency.ts";
import { failingD1, failingLimiter } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { type ApiRequestInit, api, postJson } from "../support/request.ts";
import { receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

/*
 * Every reply leaves through one response chain. Each kind of reply the
 * Worker gives, every status included, is sent through it here and held to
 * the same rules: request id, nosniff, Cache-Control, CORS, the limiter's
 * headers where it ran, and ETag or 304 on the reads of the API.
 */

const TAG = /^"[A-Za-z0-9_-]{22}"$/;
/** A D1 bookmark, as local D1 writes them. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
/** The tag of one animal or category: its version, which its `etag` gives too. */
const RECORD_TAG = /^"[1-9][0-9]*"$/;
/** Every response header the API documents: what a page may read. */
const EXPOSED = [
  "Link",
  "Location",
  "ETag",
  "Allow",
  "Retry-After",
  "WWW-Authenticate",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit",
  "RateLimit-Policy",
  "Deprecation",
  "Sunset",
  "X-Request-Id",
  "Consistency-Token",
  "Idempotent-Replayed",
];
const ALLOWED_REQUEST_HEADERS =
  "Authorization,Content-Type,Idempotency-Key,If-Match,If-None-Match,Consistency-Token";
const PAGE = "https://elsewhere.test";
/** Every header hono/secure-headers can send. */
const SECURE_HEADERS = [
  "Content-Security-Policy-Report-Only",
  "Cross-Origin-Embedder-Policy",
  "Cross-Origin-Opener-Policy",
  "Cross-Origin-Resource-Policy",
  "Origin-Agent-Cluster",
  "Permissions-Policy",
  "Referrer-Policy",
  "Report-To",
  "Reporting-Endpoints",
  "Strict-Transport-Security",
  "X-Content-Type-Options",
  "X-DNS-Prefetch-Control",
  "X-Download-Options",
  "X-Frame-Options",
  "X-Permitted-Cross-Domain-Policies",
  "X-XSS-Protection",
];

const logs = captureLogs();

let key: string;
let otherKey: string;
/** The accounts of `key` and `otherKey`, whose tokens their replies carry. */
let accounts: number[];
let petId: number;
let soldPetId: number;
let webhookId: number;

beforeAll(async () => {
  const [own, other] = [await seedKey(), await seedKey()];
  ({ key } = own);
  ({ key: otherKey } = other);
  accounts = [own.record.accountId, other.record.accountId];
  petId = (await createPet(key, { name: "Headers", categoryId: 2 })).id;
  soldPetId = (await createPet(key, { name: "Sold", categoryId: 2, status: "sold" })).id;
  await createPet(key, { name: "Second", categoryId: 2 });
  webhookId = (await registerWebhook(key, receiverUrl("ok", uniqueName("chain")), ["order.*"])).id;
});

type Request = [string, ApiRequestInit];

interface Case {
  name: string;
  /** Made when the test runs; some first set the stage (spend a budget, register an endpoint). */
  request: () => Request | Promise<Request>;
  status: number;
  /** Whether the limiter answered, so its headers are on the reply. */
  limited: boolean;
  body: "json" | "html" | "none";
  /** Whether the reply carries one animal, whose `etag` is its ETag. */
  record?: true;
  /** Whether the request reached D1, so the reply carries its bookmark as Consistency-Token. */
  d1?: true;
}

const json = { "Content-Type": "application/json" };
const post = (body: string, headers: Record<string, string> = json) =>
  ({ method: "POST", key, body, headers }) satisfies ApiRequestInit;

/** The request again, with If-None-Match naming the tag its first reply carried. */
async function revalidation([path, init]: Request): Promise<Request> {
  const first = await api(path, init);
  await first.arrayBuffer();
  const tag = first.headers.get("ETag") ?? "";
  return [
    path,
    {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init.headers)), "If-None-Match": tag },
    },
  ];
}

/** An order whose animal was changed outside the API: moving it is a defect's 500. */
async function brokenOrder(): Promise<Request> {
  const animal = (await createPet(key, { name: "Broken", categoryId: 2 })).id;
  const placed = await postJson("/v1/store/orders", key, { petId: animal });
  const { id } = (await placed.json()) as { id: number };
  await env.DB.prepare("UPDATE pets SET status = 'available' WHERE id = ?").bind(animal).run();
  return [`/v1/store/orders/${id}/complete`, { method: "POST", key }];
}

/** A key whose only request is spent: its day holds one, so no new minute reopens it mid-test. */
async function spentKey(): Promise<Request> {
  const tiny = (await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 1 } })).key;
  await (await api("/v1/pets?limit=1", { key: tiny })).arrayBuffer();
  return ["/v1/pets?limit=1", { key: tiny }];
}

/** An Idempotency-Key already used with another body. */
async function reusedIdempotencyKey(): Promise<Request> {
  const headers = { ...json, "Idempotency-Key": crypto.randomUUID() };
  const first = await api("/v1/pets", post(JSON.stringify({ name: "A", categoryId: 1 }), headers));
  await first.arrayBuffer();
  return ["/v1/pets", post(JSON.stringify({ name: "B", categoryId: 1 }), headers)];
}

/** An endpoint registered for the occasion, to be deleted. */
async function freshWebhook(): Promise<Request> {
  const { id } = await registerWebhook(key, receiverUrl("ok", uniqueName("chain")), ["order.*"]);
  return [`/v1/webhooks/${id}`, { method: "DELETE", key }];
}

const preflight = (method: string) => ({
  method: "OPTIONS",
  headers: { Origin: PAGE, "Access-Control-Request-Method": method },
});
const invalidConfig = { LOG_LEVEL: "verbose" };
const failedLimiter = { RATE_LIMITER: failingLimiter() };
const removed = {
  GET_PET_DEPRECATED_AT: "2020-01-01T00:00:00Z",
  GET_PET_SUNSET_AT: "2021-01-01T00:00:00Z",
};

/** A kind of reply: the limiter answered it and it has a JSON body, unless `traits` say otherwise. */
function kind(
  name: string,
  status: number,
  request: Case["request"],
  traits: Partial<Pick<Case, "limited" | "body" | "record" | "d1">> = {},
): Case {
  return { name, status, request, limited: true, body: "json", ...traits };
}

const unlimited = { limited: false };
const noBody = { body: "none" } as const;
const d1 = { d1: true } as const;
const record = { record: true, ...d1 } as const;
const patch = (json: unknown, headers: Record<string, string> = {}) =>
  ({ method: "PATCH", key, json, headers }) satisfies ApiRequestInit;

/** One request of every kind of reply, /v1 or not, success or error. */
const REPLIES: Case[] = [
  kind("health", 200, () => ["/health", {}], unlimited),
  kind("unknown route", 404, () => ["/nope", {}], unlimited),
  kind("405 on /health", 405, () => ["/health", { method: "POST" }], unlimited),
  kind("front page", 200, () => ["/", {}], { limited: false, body: "html" }),
  kind("reference", 200, () => ["/docs", {}], { limited: false, body: "html" }),
  kind("dashboard", 200, () => ["/dashboard/sign-in", {}], { limited: false, body: "html" }),
  kind("operator without a token", 401, () => ["/admin/keys", {}], unlimited),
  kind("list", 200, () => ["/v1/pets?limit=2", { key }], d1),
  kind("list, HEAD", 200, () => ["/v1/pets?limit=2", { method: "HEAD", key }], {
    ...noBody,
    ...d1,
  }),
  kind("get", 200, () => [`/v1/pets/${petId}`, { key }], record),
  kind("document", 200, () => ["/v1/openapi.json", {}]),
  kind("list revalidated", 304, () => revalidation(["/v1/pets?limit=1", { key }]), {
    ...noBody,
    ...d1,
  }),
  kind("get revalidated", 304, () => revalidation([`/v1/pets/${petId}`, { key }]), {
    ...noBody,
    ...record,
  }),
  kind("document revalidated", 304, () => revalidation(["/v1/openapi.json", {}]), noBody),
  kind("document at the root", 200, () => ["/openapi.json", {}]),
  kind("document at the root revalidated", 304, () => revalidation(["/openapi.json", {}]), noBody),
  kind(
    "create",
    201,
    () => ["/v1/pets", { method: "POST", key, json: { name: "H", categoryId: 3 } }],
    record,
  ),
  kind("update", 200, () => [`/v1/pets/${petId}`, patch({ status: "available" })], record),
  kind("test delivery", 202, () => [`/v1/webhooks/${webhookId}/test`, { method: "POST", key }], d1),
  kind("delete", 204, freshWebhook, { ...noBody, ...d1 }),
  kind("preflight", 204, () => ["/v1/pets", preflight("POST")], { limited: false, body: "none" }),
  kind("validation error", 400, () => ["/v1/pets?limit=abc", { key }]),
  kind("malformed JSON", 400, () => ["/v1/pets", post("{")]),
  kind("no key", 401, () => ["/v1/pets", { headers: { "CF-Connecting-IP": freshIp() } }]),
  kind(
    "not the owner",
    403,
    () => [`/v1/pets/${petId}`, { ...patch({ name: "Mine now" }), key: otherKey }],
    d1,
  ),
  kind("unknown animal", 404, () => ["/v1/pets/999999", { key }], d1),
  kind("unknown /v1 route", 404, () => ["/v1/nope", { key }]),
  kind("bare /v1", 404, () => ["/v1", { key }]),
  kind("preflight to an unknown path", 404, () => ["/v1/nope", preflight("GET")], unlimited),
  kind("405 on /v1", 405, () => ["/v1/pets", { method: "DELETE", key }]),
  kind("OPTIONS that is no preflight", 405, () => ["/v1/pets", { method: "OPTIONS" }], unlimited),
  kind(
    "animal not available",
    409,
    () => ["/v1/store/orders", { method: "POST", key, json: { petId: soldPetId } }],
    d1,
  ),
  kind("after the sunset", 410, () => [`/v1/pets/${petId}`, { key, bindings: removed }]),
  kind(
    "stale If-Match",
    412,
    () => [`/v1/pets/${petId}`, patch({ name: "Headers" }, { "If-Match": '"999999"' })],
    d1,
  ),
  kind("413", 413, () => ["/v1/pets", post("x".repeat(70_000))]),
  kind("415", 415, () => ["/v1/pets", post("{}", { "Content-Type": "text/plain" })]),
  kind("Idempotency-Key reused", 422, reusedIdempotencyKey, d1),
  kind("unknown category", 422, () => [`/v1/pets/${petId}`, patch({ categoryId: 999_999 })], d1),
  kind("over the limit", 429, spentKey),
  kind("a defect", 500, brokenOrder, d1),
  kind(
    "a configuration not valid",
    500,
    () => ["/v1/pets", { key, bindings: invalidConfig }],
    unlimited,
  ),
  kind("D1 failing", 503, () => ["/v1/pets", { key, bindings: { DB: failingD1() } }]),
  kind("limiter failing", 503, () => ["/v1/pets", { key, bindings: failedLimiter }], unlimited),
];

async function send(request: Request | Promise<Request>): Promise<Response> {
  const [path, init] = await request;
  const res = await api(path, init);
  await res.arrayBuffer();
  return res;
}

/** The API's rules apply under /v1 and to the document at the root. */
function isApi(path: string): boolean {
  return (
    path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?") || path === "/openapi.json"
  );
}

const isRead = (init: ApiRequestInit) => init.method === undefined || init.method === "HEAD";

function expectedCacheControl([path, init]: Request, status: number): string | null {
  if (isApi(path))
    return isRead(init) && (status === 200 || status === 304) ? "private, no-cache" : "no-store";
  if (path.startsWith("/admin/") || path.startsWith("/dashboard/")) return "no-store";
  return null;
}

describe("headers on every reply", () => {
  it.each(REPLIES)(
    "$name: a fresh UUID request id when no cf-ray came",
    async ({ request, status }) => {
      const first = await send(request());
      const second = await send(request());
      expect(first.status).toBe(status);
      const ids = [first, second].map((res) => res.headers.get("X-Request-Id") ?? "");
      for (const id of ids) expect(id).toMatch(UUID);
      expect(ids[0]).not.toBe(ids[1]);
    },
  );

  it.each(REPLIES)(
    "$name: echoes the incoming cf-ray as X-Request-Id",
    async ({ request, status }) => {
      const [path, init] = await request();
      const ray = `8f${crypto.randomUUID().slice(0, 14).replace("-", "")}-AMS`;
      const headers = new Headers(init.headers);
      headers.set("cf-ray", ray);
      const res = await send([path, { ...init, headers }]);
      expect(res.status).toBe(status);
      expect(res.headers.get("X-Request-Id")).toBe(ray);
    },
  );

  it.each(REPLIES)("$name: X-Content-Type-Options: nosniff", async ({ request, status }) => {
    const res = await send(request());
    expect(res.status).toBe(status);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it.each(REPLIES)(
    "$name: nosniff and no other header secure-headers can send, but a page's framing and referrer rules; no id the client picked",
    async ({ request, status }) => {
      const [path, init] = await request();
      const headers = new Headers(init.headers);
      headers.set("X-Request-Id", "picked-by-the-client");
      const res = await send([path, { ...init, headers }]);
      expect(res.status).toBe(status);
      expect(res.headers.get("X-Request-Id")).toMatch(UUID);
      const sent = SECURE_HEADERS.flatMap((name) => {
        const value = res.headers.get(name);
        return value === null ? [] : [[name, value]];
      });
      const page = path.startsWith("/dashboard/")
        ? { "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY" }
        : {};
      expect(Object.fromEntries(sent)).toEqual({ "X-Content-Type-Options": "nosniff", ...page });
    },
  );

  it.each(REPLIES)(
    "$name: Cache-Control: private, no-cache on a read's 200 or 304 under the API, else no-store there and on /admin",
    async ({ request, status }) => {
      const sent = await request();
      const res = await send(sent);
      expect(res.status).toBe(status);
      expect(res.headers.get("Cache-Control")).toBe(expectedCacheControl(sent, status));
    },
  );

  it.each(REPLIES)(
    "$name: CORS under the API only, on every status",
    async ({ request, status }) => {
      const [path, init] = await request();
      const res = await send([path, init]);
      expect(res.status).toBe(status);
      const api = isApi(path);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(api ? "*" : null);
      const exposed = res.headers.get("Access-Control-Expose-Headers");
      expect(exposed?.split(", ") ?? null).toEqual(api ? EXPOSED : null);
    },
  );

  it.each(REPLIES)(
    "$name: the limiter's headers where it answered",
    async ({ request, status, limited }) => {
      const res = await send(request());
      expect(res.status).toBe(status);
      for (const name of RATE_LIMIT_HEADERS) {
        if (limited) expect(res.headers.get(name), name).toBeTruthy();
        else expect(res.headers.get(name), name).toBeNull();
      }
    },
  );

  it.each(REPLIES)(
    "$name: an ETag on a read's 200 or 304 under the API and on a reply of one animal (its etag), and nothing else",
    async ({ request, status, body, record }) => {
      const [path, init] = await request();
      const res = await api(path, init);
      const text = await res.text();
      expect(res.status).toBe(status);
      const tagged = isApi(path) && isRead(init) && (status === 200 || status === 304);
      if (record) expect(res.headers.get("ETag")).toMatch(RECORD_TAG);
      else if (tagged) expect(res.headers.get("ETag")).toMatch(TAG);
      else expect(res.headers.get("ETag")).toBeNull();
      if (record && status !== 304) {
        expect(res.headers.get("ETag")).toBe((JSON.parse(text) as { etag: string }).etag);
      }
      if (status === 304) {
        expect(text).toBe("");
        expect(res.headers.get("Content-Type")).toBeNull();
        expect(res.headers.get("Content-Length")).toBeNull();
      }
      if (body === "none") expect(text).toBe("");
    },
  );

  it.each(REPLIES)(
    "$name: Consistency-Token, a token that carries a bookmark, where the request reached D1, and nowhere else",
    async ({ request, status, d1 }) => {
      const res = await send(request());
      expect(res.status).toBe(status);
      const token = res.headers.get("Consistency-Token");
      if (d1) {
        const bookmarks = await Promise.all(accounts.map((id) => bookmarkOf(token ?? "", id)));
        expect(bookmarks.find((bookmark) => bookmark !== undefined)).toMatch(BOOKMARK);
      } else expect(token).toBeNull();
    },
  );

  it("answers with JSON on every route that sends a body", async () => {
    for (const { request } of REPLIES.filter(({ body }) => body === "json")) {
      const [path, init] = await request();
      const res = await api(path, init);
      expect(res.headers.get("Content-Type"), path).toMatch(/^application\/json\b/);
      await res.json();
    }
  });

  it("logs one line per request, a defect's 500 as an error", async () => {
    await send(brokenOrder());
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ level: "error", message: "request", status: 500 }),
    );
  });

  it("names the request in its log line by the id it answered with: the cf-ray, else its UUID", async () => {
    const ray = "8f1a2b3c4d5e6f70-AMS";
    const [path, init] = await brokenOrder();
    const echoed = await send([path, { ...init, headers: { "cf-ray": ray } }]);
    const fresh = await send(brokenOrder());
    expect(echoed.headers.get("X-Request-Id")).toBe(ray);
    const requestIds = logs.lines.flatMap((line) =>
      line.message === "request" ? [line.requestId] : [],
    );
    expect(requestIds).toEqual([ray, fresh.headers.get("X-Request-Id")]);
  });
});

/** Sends the request and reads the reply whole. */
async function reply(
  path: string,
  init: ApiRequestInit = {},
): Promise<{ res: Response; text: string }> {
  const res = await api(path, init);
  return { res, text: await res.text() };
}

const remaining = (res: Response) => Number(res.headers.get("X-RateLimit-Remaining"));

/** Headers a 304 may differ in from its 200: the request's own id, the budget it spent, its bookmark. */
const PER_REQUEST = [
  "x-request-id",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "ratelimit",
  "consistency-token",
];

describe("conditional reads", () => {
  it.each<[string, () => Request]>([
    ["a page with a next page", () => ["/v1/pets?limit=1", { key }]],
    ["a deprecated operation", () => [`/v1/pets/${petId}`, { key }]],
    ["the document", () => ["/v1/openapi.json", {}]],
  ])(
    "%s: a 304 carries every header of the 200 but Content-Type and Content-Length",
    async (_, request) => {
      const [path, init] = request();
      const ok = await reply(path, init);
      expect(ok.res.status).toBe(200);
      const tag = ok.res.headers.get("ETag") ?? "";
      const again = await reply(path, { ...init, headers: { "If-None-Match": tag } });
      expect(again.res.status).toBe(304);
      expect(again.text).toBe("");
      const names = (res: Response) => [...res.headers.keys()].sort();
      const body = ["content-type", "content-length"];
      expect(names(again.res)).toEqual(names(ok.res).filter((name) => !body.includes(name)));
      for (const name of names(again.res).filter((name) => !PER_REQUEST.includes(name))) {
        expect(again.res.headers.get(name), name).toBe(ok.res.headers.get(name));
      }
    },
  );

  it("tags a listing's body and Link together: a page that gains a next page has another tag", async () => {
    const first = await createPet(key, { name: "Alone", categoryId: 4, status: "pending" });
    const page = `/v1/pets?limit=1&status=pending&cursor=${encodeCursor(first.id - 1)}`;
    const before = await reply(page, { key });
    expect(before.res.headers.get("Link")).toBeNull();
    await createPet(key, { name: "Next", categoryId: 4, status: "pending" });
    const after = await reply(page, {
      key,
      headers: { "If-None-Match": before.res.headers.get("ETag") ?? "" },
    });
    expect(after.res.status).toBe(200);
    expect(after.text).toBe(before.text);
    expect(after.res.headers.get("Link")).toMatch(/rel="next"/);
    expect(after.res.headers.get("ETag")).toMatch(TAG);
    expect(after.res.headers.get("ETag")).not.toBe(before.res.headers.get("ETag"));
  });

  it("tags a page its handler tagged as the chain tags any other read: its Link and body's bytes", async () => {
    const pet = await createPet(key, { name: "Paged", categoryId: 4 });
    const paths = ["/v1/pets?limit=1", "/v1/categories?limit=1", "/v1/events?limit=1"];
    for (const path of [...paths, `/v1/pets/${pet.id}/photos`]) {
      const { res, text } = await reply(path, { key });
      const bytes = await new Response(text).arrayBuffer();
      expect(res.headers.get("ETag"), path).toBe(await contentTag(bytes, res.headers.get("Link")));
      expect(res.headers.get("Content-Type"), path).toBe("application/json");
      expect(Array.isArray(JSON.parse(text)), path).toBe(true);
    }
  });

  it("gives an animal changed another tag", async () => {
    const path = `/v1/pets/${petId}`;
    const before = await reply(path, { key });
    expect((await reply(path, patch({ name: "Renamed" }))).res.status).toBe(200);
    const after = await reply(path, {
      key,
      headers: { "If-None-Match": before.res.headers.get("ETag") ?? "" },
    });
    expect((await reply(path, patch({ name: "Headers" }))).res.status).toBe(200);
    expect(after.res.status).toBe(200);
    expect(JSON.parse(after.text)).toMatchObject({ name: "Renamed" });
    expect(after.res.headers.get("ETag")).not.toBe(before.res.headers.get("ETag"));
  });

  it("compares If-None-Match weakly, as a list, and takes * for any current reply", async () => {
    const path = "/v1/pets?limit=2";
    const tag = (await reply(path, { key })).res.headers.get("ETag") ?? "";
    for (const named of [
      tag,
      `W/${tag}`,
      `"other", ${tag}`,
      `W/"other",W/${tag}`,
      ` ${tag} `,
      "*",
    ]) {
      const { res, text } = await reply(path, { key, headers: { "If-None-Match": named } });
      expect(res.status, named).toBe(304);
      expect(text).toBe("");
    }
    for (const other of ['"other"', 'W/"other"', tag.slice(1, -1), `${tag.slice(0, -2)}x"`]) {
      const { res } = await reply(path, { key, headers: { "If-None-Match": other } });
      expect(res.status, other).toBe(200);
      expect(res.headers.get("ETag")).toBe(tag);
    }
  });

  it("answers HEAD as GET: the same tag, and 304 when it is named", async () => {
    const path = "/v1/pets?limit=2";
    const get = await reply(path, { key });
    const head = await reply(path, { method: "HEAD", key });
    expect(head.res.status).toBe(200);
    expect(head.res.headers.get("ETag")).toBe(get.res.headers.get("ETag"));
    const again = await reply(path, {
      method: "HEAD",
      key,
      headers: { "If-None-Match": get.res.headers.get("ETag") ?? "" },
    });
    expect(again.res.status).toBe(304);
  });

  it("counts a 304 against the rate limit like any request", async () => {
    const own = (await seedKey()).key;
    const ok = await reply("/v1/pets?limit=1", { key: own });
    const tag = ok.res.headers.get("ETag") ?? "";
    const first = await reply("/v1/pets?limit=1", { key: own, headers: { "If-None-Match": tag } });
    const second = await reply("/v1/pets?limit=1", { key: own, headers: { "If-None-Match": tag } });
    expect([first.res.status, second.res.status]).toEqual([304, 304]);
    expect([
      remaining(ok.res) - remaining(first.res),
      remaining(first.res) - remaining(second.res),
    ]).toEqual([1, 1]);
  });

  it("answers only a read's 200: an error stays an error, a write ignores If-None-Match", async () => {
    const missing = await reply("/v1/pets/999999", { key, headers: { "If-None-Match": "*" } });
    expect(missing.res.status).toBe(404);
    const created = await reply("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Written", categoryId: 5 },
      headers: { "If-None-Match": "*" },
    });
    expect(created.res.status).toBe(201);
    // Its tag is the animal's own, not one the chain made of the reply.
    expect(created.res.headers.get("ETag")).toBe(
      (JSON.parse(created.text) as { etag: string }).etag,
    );
  });

  it("keeps a tag the reply set itself", async () => {
    const app = new Hono<AppEnv>();
    app.use(responseChain(app));
    app.get("/v1/own", (c) => c.json({ version: 7 }, 200, { ETag: 'W/"v7"' }));
    const ok = await app.request("/v1/own", {}, env);
    expect(await ok.json()).toEqual({ version: 7 });
    expect(ok.headers.get("ETag")).toBe('W/"v7"');
    const again = await app.request("/v1/own", { headers: { "If-None-Match": '"v7"' } }, env);
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe('W/"v7"');
    expect(await again.text()).toBe("");
  });
});

describe("CORS preflights", () => {
  it.each<[string, string, string[]]>([
    ["/v1/pets", "POST", ["GET", "HEAD", "POST"]],
    ["/v1/pets/1", "GET", ["DELETE", "GET", "HEAD", "PATCH"]],
    ["/v1/categories/1", "PATCH", ["DELETE", "GET", "HEAD", "PATCH"]],
    ["/v1/store/orders/1/complete", "POST", ["POST"]],
    ["/v1/webhooks/1", "PATCH", ["DELETE", "GET", "HEAD", "PATCH"]],
    ["/v1/openapi.json", "GET", ["GET", "HEAD"]],
  ])(
    "%s: 204 allowing exactly its methods and the headers the API reads, for a day",
    async (path, method, methods) => {
      const { res, text } = await reply(path, preflight(method));
      expect(res.status).toBe(204);
      expect(text).toBe("");
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.headers.get("Access-Control-Allow-Methods")?.split(",").sort()).toEqual(methods);
      expect(res.headers.get("Access-Control-Allow-Headers")).toBe(ALLOWED_REQUEST_HEADERS);
      expect(res.headers.get("Access-Control-Max-Age")).toBe("86400");
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
      expect(res.headers.get("Cache-Control")).toBe("no-store");
    },
  );

  it("needs no key and spends neither the key's budget nor the address's", async () => {
    const own = (await seedKey()).key;
    const ip = freshIp();
    const budgets = async () => {
      const keyed = await reply("/v1/pets?limit=1", { key: own });
      // The document reports the address's budget without spending it.
      const keyless = await reply("/v1/openapi.json", { headers: { "CF-Connecting-IP": ip } });
      return [remaining(keyed.res), remaining(keyless.res)];
    };
    const before = await budgets();
    for (let i = 0; i < 5; i++) {
      const headers = {
        ...preflight("GET").headers,
        Authorization: `Bearer ${own}`,
        "CF-Connecting-IP": ip,
      };
      expect((await reply("/v1/pets", { method: "OPTIONS", headers })).res.status).toBe(204);
      const bad = { ...headers, Authorization: "Bearer ps_test_unknown" };
      expect((await reply("/v1/pets", { method: "OPTIONS", headers: bad })).res.status).toBe(204);
    }
    const after = await budgets();
    // The keyed listing itself spends one of the key's; nothing else moved.
    expect(after).toEqual([(before[0] ?? 0) - 1, before[1]]);
    expect(before[1]).toBe(60);
  });

  it("answers an OPTIONS without Access-Control-Request-Method with 405 and Allow, with a key or without", async () => {
    for (const init of [{ key }, {}]) {
      const { res } = await reply("/v1/pets/1", {
        method: "OPTIONS",
        ...init,
        headers: { Origin: PAGE, "CF-Connecting-IP": freshIp() },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD, PATCH, DELETE");
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.headers.get("Access-Control-Allow-Methods")).toBeNull();
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
    }
  });

  it("answers a preflight or any OPTIONS to an unknown path with 404", async () => {
    for (const path of ["/v1/nope", "/v1", "/v1/pets/1/nothing", "/openapi.json/x"]) {
      const { res } = await reply(path, preflight("GET"));
      expect(res.status, path).toBe(404);
      expect(res.headers.get("Access-Control-Allow-Methods")).toBeNull();
    }
    expect((await reply("/v1/nope", { method: "OPTIONS", key })).res.status).toBe(404);
    expect((await reply("/v1/nope", { method: "OPTIONS" })).res.status).toBe(404);
  });

  it.each(["/health", "/docs", "/dashboard/sign-in", "/admin/keys", "/nope"])(
    "%s: no CORS, preflight or not",
    async (path) => {
      for (const init of [{}, preflight("GET")]) {
        const { res } = await reply(path, init);
        expect(res.status, path).not.toBe(204);
        expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
        expect(res.headers.get("Access-Control-Allow-Methods")).toBeNull();
      }
    },
  );
});
