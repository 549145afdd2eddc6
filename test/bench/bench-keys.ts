import { createBenchKey } from "./seed.ts";

/** An account may hold at most this many working keys. */
const KEYS_PER_ACCOUNT = 20;
/** Admin requests in flight: each writes D1, KV and a new Durable Object. */
const PARALLEL = 8;
const PROGRESS_EVERY_MS = 10_000;

/** The account the i-th bench key belongs to: twenty keys each, as the cap allows. */
export const benchAccount = (index: number): string =>
  `bench-${Math.floor(index / KEYS_PER_ACCOUNT)}@petstore.invalid`;

/**
 * Grows `keys` to `count` keys through the API's admin endpoint, as an
 * operator would, a few at a time. Each worker fills one account after
 * another, so no two requests race to create the same account.
 */
export async function makeKeys(
  apiOrigin: string,
  adminToken: string,
  keys: string[],
  count: number,
  log: (message: string) => void,
): Promise<void> {
  const byAccount = new Map<string, number[]>();
  for (let index = keys.length; index < count; index++) {
    const account = benchAccount(index);
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
