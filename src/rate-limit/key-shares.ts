import type { Grant, HitResult, KeyPolicy, ShareReport } from "./rate-limit-types.ts";

interface HeldShare {
  grant: string;
  size: number;
  used: number;
  /** On this isolate's clock: the call's sending plus the share's life, so never later than the object meant. */
  expiresAt: number;
  policyVersion: number;
  /** The windows as the object left them, the whole share counted as spent. */
  windows: Grant["windows"];
}

interface KeyShare {
  held?: HeldShare;
  /** Shares this isolate is done with whose report no call has carried back yet. */
  reports: ShareReport[];
  /** Raised by `forget`: calls sent before it may not leave a share behind. */
  epoch: number;
  /** Calls of the key in flight, and whether one of them may bring a share. */
  calls: number;
  asking: boolean;
}

/** A call to the key's object, begun with `begin` and ended with `finish`. */
interface ShareCall {
  reports: ShareReport[];
  /** Whether the call may ask for a share: it is the only one of the key in flight. */
  share: boolean;
  epoch: number;
  sentAt: number;
}

/** Reports kept per key at most: more means calls keep failing, and a lost report counts as used. */
const MAX_REPORTS = 16;
/** Keys tracked at most; beyond it, keys with nothing in flight or held are forgotten. */
const MAX_KEYS = 10_000;

/**
 * The shares of keys' budgets this isolate holds, and what it owes their
 * objects. A share admits requests without a call until it is spent, ends
 * (at most a second after it was granted, never past its window) or meets a
 * request bringing a newer policy; then it is reported with the next call,
 * which gives its unused part back before that call is decided.
 *
 * A share is asked for only by a call alone in flight for its key, and
 * every other call carries the report of the last one, so the object never
 * refuses a request of an isolate that still holds share it could have used:
 * with one isolate, exactly the limit is admitted.
 */
export class KeyShares {
  readonly #keys = new Map<string, KeyShare>();
  /** Epochs are unique across keys and their entries, so a call outlives its entry harmlessly. */
  #epochs = 0;

  /** An admission from the key's share, or undefined when the share cannot cover this request. */
  take(keyHash: string, policy: KeyPolicy, now: number): HitResult | undefined {
    const key = this.#keys.get(keyHash);
    const held = key?.held;
    if (!key || !held) return undefined;
    if (held.used < held.size && now < held.expiresAt && policy.version <= held.policyVersion) {
      held.used += 1;
      const left = held.size - held.used;
      // What the object had left at this isolate's last contact, minus its admissions since.
      const windows = held.windows.map((window) => ({
        ...window,
        remaining: window.remaining + left,
      }));
      return { outcome: "allowed", windows };
    }
    close(key);
    return undefined;
  }

  /** Whether a call that may bring the key a share is in flight. */
  asking(keyHash: string): boolean {
    return this.#keys.get(keyHash)?.asking ?? false;
  }

  /** Starts a call of the key: it carries the key's reports, and may ask for a share if `mayAsk`. */
  begin(keyHash: string, now: number, mayAsk: boolean): ShareCall {
    const key = this.#key(keyHash);
    const share = mayAsk && key.calls === 0;
    key.calls += 1;
    key.asking ||= share;
    return { reports: [...key.reports], share, epoch: key.epoch, sentAt: now };
  }

  /** Ends a call: if it was answered, its reports were taken and its grant, if any, is held. */
  finish(keyHash: string, call: ShareCall, answered: boolean, grant?: Grant): void {
    const key = this.#key(keyHash);
    const current = call.epoch === key.epoch;
    if (current) {
      key.calls -= 1;
      if (call.share) key.asking = false;
    }
    if (answered) key.reports = key.reports.filter((report) => !call.reports.includes(report));
    if (grant && current) {
      close(key);
      key.held = {
        grant: grant.id,
        size: grant.size,
        used: 0,
        expiresAt: call.sentAt + grant.lifeMs,
        policyVersion: grant.policyVersion,
        windows: grant.windows,
      };
    } else if (grant) {
      // Granted to a call from before a change: given back whole with the next call.
      owe(key, { grant: grant.id, used: 0 });
    }
    if (!key.held && key.reports.length === 0 && key.calls === 0) this.#keys.delete(keyHash);
  }

  /**
   * Drops the key's share at once (a change to the key was made here) and
   * disowns calls in flight, whose shares come back unused.
   */
  forget(keyHash: string): void {
    const key = this.#keys.get(keyHash);
    if (!key) return;
    close(key);
    key.epoch = ++this.#epochs;
    key.calls = 0;
    key.asking = false;
  }

  #key(keyHash: string): KeyShare {
    let key = this.#keys.get(keyHash);
    if (!key) {
      if (this.#keys.size >= MAX_KEYS) this.#sweep();
      key = { reports: [], epoch: ++this.#epochs, calls: 0, asking: false };
      this.#keys.set(keyHash, key);
    }
    return key;
  }

  /** Forgets keys with no call in flight; their shares, unreported, count as used. */
  #sweep(): void {
    for (const [keyHash, key] of this.#keys) if (key.calls === 0) this.#keys.delete(keyHash);
  }
}

/** Stops spending the held share; its report goes with the next call. */
function close(key: KeyShare): void {
  if (!key.held) return;
  owe(key, { grant: key.held.grant, used: key.held.used });
  key.held = undefined;
}

function owe(key: KeyShare, report: ShareReport): void {
  key.reports.push(report);
  if (key.reports.length > MAX_REPORTS) key.reports.shift();
}
