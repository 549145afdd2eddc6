import { describe, expect, it } from "vitest";
import { buildTargets, type Sample } from "../bench/measure.ts";
import { summarise } from "../bench/report.ts";
import { pairedPlan, type Slot } from "../bench/rounds.ts";

const targets = buildTargets("http://floor", "http://api", "key");
const names = (plan: Slot[]) =>
  plan.map(({ target, besideEndpoint }) =>
    besideEndpoint ? `${target.id}@${besideEndpoint}` : target.id,
  );

describe("paired rounds", () => {
  it("loads every endpoint right beside its own floor, the floor first in one round and second in the next", () => {
    expect(names(pairedPlan(targets, 0))).toEqual([
      "floor-static",
      "floor-read@list",
      "list",
      "floor-read@list-status",
      "list-status",
      "floor-create@create",
      "create",
      "floor-read@get",
      "get",
      "floor-orders@orders",
      "orders",
    ]);
    expect(names(pairedPlan(targets, 1))).toEqual([
      "floor-static",
      "list-status",
      "floor-read@list-status",
      "create",
      "floor-create@create",
      "get",
      "floor-read@get",
      "orders",
      "floor-orders@orders",
      "list",
      "floor-read@list",
    ]);
  });

  it("divides each endpoint by the floor load beside it, not by the floor's other loads that round", () => {
    const sample = (
      target: string,
      requestsPerSecond: number,
      besideEndpoint?: string,
    ): Sample => ({
      target,
      round: 1,
      ...(besideEndpoint ? { besideEndpoint } : {}),
      requestsPerSecond,
      p50Ms: 1_000 / requestsPerSecond,
      p99Ms: 2_000 / requestsPerSecond,
      requests: requestsPerSecond * 3,
      unexpected: 0,
      errors: 0,
      timeouts: 0,
    });
    const rows = summarise(targets, [
      sample("floor-read", 200, "list"),
      sample("list", 180),
      sample("floor-read", 100, "get"),
      sample("get", 90),
    ]);
    const ratio = (id: string) => rows.find((row) => row.target === id)?.throughputVsFloor;
    expect(ratio("list")).toBeCloseTo(0.9);
    expect(ratio("get")).toBeCloseTo(0.9);
    expect(rows.find((row) => row.target === "floor-read")?.requestsPerSecond).toBe(150);
  });
});
