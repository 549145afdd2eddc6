import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CpuProfile,
  formatProfile,
  frameResolver,
  summariseProfile,
} from "../bench/profile-analysis.ts";

type Frame = CpuProfile["nodes"][number]["callFrame"];

/** A call frame; `module` stands for where the source map would place it. */
const frame = (functionName: string, url = ""): Frame => ({
  functionName,
  url,
  lineNumber: url === "" ? -1 : 0,
  columnNumber: 0,
});

/**
 * A profile of one isolate: the root, idle time, V8's own entries, and two
 * call paths of script code, one of them ending in a native function.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 3, 4, 5, 8] },
    { id: 2, callFrame: frame("(idle)") },
    { id: 3, callFrame: frame("(program)") },
    { id: 4, callFrame: frame("(garbage collector)") },
    { id: 5, callFrame: frame("identify", "bundle.js"), children: [6] },
    { id: 6, callFrame: frame("all", "cloudflare-internal:d1-api"), children: [7] },
    { id: 7, callFrame: frame("fetch") },
    { id: 8, callFrame: frame("toJson", "cloudflare-internal:d1-api"), children: [9] },
    { id: 9, callFrame: frame("parse") },
  ],
  startTime: 0,
  endTime: 1_000,
  // Each sample 100 µs; idle 300, program 100, GC 100, identify 200, D1's fetch 200, JSON 100.
  samples: [2, 2, 2, 3, 4, 5, 5, 7, 7, 9],
  timeDeltas: Array(10).fill(100),
};

/** As the source map would: the bundle's frames into repository files, the rest as they are. */
const resolve = ({ functionName, url, lineNumber }: Frame) => ({
  module: url === "bundle.js" ? "src/middleware/authenticate.ts" : url,
  functionName,
  line: lineNumber,
});

describe("a profile's summary", () => {
  const summary = summariseProfile(profile, resolve, { target: "get", label: "GET", requests: 2 });

  it("leaves idle time out, and counts a native function toward the script code that called it", () => {
    expect(summary.busyMs).toBeCloseTo(0.7);
    const share = (name: string) =>
      summary.categories.find((category) => category.name.startsWith(name))?.share;
    expect(share("auth")).toBeCloseTo(2 / 7);
    expect(share("D1 binding")).toBeCloseTo(2 / 7);
    expect(share("JSON")).toBeCloseTo(1 / 7);
    expect(share("garbage collection")).toBeCloseTo(1 / 7);
    expect(share("workerd and V8 outside scripts")).toBeCloseTo(1 / 7);
    expect(summary.categories.reduce((sum, category) => sum + category.share, 0)).toBeCloseTo(1);
  });

  it("names each top function by its file, a native one with its caller", () => {
    expect(summary.top.map((entry) => entry.frame)).toContain(
      "fetch (native) ← all cloudflare-internal:d1-api:0",
    );
    expect(summary.top[0]).toEqual({
      frame: "identify src/middleware/authenticate.ts:0",
      share: 2 / 7,
    });
    expect(formatProfile(summary)).toMatch(
      /^== GET \(get\): 2 requests, 1 ms of the isolate's time sampled ==\n/,
    );
  });
});

describe("a bundle's frames", () => {
  const scratch = mkdtemp(path.join(os.tmpdir(), "bench-profile-test-"));
  afterAll(async () => rm(await scratch, { recursive: true, force: true }));

  it("are named by the repository or package file the source map gives", async () => {
    const root = path.join(await scratch, "repo");
    const bundle = path.join(root, ".bench/run/api-bundle/index.js");
    const map = {
      version: 3,
      sources: [
        "../../../src/pets/pets.queries.ts",
        "../../../node_modules/hono/dist/compose.js",
        // Drizzle's own maps point out of its package.
        "../../../node_modules/src/entity.ts",
      ],
      names: [],
      // Line 1: columns 0, 10 and 20, one source each, their first line.
      mappings: "AAAA,UCAA,UCAA",
    };
    await mkdir(path.dirname(bundle), { recursive: true });
    await writeFile(`${bundle}.map`, JSON.stringify(map));
    const resolve = await frameResolver(bundle, root);
    const at = (columnNumber: number) =>
      resolve({ functionName: "f", url: `file://${bundle}`, lineNumber: 0, columnNumber });
    expect([at(0), at(10), at(20)].map((origin) => origin.module)).toEqual([
      "src/pets/pets.queries.ts",
      "hono/dist/compose.js",
      "drizzle-orm/src/entity.ts",
    ]);
    expect(
      resolve({
        functionName: "toJson",
        url: "cloudflare-internal:d1-api",
        lineNumber: 614,
        columnNumber: 2,
      }),
    ).toEqual({
      module: "cloudflare-internal:d1-api",
      functionName: "toJson",
      line: 614,
    });
  });
});
