/**
 * How much of a key's budget one grant hands an isolate: about what the key
 * admits in the share's life, never more than half of what any window has
 * left, and none once what is left is down to twice what is already out.
 */

/** The longest a share lives, so a revocation, plan change or ban reaches every isolate within it. */
const SHARE_LIFE_MS = 1_000;

const BUCKET_MS = 100;
/** Ten buckets of 100 ms: the last second. */
const BUCKETS = 10;

/**
 * A key's admissions over about the last second, in memory only (an evicted
 * object starts from none, so its first grants are small): the requests the
 * object admitted and the admissions isolates reported from their shares.
 */
export class RecentRate {
  readonly #counts = new Array<number>(BUCKETS).fill(0);
  readonly #starts = new Array<number>(BUCKETS).fill(-1);

  add(admissions: number, now: number): void {
    const bucket = Math.floor(now / BUCKET_MS);
    const slot = bucket % BUCKETS;
    if (this.#starts[slot] !== bucket) {
      this.#starts[slot] = bucket;
      this.#counts[slot] = 0;
    }
    this.#counts[slot] = (this.#counts[slot] ?? 0) + admissions;
  }

  perSecond(now: number): number {
    const bucket = Math.floor(now / BUCKET_MS);
    let total = 0;
    this.#starts.forEach((start, slot) => {
      if (start > bucket - BUCKETS) total += this.#counts[slot] ?? 0;
    });
    return total;
  }
}

interface ShareInputs {
  /** Admissions per second, recently. */
  perSecond: number;
  /** Every window's requests left and end (Unix ms), with all shares counted. */
  windows: { remaining: number; endsAt: number }[];
  /** Granted share whose life has not ended and that has not been reported. */
  outstanding: number;
  /** Unix ms at which the key stops working, if it does. */
  expiresAt: number | undefined;
  now: number;
}

/**
 * share = clamp(⌊rate × T⌋, 1, ⌊smallest remaining ÷ 2⌋), T = min(1 s, time
 * to the first window's end or the key's); a share of 1 is a decision per
 * request, so none is granted. The life is T: no share outlives its window,
 * whose counts it was taken from.
 */
export function shareSize(inputs: ShareInputs): { size: number; lifeMs: number } | undefined {
  const remaining = Math.min(...inputs.windows.map((window) => window.remaining));
  if (remaining <= 2 * inputs.outstanding) return undefined;
  const lifeMs = Math.min(
    SHARE_LIFE_MS,
    ...inputs.windows.map((window) => window.endsAt - inputs.now),
    (inputs.expiresAt ?? Number.POSITIVE_INFINITY) - inputs.now,
  );
  const size = Math.min(Math.floor((inputs.perSecond * lifeMs) / 1_000), Math.floor(remaining / 2));
  return size > 1 ? { size, lifeMs } : undefined;
}
