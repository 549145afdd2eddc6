import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gatherSheltersSql, scaleSheltersSql } from "../bench/bench-shelters.ts";
import { growPetsSql } from "../bench/pets-table.ts";
import { summarise } from "../bench/report.ts";
import { pairedPlan } from "../bench/rounds.ts";
import { formatNearVerdicts } from "../bench/scale-near-report.ts";
import { NEAR_CITY, nearTargets, STRAIGHTFORWARD_ID } from "../bench/scale-near-targets.ts";
import type { ScaleReport } from "../bench/scale-report.ts";
import { API_CONFIG, ROOT, wrangler } from "../bench/servers.ts";
import { sample } from "./bench-sample.ts";

const origins = { api: "http://api", floor: "http://floor" };
const firstSize = { origin: "http://api-first-size", key: "first-size-key", size: 1_000 };
const near = `near=${NEAR_CITY.latitude},${NEAR_CITY.longitude}&within=50`;

describe("the pages near a place at the largest size", () => {
  const targets = nearTargets(origins, "key", firstSize);

  it("load each beside the same page at the first size, the animals' beside the straightforward page too", () => {
    const plan = pairedPlan(targets, 0).map(({ target, besideEndpoint }) => {
      const sent = `${target.origin}${target.flow?.steps[0]?.request({}).path}`;
      return besideEndpoint ? `${sent} beside ${besideEndpoint}` : target.id;
    });
    expect(plan).toEqual([
      `http://api-first-size/v1/pets?${near}&limit=20 beside list-near`,
      "list-near",
      `http://floor/v1/pets-near-straightforward?${near}&limit=20 beside list-near`,
      `http://api-first-size/v1/pets?${near}&age=young&goodWithChildren=true&limit=20 beside list-near-profile`,
      "list-near-profile",
      `http://api-first-size/v1/shelters?${near}&limit=20 beside shelters-near`,
      "shelters-near",
    ]);
    expect(targets.find((t) => t.id === "list-near")?.flow?.steps[0]?.request({}).path).toBe(
      `/v1/pets?${near}&limit=20`,
    );
    const keysSent = new Set(targets.map((t) => `${t.origin} ${t.headers?.Authorization}`));
    expect(keysSent).toEqual(
      new Set([
        "http://api-first-size Bearer first-size-key",
        "http://api Bearer key",
        "http://floor undefined",
      ]),
    );
    // Two rounds each, and none in a third.
    expect(pairedPlan(targets, 1)).toHaveLength(plan.length);
    expect(pairedPlan(targets, 2)).toEqual([]);
  });

  it("print each page against the first size's, and the animals' against the straightforward page by requests and rows read", () => {
    const samples = [1, 2].flatMap((round) => [
      { ...sample("first-size-list-near", 400, "list-near"), round },
      { ...sample(STRAIGHTFORWARD_ID, round === 1 ? 40 : 50, "list-near"), round },
      { ...sample("list-near", round === 1 ? 360 : 320), round },
      { ...sample("first-size-shelters-near", 500, "shelters-near"), round },
      { ...sample("shelters-near", round === 1 ? 400 : 450), round },
    ]);
    const usage = { processes: 1, residentMiB: 100, openFiles: 50, openFilesLimit: 1024 };
    const report: ScaleReport = {
      kind: "scale",
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:10:00.000Z",
      settings: {
        rounds: 2,
        durationSeconds: 2,
        warmupSeconds: 1,
        connections: 16,
        sizes: [1_000, 1_000_000],
        keyCounts: [1],
      },
      machine: { node: "v24", cpus: 2, loadAverage: [0, 0, 0] },
      git: "abc1234",
      phases: [
        {
          axis: "size",
          title: "1,000,000 animals",
          animals: 1_000_000,
          keys: 1,
          setupSeconds: 1,
          apiWorkerd: { start: usage, ready: usage, end: usage },
          rows: summarise(targets, samples),
          samples,
          nearRowsRead: { indexed: 412, straightforward: 13_600 },
        },
      ],
    };
    expect(formatNearVerdicts(report)).toEqual([
      "",
      "first pages within 50 km of Los Angeles, 1,000,000 against 1,000 animals (target 0.85):",
      "  GET /v1/pets near, first page: 0.85 (0.80–0.90) met",
      "  GET /v1/pets near, young and good with children, first page: not compared",
      "  GET /v1/shelters near, first page: 0.85 (0.80–0.90) met",
      "",
      "the animals' page near Los Angeles at 1,000,000 animals, indexed against straightforward:",
      "  requests a second: 7.7× (6.4–9.0) the straightforward page's 45 (target at least 5×): met",
      "  rows read: 412 against 13,600, 0.0303 (target at most 0.01): missed",
    ]);
  });
});

describe("the first size's shelters, gathered around the city", () => {
  const scratch = mkdtemp(path.join(os.tmpdir(), "bench-near-test-"));
  afterAll(async () => rm(await scratch, { recursive: true, force: true }));

  it("stand within 50 km of it, in the R*Tree too, holding a full page of young animals good with children", async () => {
    const migrations = (await readdir(path.join(ROOT, "migrations")))
      .filter((file) => file.endsWith(".sql"))
      .sort();
    const tables = await Promise.all(
      migrations.map((file) => readFile(path.join(ROOT, "migrations", file), "utf8")),
    );
    const { latitude, longitude } = NEAR_CITY;
    const sql = [
      ...tables,
      scaleSheltersSql(10),
      growPetsSql(0, 1_000, 10),
      gatherSheltersSql(NEAR_CITY),
      `SELECT count(*) AS n, max(2 * 6371.0088 * asin(sqrt(pow(sin(radians(latitude - ${latitude}) / 2), 2)
        + cos(radians(${latitude})) * cos(radians(latitude)) * pow(sin(radians(longitude - ${longitude}) / 2), 2)))) AS farthest
        FROM shelters WHERE city = 'Los Angeles'`,
      // The R*Tree holds 32-bit floats, rounded outwards: each box a hair around its shelter,
      // beside the shelter's own coordinates, exactly.
      `SELECT count(*) AS n FROM shelter_places JOIN shelters USING (id)
        WHERE shelters.latitude BETWEEN min_lat AND max_lat AND max_lat - min_lat < 1e-4
        AND shelters.longitude BETWEEN min_lon AND max_lon AND max_lon - min_lon < 1e-4
        AND shelter_places.latitude = shelters.latitude AND shelter_places.longitude = shelters.longitude`,
      "SELECT count(*) AS n FROM pets WHERE age = 'young' AND good_with_children = 1",
    ].join(";\n");
    const output = await wrangler(
      [
        ...["d1", "execute", "DB", "--local", "--persist-to", path.join(await scratch, "d1")],
        ...["--config", API_CONFIG, "--json", "--command", sql],
      ],
      { logLevel: "log" },
    );
    const results = (JSON.parse(output) as { results: Record<string, number>[] }[]).map(
      (statement) => statement.results[0],
    );
    const [gathered, places, young] = results.slice(-3);
    expect(gathered?.n).toBe(10);
    expect(gathered?.farthest).toBeLessThan(50);
    expect(places?.n).toBe(10);
    expect(young?.n).toBeGreaterThanOrEqual(20);
  });
});
