import { DurableObject } from "cloudflare:workers";
import { hasStoppedWorking } from "../keys/key-state.ts";
import type { Limits } from "./plans.ts";
import type {
  Budget,
  HitResult,
  KeyCall,
  KeyDecision,
  KeyPolicy,
  KeyReport,
  ShareReport,
  WindowReport,
} from "./rate-limit-types.ts";
import { type Grants, grantShare, keptGrants, settleShare } from "./share-grants.ts";
import { RecentRate } from "./share-size.ts";
import { type HourCount, UsageHistory } from "./usage-history.ts";
import {
  type ActiveWindow,
  activeWindow,
  activeWindows,
  countOrRefuse,
  freshWindows,
  refusing,
  reports,
  staleAt,
  type WindowState,
} from "./window-counts.ts";
import { HOUR_MS, MINUTE_MS, windowStart } from "./windows.ts";

/**
 * A key uses its minute and day windows; a throttle one minute or hour
 * window. A key also counts its current hour of usage history here, keeps
 * the shares of its budget it granted until they are reported, and the
 * minute it last admitted a request or granted a share (`lastUse`, Unix ms).
 */
type LimiterState = WindowState & {
  policy?: KeyPolicy;
  usageHour?: HourCount;
  grants?: Grants;
  lastUse?: number;
};

const STATE_KEY = "state";

/**
 * One instance per API key (named by the key's hash), per client IP for
 * keyless traffic, or per throttled name (a sign-in's email and address, say).
 * Its state is one small record: the current windows, the ban, the newest key
 * policy seen and the shares outstanding. A key's object also keeps its usage
 * history, one row per hour for 30 days, so storage per key stays bounded.
 * Every method mutates memory synchronously before persisting, so concurrent
 * requests are counted exactly; the output gate holds replies until the write
 * is durable. The windows and the ban are window-counts.ts; the shares it
 * grants busy keys' isolates, and their reports, share-grants.ts.
 */
export class RateLimiter extends DurableObject<Env> {
  #state: LimiterState = {};
  #cleanupScheduled = false;
  #holdingWrites = false;
  #writePending = false;
  #history: UsageHistory;
  #rate = new RecentRate();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#history = new UsageHistory(ctx.storage.sql);
    // Read synchronously, so waking costs one lookup and no request can run before it.
    this.#state = ctx.storage.kv.get<LimiterState>(STATE_KEY) ?? {};
    // Every write that leaves windows or a ban schedules the clean-up in the
    // same commit, so a record holding them has its alarm; a record holding
    // less may have none, and its next write schedules one.
    this.#cleanupScheduled = staleAt(this.#state) !== undefined;
  }

  /**
   * Decides one request of an API key, with the newest policy its isolate
   * knows of (a dead key counts nothing): first gives back what the shares
   * the isolate reports did not use, then counts the request against the
   * key's minute and day windows and, when it was admitted and the key's
   * rate calls for it, grants the isolate a share. Written once, at the end.
   */
  decideKey(call: KeyCall, now: number = Date.now()): KeyDecision {
    this.#holdingWrites = true;
    try {
      const effective = this.#adoptPolicy(call.policy);
      this.#takeReports(call.reports, now);
      const windows = activeWindows(this.#state, effective.limits, now);
      if (hasStoppedWorking(effective, now))
        return { result: { outcome: "revoked", windows: reports(windows) } };
      const result = this.#hit(windows, now, true);
      const grant =
        call.share && result.outcome === "allowed"
          ? this.#grant(windows, effective, now)
          : undefined;
      return grant ? { result, grant } : { result };
    } finally {
      this.#holdingWrites = false;
      if (this.#writePending) this.#persist();
    }
  }

  /** Counts one request without a valid key against the caller's per-IP budget. */
  hitKeyless(limits: Pick<Limits, "perMinute">, now: number = Date.now()): HitResult {
    return this.#hit(activeWindows(this.#state, limits, now), now, false);
  }

  /** Counts one attempt against a throttle's budget (per minute or per hour); never bans. */
  hitBudget(budget: Budget, now: number = Date.now()): HitResult {
    return this.#hit([activeWindow(this.#state, budget.per, budget.limit, now)], now, false);
  }

  /** Records a newer key policy (a revocation or a plan change) without counting a request. */
  applyPolicy(policy: KeyPolicy): void {
    this.#adoptPolicy(policy);
  }

  /**
   * The current windows without counting anything (the dashboard's usage, a
   * keyless budget's headers), after the reported shares are given back.
   */
  usage(
    limits: Pick<Limits, "perMinute"> & Partial<Limits>,
    shares: ShareReport[] = [],
    now: number = Date.now(),
  ): WindowReport[] {
    this.#takeReports(shares, now);
    return reports(activeWindows(this.#state, limits, now));
  }

  /**
   * All the dashboard shows of a key, in one call, after the reported shares
   * are given back: its windows as they stand (counting nothing), its
   * admitted requests per UTC hour over the last 30 days (oldest first), and
   * its last use (see `lastUse`).
   */
  keyReport(limits: Limits, shares: ShareReport[] = [], now: number = Date.now()): KeyReport {
    this.#takeReports(shares, now);
    const report: KeyReport = {
      windows: reports(activeWindows(this.#state, limits, now)),
      hours: this.#history.hours(now, this.#state.usageHour),
    };
    if (this.#state.lastUse !== undefined) report.lastUse = this.#state.lastUse;
    return report;
  }

  /**
   * The start of the minute in which the key last admitted a request or
   * granted a share (an isolate admits from a share within a second of its
   * grant); undefined for a key never used. Kept in the record every
   * decision writes anyway, so it costs no write of its own.
   */
  lastUse(): number | undefined {
    return this.#state.lastUse;
  }

  /** Drops what has gone stale; an object left with nothing (a quiet client IP) is deleted. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#cleanupScheduled = false;
    if (this.#state.usageHour) this.#history.add(this.#state.usageHour);
    const { policy, grants, lastUse } = this.#state;
    const kept: LimiterState = freshWindows(this.#state, now);
    if (policy) kept.policy = policy;
    if (lastUse !== undefined) kept.lastUse = lastUse;
    const stillCounted = grants && keptGrants(grants, kept);
    if (stillCounted) kept.grants = stillCounted;
    this.#state = kept;
    this.#history.trim(now);
    if (Object.keys(this.#state).length === 0 && this.#history.trimAt() === undefined) {
      await this.ctx.storage.deleteAll();
      this.#history = new UsageHistory(this.ctx.storage.sql);
      return;
    }
    this.ctx.storage.kv.put(STATE_KEY, this.#state);
    this.#scheduleCleanup();
  }

  /**
   * Keeps the newest policy by version, except that the end of a key is
   * terminal: once any policy said the key is revoked, or gave its grace
   * period an end, no other policy (a newer one from a stale copy, a delayed
   * write) makes it work again.
   */
  #adoptPolicy(policy: KeyPolicy): KeyPolicy {
    const known = this.#state.policy;
    const newest = known && known.version >= policy.version ? known : policy;
    const adopted: KeyPolicy = { ...newest, revoked: policy.revoked || (known?.revoked ?? false) };
    const expiresAt = earliest(known?.expiresAt, policy.expiresAt);
    if (expiresAt === undefined) delete adopted.expiresAt;
    else adopted.expiresAt = expiresAt;
    if (!known || !samePolicy(known, adopted)) {
      this.#state.policy = adopted;
      this.#persist();
    }
    return adopted;
  }

  /** Counts or refuses one request; only a key's requests can earn a ban and enter its usage history. */
  #hit(windows: ActiveWindow[], now: number, forKey: boolean): HitResult {
    const { result, changed } = countOrRefuse(this.#state, windows, now, forKey);
    if (forKey && result.outcome === "allowed") {
      this.#countHour(now, 1);
      this.#rate.add(1, now);
      this.#state.lastUse = windowStart(now, MINUTE_MS);
    }
    if (changed) this.#persist();
    return result;
  }

  /** A share for the calling isolate; none while the key is being refused (see share-grants.ts). */
  #grant(windows: ActiveWindow[], policy: KeyPolicy, now: number) {
    if (refusing(windows)) return undefined;
    const grants = this.#state.grants ?? {};
    const grant = grantShare(grants, windows, policy, this.#rate.perSecond(now), now);
    if (!grant) return undefined;
    this.#state.grants = grants;
    this.#countHour(now, grant.size);
    this.#state.lastUse = windowStart(now, MINUTE_MS);
    this.#persist();
    return grant;
  }

  /** Settles the reported shares: their unused part leaves the windows and the hour they were counted in. */
  #takeReports(shares: ShareReport[], now: number): void {
    const grants = this.#state.grants;
    if (!grants) return;
    let settledAny = false;
    for (const report of shares) {
      const settled = settleShare(grants, this.#state, report);
      if (!settled) continue;
      settledAny = true;
      this.#rate.add(settled.used, now);
      if (settled.unused > 0) {
        const hour = this.#state.usageHour;
        if (hour?.hour === settled.hour) hour.count -= settled.unused;
        else this.#history.remove({ hour: settled.hour, count: settled.unused });
      }
    }
    if (settledAny) this.#persist();
  }

  /** Counts admissions of a key in its hour; the hour before goes to its history row. */
  #countHour(now: number, admissions: number): void {
    const hour = windowStart(now, HOUR_MS);
    const counting = this.#state.usageHour;
    if (counting?.hour === hour) {
      counting.count += admissions;
      return;
    }
    if (counting) this.#history.add(counting);
    this.#state.usageHour = { hour, count: admissions };
  }

  #persist(): void {
    // A call changes the record several times (reports, policy, count, grant); it is written once, after the last.
    if (this.#holdingWrites) {
      this.#writePending = true;
      return;
    }
    this.#writePending = false;
    this.ctx.storage.kv.put(STATE_KEY, this.#state);
    if (!this.#cleanupScheduled) this.#scheduleCleanup();
  }

  /**
   * Wakes when the last window and the ban memory have passed, so idle
   * objects shrink to their policy, or earlier when the oldest day of usage
   * history falls out of the 30 days.
   */
  #scheduleCleanup(): void {
    const at = earliest(staleAt(this.#state), this.#history.trimAt());
    if (at === undefined) return;
    this.#cleanupScheduled = true;
    void this.ctx.storage.setAlarm(at);
  }
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/** Scopes and ranges are fixed when a key is made, so they are not compared. */
function samePolicy(a: KeyPolicy, b: KeyPolicy): boolean {
  return (
    a.version === b.version &&
    a.revoked === b.revoked &&
    a.expiresAt === b.expiresAt &&
    a.limits.perMinute === b.limits.perMinute &&
    a.limits.perDay === b.limits.perDay
  );
}
