import { DurableObject } from "cloudflare:workers";
import type { Limits } from "./plans.ts";
import {
  type Budget,
  type Grant,
  type HitResult,
  isDead,
  type KeyCall,
  type KeyDecision,
  type KeyPolicy,
  type ShareReport,
  type WindowReport,
} from "./rate-limit-types.ts";
import { RecentRate, shareSize } from "./share-size.ts";
import { type HourCount, UsageHistory } from "./usage-history.ts";
import {
  BAN_MEMORY_MS,
  BAN_THRESHOLD,
  type BanState,
  currentWindow,
  HOUR_MS,
  isBanForgotten,
  nextBanDuration,
  secondsUntil,
  WINDOW_LENGTHS,
  type WindowCount,
  type WindowName,
  windowEnd,
  windowStart,
} from "./windows.ts";

/**
 * A key uses its minute and day windows; a throttle one minute or hour
 * window. A key also counts its current hour of usage history here.
 */
type LimiterState = Partial<Record<WindowName, WindowCount>> & {
  ban?: BanState;
  policy?: KeyPolicy;
  usageHour?: HourCount;
  /** Shares granted and not yet reported, by grant id. */
  grants?: Record<string, OutstandingGrant>;
};

/** What a report needs to give a share's unused part back to where it was counted. */
interface OutstandingGrant {
  size: number;
  /** The start of each window it was counted in. */
  starts: Partial<Record<WindowName, number>>;
  /** The hour of usage history it was counted in. */
  hour: number;
  /** When its life ends. */
  until: number;
}

/**
 * Grants kept for their report, oldest dropped first: a live isolate holds
 * one at a time, so more are shares of isolates that went away, which count
 * as used.
 */
const MAX_GRANTS = 32;

const WINDOW_NAMES = Object.keys(WINDOW_LENGTHS) as WindowName[];

interface ActiveWindow {
  name: WindowName;
  length: number;
  limit: number;
  count: WindowCount;
}

const STATE_KEY = "state";

/**
 * One instance per API key (named by the key's hash), per client IP for
 * keyless traffic, or per throttled name (a sign-in's email and address, say).
 * Its state is one small record: the current windows, the ban and the newest
 * key policy seen. A key's object also keeps its usage history, one row per
 * hour for 30 days, so storage per key stays bounded.
 * Every method mutates memory synchronously before persisting, so concurrent
 * requests are counted exactly; the output gate holds replies until the write
 * is durable.
 *
 * A busy key's object also grants isolates shares of its budget (see
 * `decideKey`), counted as spent when granted, so storage is written per
 * grant, report or refusal and never per request an isolate admits alone.
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
   * Counts one request of an API key against its minute and day windows,
   * with the newest policy the caller knows of; a dead key counts nothing.
   */
  hitKey(policy: KeyPolicy, now: number = Date.now()): HitResult {
    const call = { policy, count: 1, reports: [], share: false };
    return this.decideKey(call, now).results[0] as HitResult;
  }

  /**
   * Decides a call of an isolate's limiter client: first gives back what the
   * shares it reports did not use, then counts its `count` requests one by
   * one in order, exactly as that many calls of `hitKey` would (an isolate
   * sends a busy key's concurrent requests together), and, when every one
   * was admitted and the key's rate calls for it, grants a share.
   */
  decideKey(call: KeyCall, now: number = Date.now()): KeyDecision {
    this.#holdingWrites = true;
    try {
      const effective = this.#adoptPolicy(call.policy);
      this.#takeReports(call.reports, now);
      const windows = this.#windows(effective.limits, now);
      if (isDead(effective, now)) {
        const revoked: HitResult = { outcome: "revoked", windows: reports(windows) };
        return { results: Array.from({ length: call.count }, () => revoked) };
      }
      const results = Array.from({ length: call.count }, () => this.#hit(windows, now, true));
      const admittedAll = results.every((result) => result.outcome === "allowed");
      const grant = call.share && admittedAll ? this.#grant(windows, effective, now) : undefined;
      return grant ? { results, grant } : { results };
    } finally {
      this.#holdingWrites = false;
      if (this.#writePending) this.#persist();
    }
  }

  /** Counts one request without a valid key against the caller's per-IP budget. */
  hitKeyless(limits: Pick<Limits, "perMinute">, now: number = Date.now()): HitResult {
    return this.#hit(this.#windows(limits, now), now, false);
  }

  /** Counts one attempt against a throttle's budget (per minute or per hour); never bans. */
  hitBudget(budget: Budget, now: number = Date.now()): HitResult {
    return this.#hit([this.#window(budget.per, budget.limit, now)], now, false);
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
    return reports(this.#windows(limits, now));
  }

  /** The key's admitted requests per UTC hour over the last 30 days, oldest first, after the reported shares. */
  usageHistory(shares: ShareReport[] = [], now: number = Date.now()): HourCount[] {
    this.#takeReports(shares, now);
    return this.#history.hours(now, this.#state.usageHour);
  }

  /** Drops what has gone stale; an object left with nothing (a quiet client IP) is deleted. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#cleanupScheduled = false;
    if (this.#state.usageHour) this.#history.add(this.#state.usageHour);
    this.#state = withoutStale(this.#state, now);
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

  #windows(limits: Pick<Limits, "perMinute"> & Partial<Limits>, now: number): ActiveWindow[] {
    const windows = [this.#window("minute", limits.perMinute, now)];
    if (limits.perDay !== undefined) windows.push(this.#window("day", limits.perDay, now));
    return windows;
  }

  /** The window of this name that contains `now`, started afresh when the stored one has ended. */
  #window(name: WindowName, limit: number, now: number): ActiveWindow {
    const length = WINDOW_LENGTHS[name];
    const count = currentWindow(this.#state[name], now, length);
    this.#state[name] = count;
    return { name, length, limit, count };
  }

  /** Counts or refuses one request; only a key's requests can earn a ban and enter its usage history. */
  #hit(windows: ActiveWindow[], now: number, forKey: boolean): HitResult {
    const ban = this.#state.ban;
    if (ban && ban.until > now) {
      return {
        outcome: "banned",
        windows: reports(windows),
        retryAfter: secondsUntil(ban.until, now),
      };
    }
    const full = windows.filter((window) => window.count.count >= window.limit);
    if (full.length > 0) return this.#refuse(windows, full, now, forKey);
    for (const window of windows) window.count.count += 1;
    if (forKey) {
      this.#countHour(now, 1);
      this.#rate.add(1, now);
    }
    this.#persist();
    return { outcome: "allowed", windows: reports(windows) };
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

  /**
   * A share for the calling isolate, sized by `shareSize`: none while any
   * window has refused a request (the key is being refused; a ban resets
   * those counts, but a banned key is never admitted to get here). Counted
   * in the windows and the hour at once, so a share never reported is used.
   */
  #grant(windows: ActiveWindow[], policy: KeyPolicy, now: number): Grant | undefined {
    if (windows.some((window) => window.count.refused > 0)) return undefined;
    const grants = this.#state.grants ?? {};
    const live = Object.values(grants).filter((grant) => grant.until > now);
    const share = shareSize({
      perSecond: this.#rate.perSecond(now),
      windows: windows.map((window) => ({
        remaining: window.limit - window.count.count,
        endsAt: windowEnd(window.count, window.length),
      })),
      outstanding: live.reduce((sum, grant) => sum + grant.size, 0),
      expiresAt: policy.expiresAt,
      now,
    });
    if (!share) return undefined;
    for (const window of windows) window.count.count += share.size;
    this.#countHour(now, share.size);
    const id = crypto.randomUUID();
    grants[id] = {
      size: share.size,
      starts: Object.fromEntries(windows.map((window) => [window.name, window.count.start])),
      hour: windowStart(now, HOUR_MS),
      until: now + share.lifeMs,
    };
    this.#state.grants = newestGrants(grants);
    this.#persist();
    return {
      id,
      size: share.size,
      lifeMs: share.lifeMs,
      policyVersion: policy.version,
      windows: reports(windows),
    };
  }

  #takeReports(shares: ShareReport[], now: number): void {
    if (shares.length === 0) return;
    const holding = this.#holdingWrites;
    this.#holdingWrites = true;
    for (const report of shares) this.#takeReport(report, now);
    this.#holdingWrites = holding;
    if (!holding && this.#writePending) this.#persist();
  }

  /**
   * Gives a reported share's unused part back to the windows and the hour
   * it was counted in, where they are still running. Each grant is given
   * back once: an isolate repeats a report until a call carrying it returns.
   */
  #takeReport(report: ShareReport, now: number): void {
    const grant = this.#state.grants?.[report.grant];
    if (!grant || !this.#state.grants) return;
    delete this.#state.grants[report.grant];
    const used = Math.min(Math.max(report.used, 0), grant.size);
    this.#rate.add(used, now);
    const unused = grant.size - used;
    if (unused > 0) {
      for (const name of WINDOW_NAMES) {
        const count = this.#state[name];
        if (count && count.start === grant.starts[name]) count.count -= unused;
      }
      if (this.#state.usageHour?.hour === grant.hour) this.#state.usageHour.count -= unused;
      else this.#history.remove({ hour: grant.hour, count: unused });
    }
    this.#persist();
  }

  #refuse(windows: ActiveWindow[], full: ActiveWindow[], now: number, forKey: boolean): HitResult {
    for (const window of full) window.count.refused += 1;
    const reopensAt = Math.max(...full.map((window) => windowEnd(window.count, window.length)));
    if (forKey && full.some((window) => window.count.refused >= BAN_THRESHOLD)) {
      const durationMs = nextBanDuration(this.#state.ban, now);
      this.#state.ban = { until: now + durationMs, durationMs };
      for (const window of windows) window.count.refused = 0;
      this.#persist();
      return {
        outcome: "banned",
        windows: reports(windows),
        retryAfter: secondsUntil(now + durationMs, now),
      };
    }
    this.#persist();
    return {
      outcome: "rate_limited",
      windows: reports(windows),
      retryAfter: secondsUntil(reopensAt, now),
    };
  }

  #persist(): void {
    // A batch's requests change the record one after another; it is written once, after the last.
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

/** When everything but the policy will have gone stale, if anything but the policy is kept. */
function staleAt(state: LimiterState): number | undefined {
  const instants = WINDOW_NAMES.map((name) => {
    const count = state[name];
    return count && windowEnd(count, WINDOW_LENGTHS[name]);
  });
  instants.push(state.ban && state.ban.until + BAN_MEMORY_MS);
  const known = instants.filter((instant) => instant !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
}

/** The state without windows that have ended or a ban too old to double the next one. */
function withoutStale(state: LimiterState, now: number): LimiterState {
  const kept: LimiterState = {};
  if (state.policy) kept.policy = state.policy;
  for (const name of WINDOW_NAMES) {
    const count = state[name];
    if (count && now < windowEnd(count, WINDOW_LENGTHS[name])) kept[name] = count;
  }
  if (state.ban && !isBanForgotten(state.ban, now)) kept.ban = state.ban;
  const grants = Object.entries(state.grants ?? {}).filter(([, grant]) =>
    WINDOW_NAMES.some((name) => kept[name] && kept[name].start === grant.starts[name]),
  );
  if (grants.length > 0) kept.grants = Object.fromEntries(grants);
  return kept;
}

/** At most MAX_GRANTS, the newest (objects keep their keys' insertion order). */
function newestGrants(grants: Record<string, OutstandingGrant>): Record<string, OutstandingGrant> {
  const entries = Object.entries(grants);
  return entries.length > MAX_GRANTS ? Object.fromEntries(entries.slice(-MAX_GRANTS)) : grants;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

function samePolicy(a: KeyPolicy, b: KeyPolicy): boolean {
  return (
    a.version === b.version &&
    a.revoked === b.revoked &&
    a.expiresAt === b.expiresAt &&
    a.limits.perMinute === b.limits.perMinute &&
    a.limits.perDay === b.limits.perDay
  );
}

function reports(windows: ActiveWindow[]): WindowReport[] {
  return windows.map((window) => ({
    name: window.name,
    limit: window.limit,
    remaining: Math.max(0, window.limit - window.count.count),
    reset: Math.ceil(windowEnd(window.count, window.length) / 1000),
    lengthSeconds: window.length / 1000,
  }));
}
