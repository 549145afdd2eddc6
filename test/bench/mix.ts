import { encodeCursor } from "../../src/api/cursor.ts";
import type { PetStatus } from "./pets-table.ts";
import { newPetBody } from "./rows.ts";

export type MixKind = "list" | "create" | "get";

/** What callers do, by share of requests: mostly reading pages, some adding, a few fetching one. */
export const MIX_SHARES: Readonly<Record<MixKind, number>> = { list: 0.7, create: 0.2, get: 0.1 };

const LIMITS = [10, 20, 50, 100] as const;
/** Four in ten listings unfiltered ("any"), two in ten for each status. */
const STATUS_FILTERS: readonly (PetStatus | "any")[] = [
  "any",
  "any",
  "available",
  "pending",
  "sold",
];
/** Share of listings that follow a cursor into the table rather than start at its top. */
const CURSOR_SHARE = 0.5;

export interface MixRequest {
  kind: MixKind;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface MixOptions {
  /** Keys used in turn, one per request; none for a server without auth. */
  keys: readonly string[];
  /** Animals 1 … largestId exist: gets and cursors stay inside them. */
  largestId: number;
  /** Same seed, same sequence: runs and tests are reproducible. */
  seed?: number;
}

/** mulberry32: a small, fast, seedable generator; uniform in [0, 1). */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function kindFor(draw: number): MixKind {
  if (draw < MIX_SHARES.list) return "list";
  return draw < MIX_SHARES.list + MIX_SHARES.create ? "create" : "get";
}

function listPath(random: () => number, largestId: number): string {
  const query = new URLSearchParams({ limit: String(pick(LIMITS, random)) });
  const status = pick(STATUS_FILTERS, random);
  if (status !== "any") query.set("status", status);
  if (random() < CURSOR_SHARE) {
    query.set("cursor", encodeCursor(1 + Math.floor(random() * (largestId - 1))));
  }
  return `/v1/pets?${query}`;
}

/**
 * The realistic mix as an endless sequence of requests: each call returns
 * the next one, its kind drawn by MIX_SHARES, its key the next in turn
 * (round-robin, so with many keys nearly every request uses another key).
 */
export function createMix(options: MixOptions): () => MixRequest {
  const random = randomSource(options.seed ?? 15);
  let sent = 0;
  return () => {
    const n = sent++;
    const key = options.keys.length > 0 ? options.keys[n % options.keys.length] : undefined;
    const auth: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
    const kind = kindFor(random());
    if (kind === "create") {
      return {
        kind,
        method: "POST",
        path: "/v1/pets",
        headers: { ...auth, "Content-Type": "application/json" },
        body: newPetBody(n),
      };
    }
    const path =
      kind === "list"
        ? listPath(random, options.largestId)
        : `/v1/pets/${1 + Math.floor(random() * options.largestId)}`;
    return { kind, method: "GET", path, headers: auth };
  };
}
