import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { createApp } from "../../../src/app.ts";

export const ORIGIN = "https://petstore.test";

/** For tests that send scores of requests: a couple of seconds alone, more beside other files. */
export const MANY_REQUESTS = { timeout: 30_000 };

export interface ApiRequestInit extends RequestInit {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Sent as the JSON body, with its Content-Type. */
  json?: unknown;
  /**
   * Bindings to replace for this request (a store made to fail, say): the
   * request then goes to a fresh app over the real bindings and these.
   */
  bindings?: Partial<Env>;
}

/**
 * The one way tests send a request: through the Worker's real fetch handler,
 * or, with `bindings`, through a fresh app over the real bindings with some
 * replaced (the seam every Hono Worker has for fault injection).
 */
export async function api(path: string, init: ApiRequestInit = {}): Promise<Response> {
  const { key, json, bindings, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== undefined) headers.set("Authorization", `Bearer ${key}`);
  let body = rest.body;
  if (json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(json);
  }
  const request = new Request(`${ORIGIN}${path}`, { ...rest, headers, body });
  if (!bindings) return exports.default.fetch(request);
  const ctx = createExecutionContext();
  const response = await createApp().fetch(request, { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** POSTs `body` as JSON with the key: the request most tests make something with. */
export function postJson(path: string, key: string, body: unknown): Promise<Response> {
  return api(path, { method: "POST", key, json: body });
}

/** Reads the body as JSON, so every test consumes what it receives. */
export async function jsonOf<T = unknown>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: { code?: string } & Record<string, unknown>;
}

/** Sends one request and reads its whole body, so no response is left unconsumed. */
export async function send(path: string, init: ApiRequestInit = {}): Promise<Reply> {
  const response = await api(path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** Sends `count` requests at once and returns the replies in order. */
export function sendAll(count: number, path: string, init: ApiRequestInit = {}): Promise<Reply[]> {
  return Promise.all(Array.from({ length: count }, () => send(path, init)));
}

/** Sends `count` requests one after another. */
export async function sendInTurn(
  count: number,
  path: string,
  init: ApiRequestInit = {},
): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i++) replies.push(await send(path, init));
  return replies;
}

/** How many replies had each status (and each 429 its code), e.g. { 200: 60, rate_limited: 9 }. */
export function tally(replies: Reply[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reply of replies) {
    const label = reply.status === 429 ? String(reply.body.code) : String(reply.status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

export function header(reply: Reply, name: string): string | null {
  return reply.headers.get(name);
}
