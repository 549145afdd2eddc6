import { env } from "cloudflare:test";

/**
 * What property tests run with: the seed, fixed so that two runs try the same
 * cases, and RUNS, how many cases a property that sends requests tries.
 * `SEED=` and `RUNS=` in the shell reach workerd as bindings of the same names
 * (test/vitest.config.ts), so a failure replays with the seed it names.
 * Properties of a pure function, a second for thousands of cases, keep their
 * own counts.
 */
export const seed = wholeNumber("SEED");
export const runs = wholeNumber("RUNS");

function wholeNumber(name: "SEED" | "RUNS"): number {
  const value = Number(env[name]);
  // Without the binding every property would try one case and pass.
  if (!Number.isSafeInteger(value)) throw new Error(`the ${name} binding is not a whole number`);
  return value;
}

console.log(`property tests: SEED=${seed} RUNS=${runs}`);
