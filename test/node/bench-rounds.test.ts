import { describe, expect, it } from "vitest";
import { parseBenchOptions, plannedRowTargets } from "../bench/bench-options.ts";
import type { Sample, Target } from "../bench/measure.ts";
import { PhotoPlaces } from "../bench/photo-places.ts";
import { formatRows, summarise } from "../bench/report.ts";
import { loadSeconds, pairedPlan, type Slot } from "../bench/rounds.ts";
import { rowTargets } from "../bench/row-targets.ts";
import { ROWS } from "../bench/rows.ts";
import { AnimalWalk } from "../bench/seeded-animals.ts";

const names = (plan: Slot[]) =>
  plan.map(({ target, besideEndpoint }) =>
    besideEndpoint ? `${target.id}@${besideEndpoint}` : target.id,
  );

/** One load of a target in a round, beside an endpoint when it is that one's floor. */
function sample(
  target: string,
  round: number,
  requestsPerSecond: number,
  cpuMsPerRequest: number,
  besideEndpoint?: string,
): Sample {
  return {
    target,
    round,
    ...(besideEndpoint ? { besideEndpoint } : {}),
    requestsPerSecond,
    p50Ms: 1_000 / requestsPerSecond,
    p99Ms: 2_000 / requestsPerSecond,
    requests: requestsPerSecond * 2,
    unexpected: 0,
    errors: 0,
    timeouts: 0,
    cpuMsPerRequest,
    residentMiB: 500,
  };
}

describe("the rows", () => {
  const targets = plannedRowTargets(2);

  it("give every /v1 endpoint a row, each beside at least one floor", () => {
    expect(ROWS.map((row) => row.label)).toEqual([
      "GET /v1/pets?limit=20",
      "GET /v1/pets/{id}",
      "POST /v1/pets",
      "GET /v1/pets?status=available",
      "GET /v1/pets?q=luna",
      "GET /v1/pets?id={id}",
      "PATCH /v1/pets/{id}",
      "DELETE /v1/pets/{id}",
      "GET /v1/categories",
      "GET /v1/categories/{id}",
      "POST /v1/categories + DELETE",
      "PATCH /v1/categories/{id}",
      "GET /v1/pets?age=young&goodWithChildren=true",
      "GET /v1/pets?near=40.71,-74.01&within=50",
      "GET /v1/shelters",
      "POST /v1/shelters + DELETE",
      "POST /v1/store/orders + complete",
      "POST /v1/store/orders + cancel",
      "GET /v1/store/orders",
      "GET /v1/store/orders/{id}",
      "GET /v1/events",
      "GET /v1/webhooks",
      "GET /v1/webhooks/{id}",
      "POST /v1/webhooks + DELETE",
      "PATCH /v1/webhooks/{id}",
      "POST /v1/webhooks/{id}/rotate-secret",
      "GET /v1/webhooks/{id}/deliveries",
      "POST /v1/webhooks/{id}/test",
      "POST /v1/webhooks/{id}/deliveries/{id}/retry",
      "POST /v1/webhooks/{id}/recover",
      "POST /v1/pets/{id}/photos, 200 KiB",
      "GET /v1/pets/{id}/photos",
      "GET /photos/{id}",
    ]);
    expect(new Set(ROWS.map((row) => row.id)).size).toBe(ROWS.length);
    expect(ROWS.filter((row) => row.tier === "hot").map((row) => row.id)).toEqual([
      "list",
      "get",
      "create",
    ]);
    for (const row of ROWS) expect(row.floors.length, row.id).toBeGreaterThan(0);
  });

  it("send the endpoint the caller's key and the floor none, with the same requests", () => {
    const seeded = {
      pets: [7],
      editable: [11, 12],
      categories: [8],
      orders: [3],
      webhooks: [4, 5],
      deliveries: [9],
      adoptable: new AnimalWalk(1, 100),
      departing: new AnimalWalk(101, 200),
      album: { petId: 8, photoIds: ["q1Lw0m9bX2c8Vt4ZpR7nJg"] },
      photoPlaces: new PhotoPlaces([6]),
    };
    const send = async () => ({ status: 200, body: "[]" });
    const made = rowTargets(
      ROWS,
      {
        api: { origin: "http://api", keys: { shopper: "s", hooks: "h" }, seeded, send },
        floor: { origin: "http://floor", seeded, send },
      },
      5,
    );
    const byId = (id: string) => made.find((target) => target.id === id) as Target;
    const first = (id: string) => byId(id).flow?.steps[0]?.request({});
    expect(byId("get").headers).toEqual({ Authorization: "Bearer s" });
    expect(byId("deliveries").headers).toEqual({ Authorization: "Bearer h" });
    expect(byId("get-floor-1").headers).toBeUndefined();
    expect([byId("get-floor-1").origin, first("get-floor-1")]).toEqual([
      "http://floor",
      { path: "/v1/pets/7" },
    ]);
    expect([first("get-floor-2"), first("list-floor-2")]).toEqual([
      { path: "/v1/pet-replies/7" },
      { path: "/v1/pet-replies?limit=20" },
    ]);
    expect(first("deliveries")).toEqual(first("deliveries-floor"));
    expect(first("retry")).toEqual({ path: "/v1/webhooks/4/deliveries/9/retry" });
    expect(first("create-floor-2")).toMatchObject({ path: "/v1/pet-inserts" });
    expect(first("by-id")).toEqual({ path: "/v1/pets?id=7" });
    expect(first("by-id-floor-2")).toEqual({ path: "/v1/pet-replies?id=7" });
    expect(first("search-floor-2")?.path).toMatch(/^\/v1\/pet-replies\?q=[a-z]+$/);
    expect(first("delete")).toEqual({ path: "/v1/pets/101" });
    expect(first("category")).toEqual(first("category-floor"));
    // Each edit sends a name nothing has had, so every request writes.
    const [edit, nextEdit] = [first("update"), first("update")];
    expect(edit?.path).toBe("/v1/pets/11");
    expect(nextEdit?.path).toBe("/v1/pets/12");
    expect(edit?.body).not.toEqual(nextEdit?.body);
    expect(first("update-floor-2")?.path).toBe("/v1/pet-replies/11");
    expect(first("category-rename")?.body).not.toEqual(first("category-rename-floor")?.body);
    expect(byId("create").floors).toEqual(["create-floor-1", "create-floor-2"]);
    expect([first("list-profile-floor-2"), first("shelters-floor-2")]).toEqual([
      { path: "/v1/pet-replies?age=young&goodWithChildren=true" },
      { path: "/v1/shelter-replies" },
    ]);
    // Each new shelter is made in the next city, under a name no shelter has had.
    const [shelter, nextShelter] = [first("shelter-churn"), first("shelter-churn")].map(
      (request) => JSON.parse(String(request?.body)) as { name: string; address: object },
    );
    expect(shelter?.name).not.toEqual(nextShelter?.name);
    expect(shelter?.address).not.toEqual(nextShelter?.address);
    expect([
      byId("list").rounds,
      byId("list-status").rounds,
      byId("list-status-floor").rounds,
    ]).toEqual([undefined, 5, 5]);
  });

  it("load the hot rows every round and the others in their first rounds, each beside its floors", () => {
    expect(names(pairedPlan(targets, 0)).slice(0, 9)).toEqual([
      "list-floor-1@list",
      "list",
      "list-floor-2@list",
      "get-floor-1@get",
      "get",
      "get-floor-2@get",
      "create-floor-1@create",
      "create",
      "create-floor-2@create",
    ]);
    // The next round: each endpoint's floors swap sides, and the order rotates.
    expect(names(pairedPlan(targets, 1)).slice(0, 8)).toEqual([
      "get-floor-2@get",
      "get",
      "get-floor-1@get",
      "create-floor-2@create",
      "create",
      "create-floor-1@create",
      "list-status",
      "list-status-floor@list-status",
    ]);
    // Three hot rows and six others of two floors each, twenty-four others of one.
    expect(pairedPlan(targets, 1)).toHaveLength(3 * 3 + 6 * 3 + 24 * 2);
    expect(names(pairedPlan(targets, 2))).toEqual([
      "create-floor-1@create",
      "create",
      "create-floor-2@create",
      "list-floor-1@list",
      "list",
      "list-floor-2@list",
      "get-floor-1@get",
      "get",
      "get-floor-2@get",
    ]);
  });

  it("fit the default run's load into its budget", () => {
    const { settings, otherRounds, deadlineMs } = parseBenchOptions([]);
    // Thirty other rows: more than three rounds hold, no more than two do.
    expect([settings.rounds, otherRounds, settings.durationSeconds]).toEqual([9, 2, 2]);
    // Warm-ups of 75 slots, two rounds of all 75, seven of the nine hot slots.
    const seconds = loadSeconds(plannedRowTargets(otherRounds), settings, { paired: true });
    expect(seconds).toBe(75 * 1 + (2 * 75 + 7 * 9) * 2);
    expect(seconds + 150).toBeLessThan(deadlineMs / 1000);
    expect(() => parseBenchOptions(["--rounds", "20"])).toThrow(/would not fit/);
    expect(() => parseBenchOptions(["--other-rounds", "5"])).toThrow(/fewer --rows/);
  });

  it("measure the rows named, in more rounds when fewer are named", () => {
    const { rows, otherRounds } = parseBenchOptions(["--rows", "delete,list,update"]);
    expect([rows, otherRounds]).toEqual([["list", "update", "delete"], 5]);
    expect(parseBenchOptions([]).rows).toEqual(ROWS.map((row) => row.id));
    expect(parseBenchOptions(["--profile"]).rows).toEqual(["list", "get", "create"]);
    expect(() => parseBenchOptions(["--rows", "list,nothing"])).toThrow(/no row nothing/);
    expect(() => parseBenchOptions(["--profile", "--rows", "get,nothing"])).toThrow(
      /no row nothing/,
    );
  });
});

describe("the report", () => {
  const targets = plannedRowTargets(5);

  it("divides each endpoint by each of its floors' loads beside it, in throughput and in CPU", () => {
    const rows = summarise(targets, [
      sample("create-floor-1", 1, 200, 2, "create"),
      sample("create", 1, 180, 2.4),
      sample("create-floor-2", 1, 300, 1.2, "create"),
      sample("create-floor-1", 2, 100, 2, "create"),
      sample("create", 2, 80, 2.2),
      sample("create-floor-2", 2, 160, 1.1, "create"),
    ]);
    const create = rows.find((row) => row.target === "create");
    const [batch, insert] = create?.comparisons ?? [];
    expect(batch?.throughput).toBeCloseTo(0.85);
    expect(batch?.throughputBand).toEqual({ min: 0.8, max: 0.9 });
    expect(batch?.cpu).toBeCloseTo(1.15);
    expect(insert?.throughput).toBeCloseTo(0.55);
    expect(insert?.floorCpuMsPerRequest).toBeCloseTo(1.15);
    expect(create?.cpuMsPerRequest).toBeCloseTo(2.3);
  });

  it("prints a line per endpoint and floor, with the floor's own figures beside it", () => {
    const rows = summarise(targets, [
      sample("get-floor-1", 1, 500, 1.5, "get"),
      sample("get", 1, 450, 1.8),
      sample("get-floor-2", 1, 480, 1.6, "get"),
    ]);
    const lines = formatRows(rows.filter((row) => row.target.startsWith("get")));
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(
      /^GET \/v1\/pets\/\{id\} +450 +4\.4 +findPet's query +500 +0\.90 \(0\.90–0\.90\) +1\.800 +1\.500 +1\.20 \(1\.20–1\.20\) +500 +500 +0$/,
    );
    expect(lines[3]).toMatch(
      /^GET \/v1\/pets\/\{id\} +450 +4\.4 +findPet's query, sending the API's headers +480 +0\.94 \(0\.94–0\.94\) +1\.800 +1\.600 +1\.13 /,
    );
  });
});

describe("the animal walk", () => {
  it("hands out the seeded animals once each, in order, and never more than are left", () => {
    const walk = new AnimalWalk(3, 12);
    expect(walk.requestBudget(2, 2)).toBe(2 * (10 - 4));
    expect([walk.nextPetId(), walk.nextPetId(), walk.nextPetId()]).toEqual([3, 4, 5]);
    expect(walk.requestBudget(2, 2)).toBe(2 * (7 - 4));
    expect(walk.requestBudget(4, 2)).toBe(0);
    for (let id = 6; id <= 12; id++) expect(walk.nextPetId()).toBe(id);
    expect(() => walk.nextPetId()).toThrow(/ran out/);
  });
});
