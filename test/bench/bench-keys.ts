import { createBenchKey } from "./seed.ts";

/** The most working keys an account may hold: Enterprise's cap, the plan the bench's accounts are on. */
const KEYS_PER_ACCOUNT = 50;
/** Keys per account every build takes, one from before the caps by plan (20 an account) too. */
export const KEYS_PER_ACCOUNT_ANY_BUILD = 20;
/** The bench's keys carry limits of their own, so the account's numbers never apply. */
const ACCOUNT_PLAN = { plan: "enterprise", perMinute: 60, perDay: 1_000 };
/** Admin requests in flight: each writes D1, KV and a new Durable Object. */
const PARALLEL = 8;
const PROGRESS_EVERY_MS = 10_000;

/** The account the i-th bench key belongs to, `perAccount` keys each. */
const benchAccount = (index: number, perAccount: number): string =>
  `bench-${Math.floor(index / perAccount)}@petstore.invalid`;

/** Moves the account to Enterprise through the admin endpoint, as `npm run account -- plan` does. */
async function onEnterprise(apiOrigin: string, adminToken: string, account: string): Promise<void> {
  const response = await fetch(`${apiOrigin}/admin/accounts/${encodeURIComponent(account)}/plan`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(ACCOUNT_PLAN),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(
      `moving ${account} to Enterprise got ${response.status}: ${text.slice(0, 300)}`,
    );
  }
}

/**
 * Grows `keys` to `count` keys through the API's admin endpoint, as an
 * operator would, a few at a time. Each worker fills one account after
 * another, so no two requests race to create the same account; an account
 * (made, on Free, by its first key) moves to Enterprise before its second,
 * and takes `perAccount` keys (by default, as many as Enterprise allows).
 */
export async function makeKeys(
  apiOrigin: string,
  adminToken: string,
  keys: string[],
  count: number,
  log: (message: string) => void,
  perAccount = KEYS_PER_ACCOUNT,
): Promise<void> {
  const byAccount = new Map<string, number[]>();
  for (let index = keys.length; index < count; index++) {
    const account = benchAccount(index, perAccount);
    byAccount.set(account, [...(byAccount.get(account) ?? []), index]);
  }
  const pending = [...byAccount.entries()];
  const started = performance.now();
  const first = keys.length;
  let made = 0;
  let reported = started;
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const [account, indices] = next;
      for (const index of indices) {
        keys[index] = await createBenchKey(apiOrigin, adminToken, account);
        if (index % perAccount === 0) await onEnterprise(apiOrigin, adminToken, account);
        made += 1;
        const now = performance.now();
        if (now - reported >= PROGRESS_EVERY_MS) {
          reported = now;
          const perSecond = made / ((now - started) / 1000);
          const left = (count - first - made) / perSecond;
          log(
            `made ${first + made}/${count} keys, ${perSecond.toFixed(0)}/s, about ${left.toFixed(0)} s left`,
          );
        }
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}
