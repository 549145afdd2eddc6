import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rollKey } from "../../../src/keys/key-changes.ts";
import { WORKING_KEYS_BY_PLAN } from "../../../src/keys/keys.queries.ts";
import type { Plan } from "../../../src/rate-limit/plans.ts";
import { expectError } from "../support/assertions.ts";
import { uniqueEmail } from "../support/dashboard-browser.ts";
import { testServices } from "../support/keys.ts";
import { setClock } from "../support/limiters.ts";
import { api, type Reply, send } from "../support/request.ts";

const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };
const CONCURRENCY = 40;

afterEach(() => vi.useRealTimers());

function createKey(account: string, json: Record<string, unknown> = {}): Promise<Reply> {
  return send("/admin/keys", { method: "POST", headers: ADMIN, json: { account, ...json } });
}

async function keyOf(account: string, json: Record<string, unknown> = {}) {
  const made = await createKey(account, json);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { key: string; hash: string };
}

async function movePlan(account: string, plan: Plan) {
  const numbers = plan === "enterprise" ? { perMinute: 100, perDay: 1_000 } : {};
  const moved = await send(`/admin/accounts/${encodeURIComponent(account)}/plan`, {
    method: "POST",
    headers: ADMIN,
    json: { plan, ...numbers },
  });
  expect(moved.status).toBe(200);
}

/** An account on the plan, with `keys` working keys made one after another. */
async function accountWith(plan: Plan, keys: number) {
  const account = uniqueEmail(plan);
  const made = [await keyOf(account)];
  await movePlan(account, plan);
  while (made.length < keys) made.push(await keyOf(account));
  return { account, made };
}

/** How many working keys D1 holds for the account. */
async function workingKeys(account: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT count(*) AS n FROM api_keys JOIN accounts ON accounts.id = api_keys.account_id
     WHERE lower(accounts.email) = lower(?) AND revoked_at IS NULL AND grace_ends_at IS NULL
       AND (expires_at IS NULL OR expires_at > ?)`,
  )
    .bind(account, Date.now())
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe(`working keys per plan, exact under ${CONCURRENCY}-way concurrency`, () => {
  it.each(Object.entries(WORKING_KEYS_BY_PLAN) as [Plan, number][])(
    "%s: %i",
    async (plan, cap) => {
      // Enterprise's 50 is more than one burst reaches: it starts 30 keys in.
      const { account } = await accountWith(plan, cap > CONCURRENCY ? cap - 20 : 1);
      const before = await workingKeys(account);
      const replies = await Promise.all(
        Array.from({ length: CONCURRENCY }, () => createKey(account)),
      );
      const made = replies.filter((reply) => reply.status === 201).length;
      expect(made).toBe(cap - before);
      expect(replies.filter((reply) => reply.status === 409)).toHaveLength(CONCURRENCY - made);
      expect(await workingKeys(account)).toBe(cap);
      const refused = replies.find((reply) => reply.status === 409);
      expect(refused?.body).toMatchObject({
        code: "limit_reached",
        message: `This account already has ${cap} working keys, the most it may have; revoke a key first.`,
      });
    },
    60_000,
  );
});

describe("what counts against the cap", () => {
  it("a rolled key in its grace period does not, and a roll at the cap works", async () => {
    const { account, made } = await accountWith("free", WORKING_KEYS_BY_PLAN.free);
    const [first] = made;
    const services = testServices();
    const accountId = (
      await services.db.d1
        .prepare("SELECT account_id AS id FROM api_keys WHERE hash = ?")
        .bind(first?.hash)
        .first<{ id: number }>()
    )?.id;
    const roll = await rollKey(services, accountId ?? 0, first?.hash ?? "");
    expect(roll.ok).toBe(true);
    // Four keys work (the rolled one in its grace), three count.
    expect((await send("/v1/pets?limit=1", { key: first?.key ?? "" })).status).toBe(200);
    expect(await workingKeys(account)).toBe(WORKING_KEYS_BY_PLAN.free);
    await expectError(
      await api("/admin/keys", { method: "POST", headers: ADMIN, json: { account } }),
      409,
      "limit_reached",
    );
  });

  it("an expired key does not: its place is free from its instant on", async () => {
    setClock("2030-06-15T10:00:00Z");
    const account = uniqueEmail("expiring");
    await keyOf(account, { expiresInSeconds: 60 });
    await keyOf(account);
    await keyOf(account);
    expect((await createKey(account)).status).toBe(409);
    vi.setSystemTime(new Date("2030-06-15T10:01:00Z"));
    expect((await createKey(account)).status).toBe(201);
  });

  it("a plan lowered below the count leaves the keys working and refuses new ones until under it", async () => {
    const { account, made } = await accountWith("pro", 5);
    await movePlan(account, "free");
    for (const { key } of made) {
      expect((await send("/v1/pets?limit=1", { key })).status).toBe(200);
    }
    for (const { hash } of made.slice(0, 2)) {
      expect((await createKey(account)).status).toBe(409);
      const revoked = await send(`/admin/keys/${hash}/revoke`, { method: "POST", headers: ADMIN });
      expect(revoked.status).toBe(200);
    }
    // Three left: at the cap, still refused; one more revoked, and there is room.
    expect((await createKey(account)).status).toBe(409);
    await send(`/admin/keys/${made[2]?.hash}/revoke`, { method: "POST", headers: ADMIN });
    expect((await createKey(account)).status).toBe(201);
  });

  it("the environment's operator account is on Enterprise", async () => {
    const made = await send("/admin/keys", { method: "POST", headers: ADMIN, json: {} });
    expect(made.status).toBe(201);
    const listed = await send(
      `/admin/keys?account=${encodeURIComponent(String(made.body.account))}`,
      {
        headers: ADMIN,
      },
    );
    expect(listed.body.account).toMatchObject({ plan: "enterprise" });
  });
});
