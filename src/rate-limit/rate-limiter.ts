import { DurableObject } from "cloudflare:workers";
import type { Limits } from "./plans.ts";
import { type HitResult, isDead, type KeyPolicy, type WindowReport } from "./rate-limit-types.ts";
import {
  BAN_MEMORY_MS,
  BAN_THRESHOLD,
  type BanState,
  currentWindow,
  DAY_MS,
  isBanForgotten,
  MINUTE_MS,
  nextBanDuration,
  secondsUntil,
  type WindowCount,
  type WindowName,
  windowEnd,
} from "./windows.ts";

interface LimiterState {
  minute?: WindowCount;
  day?: WindowCount;
  ban?: BanState;
  policy?: KeyPolicy;
}

interface ActiveWindow {
  name: WindowName;
  length: number;
  limit: number;
  count: WindowCount;
}

const STATE_KEY = "state";

/**
 * One instance per API key (named by the key's hash) or per client IP for
 * keyless traffic. All state is one small record: the two current windows,
 * the ban and the newest key policy seen, so storage per key stays constant.
 * Every method mutates memory synchronously before persisting, so concurrent
 * requests are counted exactly; the output gate holds replies until the write
 * is durable.
 */
export class RateLimiter extends DurableObject<Env> {
  #state: LimiterState = {};
  #cleanupScheduled = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.#state = (await ctx.storage.get<LimiterState>(STATE_KEY)) ?? {};
      this.#cleanupScheduled = (await ctx.storage.getAlarm()) !== null;
    });
  }

  /** Counts one request of an API key against its minute and day windows. */
  hitKey(policy: KeyPolicy, now: number = Date.now()): HitResult {
    const effective = this.#adoptPolicy(policy);
    const windows = this.#windows(effective.limits, now);
    if (isDead(effective, now)) return { outcome: "revoked", windows: reports(windows) };
    return this.#hit(windows, now, true);
  }

  /**
   * Counts `count` requests of the key that reached one isolate together,
   * each decided in turn exactly as if it had come alone.
   */
  hitKeyMany(policy: KeyPolicy, count: number, now: number = Date.now()): HitResult[] {
    return Array.from({ length: count }, () => this.hitKey(policy, now));
  }

  /** Counts one request without a valid key against the caller's per-IP budget. */
  hitKeyless(limits: Pick<Limits, "perMinute">, now: number = Date.now()): HitResult {
    return this.#hit(this.#windows(limits, now), now, false);
  }

  /** Records a newer key policy (a revocation or a plan change) without counting a request. */
  applyPolicy(policy: KeyPolicy): void {
    this.#adoptPolicy(policy);
  }

  /** The current windows without counting anything (the dashboard's usage, a keyless budget's headers). */
  usage(
    limits: Pick<Limits, "perMinute"> & Partial<Limits>,
    now: number = Date.now(),
  ): WindowReport[] {
    return reports(this.#windows(limits, now));
  }

  /** Drops what has gone stale; an object left with nothing (a quiet client IP) is deleted. */
  override async alarm(): Promise<void> {
    this.#cleanupScheduled = false;
    this.#state = withoutStale(this.#state, Date.now());
    if (Object.keys(this.#state).length === 0) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.put(STATE_KEY, this.#state);
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
    const minute = currentWindow(this.#state.minute, now, MINUTE_MS);
    this.#state.minute = minute;
    const windows: ActiveWindow[] = [
      { name: "minute", length: MINUTE_MS, limit: limits.perMinute, count: minute },
    ];
    if (limits.perDay !== undefined) {
      const day = currentWindow(this.#state.day, now, DAY_MS);
      this.#state.day = day;
      windows.push({ name: "day", length: DAY_MS, limit: limits.perDay, count: day });
    }
    return windows;
  }

  #hit(windows: ActiveWindow[], now: number, canBan: boolean): HitResult {
    const ban = this.#state.ban;
    if (ban && ban.until > now) {
      return {
        outcome: "banned",
        windows: reports(windows),
        retryAfter: secondsUntil(ban.until, now),
      };
    }
    const full = windows.filter((window) => window.count.count >= window.limit);
    if (full.length > 0) return this.#refuse(windows, full, now, canBan);
    for (const window of windows) window.count.count += 1;
    this.#persist();
    return { outcome: "allowed", windows: reports(windows) };
  }

  #refuse(windows: ActiveWindow[], full: ActiveWindow[], now: number, canBan: boolean): HitResult {
    for (const window of full) window.count.refused += 1;
    const reopensAt = Math.max(...full.map((window) => windowEnd(window.count, window.length)));
    if (canBan && full.some((window) => window.count.refused >= BAN_THRESHOLD)) {
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
    void this.ctx.storage.put(STATE_KEY, this.#state);
    if (!this.#cleanupScheduled) this.#scheduleCleanup();
  }

  /** Wakes when the last window and the ban memory have passed, so idle objects shrink to their policy. */
  #scheduleCleanup(): void {
    const at = staleAt(this.#state);
    if (at === undefined) return;
    this.#cleanupScheduled = true;
    void this.ctx.storage.setAlarm(at);
  }
}

/** When everything but the policy will have gone stale, if anything but the policy is kept. */
function staleAt(state: LimiterState): number | undefined {
  const instants = [
    state.minute && windowEnd(state.minute, MINUTE_MS),
    state.day && windowEnd(state.day, DAY_MS),
    state.ban && state.ban.until + BAN_MEMORY_MS,
  ].filter((instant) => instant !== undefined);
  return instants.length > 0 ? Math.max(...instants) : undefined;
}

/** The state without windows that have ended or a ban too old to double the next one. */
function withoutStale(state: LimiterState, now: number): LimiterState {
  const kept: LimiterState = {};
  if (state.policy) kept.policy = state.policy;
  if (state.minute && now < windowEnd(state.minute, MINUTE_MS)) kept.minute = state.minute;
  if (state.day && now < windowEnd(state.day, DAY_MS)) kept.day = state.day;
  if (state.ban && !isBanForgotten(state.ban, now)) kept.ban = state.ban;
  return kept;
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
