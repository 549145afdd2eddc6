import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/api/cursor.ts";
import { COUNTRY_CODES } from "../../src/shelters/countries.ts";
import { PROFILE_CYCLES, profileOf, shareOf } from "../bench/animal-profiles.ts";
import { parseBenchOptions } from "../bench/bench-options.ts";
import { scaleSheltersSql, shelterPlace } from "../bench/bench-shelters.ts";
import { CITY_PLACES } from "../bench/city-places.ts";
import type { Sample, Target } from "../bench/measure.ts";
import { createMix, MIX_SHARES, type MixKind } from "../bench/mix.ts";
import { petName, SEARCHED_NAME } from "../bench/pet-names.ts";
import { growPetsSql, lastPageAfterId, statusOf } from "../bench/pets-table.ts";
import { summarise } from "../bench/report.ts";
import { pairedPlan } from "../bench/rounds.ts";
import {
  formatProfileVerdicts,
  formatScaleTable,
  type ScalePhase,
  type ScaleReport,
  scaleChart,
  writeScaleReport,
} from "../bench/scale-report.ts";
import { scaleLoadSeconds } from "../bench/scale-run.ts";
import {
  listingTargets,
  mixTargets,
  PROFILE_FINDERS,
  PROFILE_TARGET,
} from "../bench/scale-targets.ts";
import { API_CONFIG, ROOT, wrangler } from "../bench/servers.ts";
import { sample } from "./bench-sample.ts";

const scratch = await mkdtemp(path.join(os.tmpdir(), "bench-scale-test-"));
const origins = { api: "http://api", floor: "http://floor" };
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The SQL counting, among the grown animals, those each profile finder's query selects. */
function profileChecks(): string[] {
  return PROFILE_FINDERS.map(({ query }) => {
    const [field = "", value = ""] = query.split("=");
    if (field === "breed") {
      return `SELECT count(*) AS n FROM pet_search WHERE pet_search MATCH 'breed : "${value}"*'`;
    }
    const column = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    const bound = value === "true" ? "1" : value === "false" ? "0" : `'${value}'`;
    return `SELECT count(*) AS n FROM pets WHERE ${column} = ${bound}`;
  });
}

/** Whether a drawn profile matches a profile finder's query (one `field=value`). */
function matcherOf(query: string): (profile: ReturnType<typeof profileOf>) => boolean {
  const [field = "", value = ""] = query.split("=");
  return (profile) => {
    const held = (profile as Record<string, unknown>)[field];
    if (field === "breed") return String(held).toLowerCase().split(" ").includes(value);
    return String(held) === value;
  };
}

describe("growing the pets table with SQL", () => {
  it("adds 1,000 animals in 10 shelters split 90% sold, 9% available, 1% pending, named, profiled and indexed for the finders", async () => {
    const size = 1_000;
    const shelters = 10;
    const afterId = lastPageAfterId(size, 20, "available");
    // One command: the tables and the search indexes as the migrations make them, the growth, the checks.
    const migrations = (await readdir(path.join(ROOT, "migrations")))
      .filter((file) => file.endsWith(".sql"))
      .sort();
    const tables = await Promise.all(
      migrations.map((file) => readFile(path.join(ROOT, "migrations", file), "utf8")),
    );
    const sampled = [1, 20, 999];
    const columns =
      "shelter_id, breed, age, sex, size, good_with_children, good_with_dogs, good_with_cats, house_trained, special_needs, spayed_neutered";
    const sql = [
      ...tables,
      scaleSheltersSql(shelters),
      growPetsSql(0, size, shelters),
      ...profileChecks(),
      `SELECT id, ${columns} FROM pets WHERE id IN (${sampled.join(", ")}) ORDER BY id`,
      "SELECT count(*) AS n, count(DISTINCT account_id) AS holders FROM shelters",
      "SELECT count(*) AS n FROM shelter_search WHERE shelter_search MATCH 'shelter'",
      "SELECT id, city, country, latitude, longitude FROM shelters WHERE id IN (1, 10) ORDER BY id",
      "SELECT status, count(*) AS n FROM pets GROUP BY status ORDER BY status",
      "SELECT min(id) AS first, max(id) AS last FROM pets",
      `SELECT count(*) AS n FROM pets WHERE status = 'available' AND id > ${afterId}`,
      "SELECT id, name FROM pets WHERE id IN (1, 20, 999) ORDER BY id",
      `SELECT count(*) AS n FROM pet_search WHERE pet_search MATCH '"${SEARCHED_NAME}"*'`,
      "SELECT min(category_id) AS lowest, max(category_id) AS highest FROM pets",
      "SELECT count(*) AS n FROM pets WHERE category_id = 3",
      "SELECT count(*) AS n FROM pets WHERE status = 'available' AND category_id IN (2, 5)",
    ].join(";\n");
    const output = await wrangler(
      [
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        path.join(scratch, "d1"),
        "--config",
        API_CONFIG,
        "--json",
        "--command",
        sql,
      ],
      { logLevel: "log" },
    );
    const results = (JSON.parse(output) as { results: Record<string, unknown>[] }[]).map(
      (statement) => statement.results,
    );
    const [split, range, lastPage, names, searched, categories, category, pair] = results.slice(-8);
    // Before those: each profile finder's count, then the sampled profiles and the shelters.
    const profileResults = results.slice(-(8 + PROFILE_FINDERS.length + 4), -8);
    const found = profileResults.slice(0, PROFILE_FINDERS.length);
    const [profiles, shelterCount, shelterNames, places] = profileResults.slice(-4);
    expect(split).toEqual([
      { status: "available", n: 90 },
      { status: "pending", n: 10 },
      { status: "sold", n: 900 },
    ]);
    expect(range).toEqual([{ first: 1, last: size }]);
    expect(lastPage).toEqual([{ n: 20 }]);
    expect(names).toEqual([1, 20, 999].map((id) => ({ id, name: petName(id) })));
    // Every finder's first page at 10³ is full, with a next page after it.
    expect(searched).toEqual([{ n: 50 }]);
    expect(categories).toEqual([{ lowest: 1, highest: 7 }]);
    expect(category).toEqual([{ n: 143 }]);
    expect(pair).toEqual([{ n: 26 }]);
    // Each profile filter finds what profileOf gives, a full first page and more.
    const expected = PROFILE_FINDERS.map(({ query }) => {
      const matches = matcherOf(query);
      let n = 0;
      for (let id = 1; id <= size; id++) if (matches(profileOf(id, shelters))) n += 1;
      return [{ n }];
    });
    expect(found).toEqual(expected);
    for (const [{ n } = { n: 0 }] of expected) expect(n).toBeGreaterThan(20);
    expect(profiles).toEqual(
      sampled.map((id) => {
        const { shelterId, ...drawn } = profileOf(id, shelters);
        const stored = Object.values(drawn).map((value) =>
          typeof value === "boolean" ? Number(value) : value,
        );
        return Object.fromEntries([
          ["id", id],
          ...columns.split(", ").map((column, i) => [column, i === 0 ? shelterId : stored[i - 1]]),
        ]);
      }),
    );
    expect(shelterCount).toEqual([{ n: shelters, holders: 1 }]);
    expect(shelterNames).toEqual([{ n: shelters }]);
    expect(places).toEqual(
      [1, 10].map((id) => {
        const { city, country, latitude, longitude } = shelterPlace(id);
        return { id, city, country, latitude, longitude };
      }),
    );
  });

  it("draws each profile field from a cycle of its own length, the lengths pairwise coprime", () => {
    const lengths = Object.values(PROFILE_CYCLES).map((cycle) => cycle.length);
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    for (const [i, a] of lengths.entries()) {
      for (const b of lengths.slice(i + 1)) expect(gcd(a, b), `${a} and ${b}`).toBe(1);
    }
    // Two filters together find the product of their shares over a whole period (5 × 11).
    let both = 0;
    for (let id = 1; id <= 55; id++) {
      const { age, goodWithChildren } = profileOf(id, 1);
      if (age === "young" && goodWithChildren) both += 1;
    }
    expect(both / 55).toBeCloseTo(shareOf("age", "young") * shareOf("goodWithChildren", true));
  });

  it("places shelters in cities of real countries, a few hundred of them, none twice", () => {
    expect(CITY_PLACES.length).toBeGreaterThan(250);
    for (const { country, latitude, longitude } of CITY_PLACES) {
      expect(COUNTRY_CODES as readonly string[]).toContain(country);
      expect(Math.abs(latitude)).toBeLessThan(85);
      expect(Math.abs(longitude)).toBeLessThanOrEqual(180);
    }
    expect(new Set(CITY_PLACES.map(({ city, country }) => `${city}, ${country}`)).size).toBe(
      CITY_PLACES.length,
    );
    const place = shelterPlace(CITY_PLACES.length + 1);
    expect([place.city, Math.abs(place.latitude - (CITY_PLACES[0]?.latitude ?? 0))]).toEqual([
      CITY_PLACES[0]?.city,
      expect.any(Number),
    ]);
    expect(Math.abs(place.latitude - (CITY_PLACES[0]?.latitude ?? 0))).toBeLessThanOrEqual(0.1);
  });

  it("computes the same statuses in TypeScript as the SQL writes", () => {
    expect([100, 200, 1, 9, 109, 10, 99, 150].map(statusOf)).toEqual([
      "pending",
      "pending",
      "available",
      "available",
      "available",
      "sold",
      "sold",
      "sold",
    ]);
  });

  it("puts the last page's cursor before the last 20 matches, or none when one page holds all", () => {
    expect(lastPageAfterId(1_000, 20)).toBe(980);
    // Pending ids are the multiples of 100: the 21st from the end of 100,000 is 98,000.
    expect(lastPageAfterId(100_000, 20, "pending")).toBe(98_000);
    expect(lastPageAfterId(1_000, 20, "pending")).toBe(0);
  });
});

describe("the listings at the first size", () => {
  it("load each listing right beside the same listing on the floor, which takes no key", () => {
    const targets = listingTargets(origins, "key", 1_000);
    const plan = pairedPlan(targets, 1).map(({ target }) => [
      target.origin,
      target.headers?.Authorization,
      target.flow?.steps[0]?.request({}).path,
    ]);
    const last = `/v1/pets?limit=20&cursor=${encodeCursor(980)}`;
    expect(plan.slice(0, 4)).toEqual([
      ["http://api", "Bearer key", last],
      ["http://floor", undefined, last],
      ["http://api", "Bearer key", "/v1/pets?limit=20&status=pending"],
      ["http://floor", undefined, "/v1/pets?limit=20&status=pending"],
    ]);
  });
});

describe("the listings at a larger size", () => {
  const firstSize = { origin: "http://api-first-size", key: "first-size-key", size: 1_000 };
  const targets = listingTargets(origins, "key", 1_000_000, firstSize);

  it("load each listing right beside the same listing on the API that holds the first size", () => {
    const plan = pairedPlan(targets, 0).map(({ target, besideEndpoint }) => {
      const path = target.flow?.steps[0]?.request({}).path;
      return besideEndpoint ? `${target.origin}${path} beside ${besideEndpoint}` : target.id;
    });
    expect(plan).toEqual([
      "http://api-first-size/v1/pets?limit=20 beside list-first",
      "list-first",
      `http://api-first-size/v1/pets?limit=20&cursor=${encodeCursor(980)} beside list-last`,
      "list-last",
      "http://api-first-size/v1/pets?limit=20&status=pending beside list-status-first",
      "list-status-first",
      // A thousand animals hold ten pending: their last page is the first.
      "http://api-first-size/v1/pets?limit=20&status=pending beside list-status-last",
      "list-status-last",
    ]);
    const keysSent = new Set(targets.map((t) => `${t.origin} ${t.headers?.Authorization}`));
    expect(keysSent).toEqual(
      new Set(["http://api-first-size Bearer first-size-key", "http://api Bearer key"]),
    );
  });

  it("add the finders' first pages at the largest size, each beside the same page at the first", () => {
    const withFinders = listingTargets(origins, "key", 1_000_000, firstSize, { finders: true });
    const pages = pairedPlan(withFinders, 0)
      .slice(8)
      .map(({ target }) => `${target.origin}${target.flow?.steps[0]?.request({}).path}`);
    const ids = [37, 87, 137, 187, 237, 287, 337, 387, 437, 487, 537, 587, 637, 687, 737, 787];
    const finders = [
      "q=luna",
      [...ids, 837, 887, 937, 987].map((id) => `id=${id}`).join("&"),
      "categoryId=3",
      "status=available&categoryId=2&categoryId=5",
      "shelterId=3",
      "breed=beagle",
      "age=young",
      "size=small",
      "sex=female",
      "goodWithChildren=true",
      "goodWithDogs=true",
      "goodWithCats=true",
      "houseTrained=true",
      "specialNeeds=true",
      "spayedNeutered=true",
    ];
    expect(pages).toEqual(
      finders.flatMap((query) => [
        `http://api-first-size/v1/pets?${query}&limit=20`,
        `http://api/v1/pets?${query}&limit=20`,
      ]),
    );
  });

  it("are held to that listing, loaded in the same round", () => {
    const rows = summarise(targets, [
      sample("first-size-list-last", 400, "list-last"),
      sample("list-last", 360),
    ]);
    expect(rows.find((row) => row.target === "list-last")?.comparisons[0]?.throughput).toBe(0.9);
  });
});

describe("the mix", () => {
  const largestId = 1_000;
  const keys = ["key-a", "key-b", "key-c"];
  const next = createMix({ keys, largestId });
  const requests = Array.from({ length: 20_000 }, next);

  it("keeps the shares of list, create and get", () => {
    for (const kind of Object.keys(MIX_SHARES) as MixKind[]) {
      const share = requests.filter((r) => r.kind === kind).length / requests.length;
      expect(Math.abs(share - MIX_SHARES[kind]), kind).toBeLessThan(0.015);
    }
  });

  it("uses the keys in turn", () => {
    requests.slice(0, 9).forEach((request, i) => {
      expect(request.headers.Authorization).toBe(`Bearer ${keys[i % keys.length]}`);
    });
  });

  it("varies limit, status and cursor, staying inside the table", () => {
    const lists = requests
      .filter((r) => r.kind === "list")
      .map((r) => new URL(r.path, "http://bench.invalid").searchParams);
    expect(new Set(lists.map((q) => q.get("limit"))).size).toBeGreaterThan(2);
    expect(new Set(lists.map((q) => q.get("status")))).toEqual(
      new Set([null, "available", "pending", "sold"]),
    );
    const cursors = lists.flatMap((q) => q.get("cursor") ?? []).map(decodeCursor);
    expect(cursors.length / lists.length).toBeGreaterThan(0.4);
    expect(Math.min(...cursors)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...cursors)).toBeLessThan(largestId);
    const ids = requests
      .filter((r) => r.kind === "get")
      .map((r) => Number(r.path.split("/").at(-1)));
    expect(Math.min(...ids)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...ids)).toBeLessThanOrEqual(largestId);
  });

  it("holds the mix from more keys to the mix from fewer, loaded right beside it", () => {
    const targets = mixTargets(origins, keys, largestId, keys.slice(0, 1));
    const plan = (round: number) =>
      pairedPlan(targets, round).map(({ target, besideEndpoint }) =>
        besideEndpoint ? `${target.label} beside ${besideEndpoint}` : target.label,
      );
    const floor = "floor: mix";
    expect(plan(0)).toEqual([floor, "mix from 1 key beside mix", "mix from 3 keys"]);
    expect(plan(1)).toEqual([floor, "mix from 3 keys", "mix from 1 key beside mix"]);
    const rows = summarise(targets, [
      sample("floor-mix", 500),
      sample("mix-fewer-keys", 400, "mix"),
      sample("mix", 300),
    ]);
    expect(rows.find((row) => row.target === "mix")?.comparisons[0]?.throughput).toBe(0.75);
  });

  it("counts the scale run's loads from the plans its phases follow", () => {
    const settings = { rounds: 3, durationSeconds: 4, warmupSeconds: 1, connections: 16 };
    // Four pairs at every size (each listing beside the floor's at the first, beside
    // the first size's API at the others), and the four finders' pairs and the eleven
    // profile filters' at the largest; two pairs for get and create; then per key count
    // the floor's pair for the first, and the floor's mix alone plus the fewer-keys pair
    // for each later.
    const loads = 8 * 3 + 8 + 22 + 4 + 2 + 3 + 3;
    // At the largest size, in two rounds: the three pages near a place beside the first
    // size's, and the animals' beside the straightforward page too.
    const nearLoads = 3 * 2 + 1;
    const sizes = [1_000, 100_000, 1_000_000];
    expect(scaleLoadSeconds({ settings, sizes, keyCounts: [1, 100, 10_000] })).toBe(
      loads * 13 + nearLoads * 9,
    );
    // By default, three rounds of 2 s loads, which fit the run's budget where 3 s would not.
    const { scale } = parseBenchOptions(["--scale"]);
    expect(scale?.settings).toMatchObject({ rounds: 3, durationSeconds: 2 });
    expect(scale && scaleLoadSeconds(scale)).toBe(loads * 7 + nearLoads * 5);
    expect(() => parseBenchOptions(["--scale", "--duration", "3"])).toThrow(/would not fit/);
  });

  it("sends creates as JSON and no key to a server without auth", () => {
    const create = requests.find((r) => r.kind === "create");
    expect(create?.method).toBe("POST");
    expect(JSON.parse(create?.body ?? "")).toMatchObject({ name: expect.any(String) });
    const anonymous = createMix({ keys: [], largestId })();
    expect(anonymous.headers.Authorization).toBeUndefined();
  });
});

/** Tags balance, attributes are quoted, and no text holds a bare < or &. */
function expectWellFormedXml(xml: string): void {
  const open: string[] = [];
  const tag = /^<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>$/;
  const bareAmpersand = /&(?!(?:amp|lt|gt|quot|apos);)/;
  for (const token of xml.match(/<[^>]*>|[^<]+/g) ?? []) {
    if (!token.startsWith("<")) {
      expect(token, "text").not.toMatch(bareAmpersand);
      continue;
    }
    const match = tag.exec(token);
    expect(match, token).not.toBeNull();
    const [, closing, name, attributes, selfClosing] = match ?? [];
    expect(attributes ?? "", token).not.toMatch(bareAmpersand);
    if (closing) expect(open.pop(), token).toBe(name);
    else if (!selfClosing) open.push(name ?? "");
  }
  expect(open).toEqual([]);
}

describe("the chart", () => {
  const usage = { processes: 1, residentMiB: 100, openFiles: 50, openFilesLimit: 1024 };

  function phase(axis: ScalePhase["axis"], x: number, targets: Target[]): ScalePhase {
    const samples = targets.flatMap((target, i) =>
      [1, 2].map(
        (round): Sample => ({
          target: target.id,
          round,
          requestsPerSecond: 1_000 / (i + 1) + round * 10 - Math.log10(x) * 20,
          p50Ms: 10 + i,
          p99Ms: 20 + i + Math.log10(x),
          requests: 1_000,
          unexpected: 0,
          errors: 0,
          timeouts: 0,
          cpuMsPerRequest: 1.5,
          residentMiB: 400,
        }),
      ),
    );
    return {
      axis,
      title: `${axis} ${x}`,
      animals: axis === "size" ? x : 1_000_000,
      keys: axis === "keys" ? x : 1,
      setupSeconds: 1,
      apiWorkerd: { start: usage, ready: usage, end: usage },
      rows: summarise(targets, samples),
      samples,
    };
  }

  function scaleReport(phases: ScalePhase[]): ScaleReport {
    const xs = (axis: ScalePhase["axis"], x: (p: ScalePhase) => number) =>
      phases.filter((p) => p.axis === axis).map(x);
    return {
      kind: "scale",
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:10:00.000Z",
      settings: {
        rounds: 2,
        durationSeconds: 4,
        warmupSeconds: 1,
        connections: 16,
        sizes: xs("size", (p) => p.animals),
        keyCounts: xs("keys", (p) => p.keys),
      },
      machine: { node: "v24", cpus: 2, loadAverage: [0, 0, 0] },
      git: "abc1234",
      phases,
    };
  }

  it("prints each phase with the Workers' CPU per request beside the floor's", () => {
    const targets = listingTargets(origins, "key", 1_000);
    const table = formatScaleTable(scaleReport([phase("size", 1_000, targets)]));
    expect(table).toContain("== size 1000 (setup 1 s) ==");
    expect(table).toMatch(
      /GET \/v1\/pets\?limit=20, first page .* floor: GET \/v1\/pets\?limit=20, first page .* 1\.500 +1\.500/,
    );
  });

  it("holds each profile filter's first page at the largest size to its target", () => {
    const firstSize = { origin: "http://first-size-api", key: "key", size: 1_000 };
    const targets = listingTargets(origins, "key", 1_000_000, firstSize, { finders: true });
    const [shelter, breed, age] = PROFILE_FINDERS.map(({ id }) => `list-${id}`);
    const rates: Record<string, number[]> = {
      [`${shelter}`]: [90, 95, 88],
      [`${breed}`]: [80, 86, 84],
      [`${age}`]: [60, 70, 65],
    };
    const samples = Object.entries(rates).flatMap(([target, apiRates]) =>
      apiRates.flatMap((rate, round) => [
        { ...sample(`first-size-${target}`, 100, target), round: round + 1 },
        { ...sample(target, rate), round: round + 1 },
      ]),
    );
    const report = scaleReport([
      { ...phase("size", 1_000_000, []), rows: summarise(targets, samples), samples },
    ]);
    report.settings.sizes = [1_000, 1_000_000];
    expect(formatProfileVerdicts(report)).toEqual([
      "",
      `profile filters' first pages, 1,000,000 against 1,000 animals (target ${PROFILE_TARGET}):`,
      "  GET /v1/pets by shelterId, first page: 0.90 (0.88–0.95) met",
      "  GET /v1/pets by breed, first page: 0.84 (0.80–0.86) within noise",
      "  GET /v1/pets by age, first page: 0.65 (0.60–0.70) missed",
      ...PROFILE_FINDERS.slice(3).map(
        ({ label }) => `  GET /v1/pets by ${label}, first page: not compared`,
      ),
    ]);
  });

  it("draws a well-formed SVG with axes, series and floors beside the JSON", async () => {
    const report = scaleReport([
      ...[1_000, 100_000].map((size) => phase("size", size, listingTargets(origins, "key", size))),
      ...[1, 10_000].map((count) =>
        phase("keys", count, mixTargets(origins, Array(count).fill("key"), 1_000)),
      ),
    ]);
    const files = await writeScaleReport(scratch, report);
    expect(path.dirname(files.svg)).toBe(path.dirname(files.json));
    expect(JSON.parse(await readFile(files.json, "utf8"))).toMatchObject({ kind: "scale" });
    const svg = await readFile(files.svg, "utf8");

    expectWellFormedXml(svg);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const label of [
      "animals in the table (log scale)",
      "distinct keys, used in turn (log scale)",
      "requests/s",
      "p99 latency (ms)",
      "GET /v1/pets?status=pending&amp;limit=20, last page",
      "floor: mix",
      "floor: GET /v1/pets?limit=20, first page",
    ]) {
      expect(svg).toContain(label);
    }
    // Decade ticks on the log axes: 1k … 100k for sizes, 1 … 10k for keys.
    for (const tick of [">1k<", ">10k<", ">100k<", ">1<", ">10<", ">100<"]) {
      expect(svg).toContain(tick);
    }
    // Two panels per axis: four listings each by size, one mix each by keys.
    expect(svg.match(/<polyline (?![^>]*stroke-dasharray)/g)).toHaveLength(2 * 4 + 2 * 1);
    // Floors: one by size, one by keys, in each of the two panels per axis, each
    // drawn once in its panel and once in its legend.
    expect(svg.match(/<polyline [^>]*stroke-dasharray/g)).toHaveLength(2 * (1 + 1));
    expect(svg.match(/stroke-dasharray="[^"]+"/g)?.length).toBe(2 * (1 + 1) * 2);
  });

  it("draws each floor where its phases measured it, so the machine's drift shows", () => {
    const floorHeights = (svg: string) =>
      [...svg.matchAll(/<polyline points="([^"]+)"[^>]*stroke-dasharray="[^"]+"/g)].map(
        ([, points = ""]) => points.split(" ").map((vertex) => vertex.split(",")[1]),
      );
    const firstSize = { origin: "http://first-size-api", key: "key", size: 1_000 };
    const report = scaleReport([
      phase("size", 1_000, listingTargets(origins, "key", 1_000)),
      ...[100_000, 1_000_000].map((size) =>
        phase("size", size, listingTargets(origins, "key", size, firstSize)),
      ),
      ...[1, 100, 10_000].map((count, i) =>
        phase("keys", count, mixTargets(origins, ["key"], 1_000, i > 0 ? ["key"] : undefined)),
      ),
    ]);
    const [sizeRate = [], sizeP99 = [], keysRate = [], keysP99 = []] = floorHeights(
      scaleChart(report),
    );
    // The floor's listing is loaded at the first size only: one height, end to end.
    expect([sizeRate, sizeP99].map((heights) => [heights.length, new Set(heights).size])).toEqual([
      [2, 1],
      [2, 1],
    ]);
    // The mix on the floor is loaded at every key count and moves with x here: three heights.
    expect([keysRate, keysP99].map((heights) => new Set(heights).size)).toEqual([3, 3]);
  });
});
