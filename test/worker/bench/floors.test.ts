import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { CALLERS, type Caller, callerAccountsSql, floorKeysSql } from "../../bench/callers.ts";
import floorWorker from "../../bench/floor/floor-worker.ts";
import { SHELTER_REPLIES_PATH, WITH_HEADERS_PATH } from "../../bench/floor-paths.ts";
import { type Body, encoded, type Send } from "../../bench/flows.ts";
import type { Seeded } from "../../bench/row-kinds.ts";
import { ROWS } from "../../bench/rows.ts";
import {
  AnimalWalk,
  type AnimalWalks,
  departingAnimalsSql,
  orderAnimalsSql,
  shopperSheltersSql,
} from "../../bench/seeded-animals.ts";
import { type Exchange, seed, sendUnit } from "../../bench/seeding.ts";
import { NEAR_QUERY, PROFILE_QUERY } from "../../bench/shelter-rows.ts";
import { seedKey } from "../support/keys.ts";
import { Contract } from "../support/openapi-contract.ts";
import { recordingD1 } from "../support/recording-d1.ts";
import { api, ORIGIN } from "../support/request.ts";
import { receiverUrl } from "../support/webhooks.ts";

/**
 * Every bench row's requests, sent as the bench sends them: to the API with
 * the caller's key, and to the floor Worker without one. The floor acts for
 * the keys its database holds; here the test's keys belong to the same
 * accounts, so both see the same orders and endpoints.
 */

/** Animals to order, ids 1 to 40; then animals to delete, ids 41 to 60: half of each for either side. */
const ANIMALS = 40;
const DEPARTING = 20;
let contract: Contract;
let keys: Record<Caller, string>;
let onApi: Seeded;
let onFloor: Seeded;

/** A body as sent: its Content-Type header and its payload. */
function content(body: Body | undefined): { headers: Record<string, string>; body?: BodyInit } {
  if (body === undefined) return { headers: {} };
  const { contentType, payload } = encoded(body);
  return { headers: { "Content-Type": contentType }, body: payload };
}

/** A body as text, decoded as text() does; text() of a photo's bytes makes workerd warn about their type. */
async function bodyText(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

/** Sends to the API with the caller's key; with `bindings`, over those in place of the real ones. */
const apiSender =
  (bindings?: Partial<Env>): Send =>
  async ({ caller, method, path, body }) => {
    const init = { method, key: keys[caller], ...content(body) };
    const response = await api(path, bindings ? { ...init, bindings } : init);
    return { status: response.status, body: await bodyText(response) };
  };

/** The floor Worker's answer, its body read and what it left running done. */
async function floorAnswer(request: Request, bindings?: Partial<Env>) {
  const ctx = createExecutionContext();
  const response = await floorWorker.fetch(request, { ...env, ...bindings }, ctx);
  const text = await bodyText(response);
  await waitOnExecutionContext(ctx);
  return { response, text };
}

/** Sends to the floor Worker, without a key; with `bindings`, over those in place of the real ones. */
const floorSender =
  (bindings?: Partial<Env>): Send =>
  async ({ method, path, body }) => {
    const request = new Request(`${ORIGIN}${path}`, { method, ...content(body) });
    const { response, text } = await floorAnswer(request, bindings);
    return { status: response.status, body: text };
  };

const sendToApi = apiSender();
const sendToFloor = floorSender();

/** The documented operation a request of the API is, by its method and path. */
function operationOf({ method, path }: Exchange): string {
  const bare = path.replace(/^\/v1/, "").replace(/\?.*$/, "");
  for (const [template, item] of Object.entries(contract.document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const operation = item[method.toLowerCase()];
    if (pattern.test(bare) && operation) return operation.operationId;
  }
  throw new Error(`the document has no ${method} ${path}`);
}

/** Whether a body is one the operation documents for that status. */
function documented(operationId: string, { status, body }: Exchange): boolean {
  const { method, path } = contract.operation(operationId);
  const escaped = path.replace(/~/g, "~0").replace(/\//g, "~1");
  const pointer = `/paths/${escaped}/${method}/responses/${status}/content/application~1json/schema`;
  return body === "" || contract.accepts(pointer, JSON.parse(body));
}

/** One side's half of the animals to order and of those to delete. */
function walksOf(side: 0 | 1): AnimalWalks {
  const half = (first: number, count: number) =>
    new AnimalWalk(first + (side * count) / 2, first - 1 + ((side + 1) * count) / 2);
  return { adoptable: half(1, ANIMALS), departing: half(ANIMALS + 1, DEPARTING) };
}

/** Runs SQL of the bench's, statement by statement. */
async function execute(sql: string): Promise<void> {
  const statements = sql.split(";\n").filter((statement) => statement.trim() !== "");
  await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
}

beforeAll(async () => {
  contract = await Contract.load();
  // As the bench prepares the floor's database: the animals to order, the accounts, the
  // shopper's shelters, the animals to delete, and the keys the floor acts for.
  const departing = departingAnimalsSql(ANIMALS + 1, ANIMALS + DEPARTING);
  const shelters = shopperSheltersSql();
  const accounts = callerAccountsSql();
  await execute(
    [orderAnimalsSql(ANIMALS), accounts, shelters, departing, floorKeysSql()].join("\n"),
  );
  const [shopper, hooks] = await Promise.all(
    (["shopper", "hooks"] as const).map((caller) => seedKey({ account: CALLERS[caller].email })),
  );
  keys = { shopper: shopper?.key ?? "", hooks: hooks?.key ?? "" };
  const hookUrl = receiverUrl("ok", "bench-floors");
  const counts = { pets: 3, orders: 2, editable: 2, categories: 2, photoPets: 2 };
  // One database here: each side orders and deletes animals of its own.
  onApi = await seed(sendToApi, counts, walksOf(0), hookUrl);
  onFloor = await seed(sendToFloor, counts, walksOf(1), hookUrl);
});

describe("each floor", () => {
  for (const row of ROWS) {
    it(`answers as ${row.label} does: its status, and a body its documented schema takes`, async () => {
      const endpoint = await sendUnit(sendToApi, row.caller, row.flow(onApi).steps);
      for (const floor of row.floors) {
        const flow = (floor.flow ?? row.flow)(onFloor);
        const answers = await sendUnit(sendToFloor, row.caller, flow.steps);
        expect(answers.map((answer) => answer.status)).toEqual(endpoint.map((e) => e.status));
        endpoint.forEach((exchange, i) => {
          const answer = answers[i] as Exchange;
          // Outside /v1 (a photo's bytes) there is no operation: the floor serves the same bytes.
          if (!exchange.path.startsWith("/v1/")) {
            expect(answer.body).toBe(exchange.body);
            return;
          }
          const operationId = operationOf(exchange);
          expect(documented(operationId, exchange), `${operationId} on the API`).toBe(true);
          expect(documented(operationId, answer), `${operationId} on the floor`).toBe(true);
        });
      }
    });
  }
});

describe("the floor", () => {
  it("sends D1 the very batches the endpoint sends, for every change a row makes", async () => {
    const changes = [
      ...["create", "update", "delete", "category-churn", "category-rename", "shelter-churn"],
    ];
    const others = ["adopt", "cancel", "webhook-churn", "webhook-rotate", "photo-upload"];
    for (const id of [...changes, ...others]) {
      const row = ROWS.find((candidate) => candidate.id === id);
      if (!row) throw new Error(`no row ${id}`);
      const sent: string[][] = [];
      const floored: string[][] = [];
      await sendUnit(apiSender({ DB: recordingD1(sent) }), row.caller, row.flow(onApi).steps);
      const flow = row.flow(onFloor);
      await sendUnit(floorSender({ DB: recordingD1(floored) }), row.caller, flow.steps);
      expect(sent.length, id).toBeGreaterThan(0);
      expect(floored, id).toEqual(sent);
    }
  });

  it("acts for the callers' keys its database holds: their accounts' orders and endpoints", async () => {
    const [order] = onFloor.orders;
    const placed = await sendToFloor({
      caller: "shopper",
      method: "GET",
      path: `/v1/store/orders/${order}`,
    });
    expect(JSON.parse(placed.body)).toMatchObject({ id: order, status: "placed" });
    // The API's order is the same account's: the floor finds it too.
    const theApis = await sendToFloor({
      caller: "shopper",
      method: "GET",
      path: `/v1/store/orders/${onApi.orders[0]}`,
    });
    expect(theApis.status).toBe(200);
    const hooks = await sendToFloor({ caller: "hooks", method: "GET", path: "/v1/webhooks" });
    expect((JSON.parse(hooks.body) as { id: number }[]).map((webhook) => webhook.id)).toEqual(
      [...onApi.webhooks, ...onFloor.webhooks].sort((a, b) => a - b),
    );
  });

  it("is tidied after a load cut off between making an endpoint and deleting it", async () => {
    const churn = ROWS.find((row) => row.id === "webhook-churn");
    const [make] = churn?.flow(onFloor).steps ?? [];
    if (!churn?.tidy || !make) throw new Error("the churn row lost its tidy or its steps");
    await sendUnit(sendToFloor, "hooks", [make]);
    // Both sides' endpoints belong to one account here: the seeded ones are both sides'.
    await churn.tidy(sendToFloor, {
      ...onFloor,
      webhooks: [...onApi.webhooks, ...onFloor.webhooks],
    });
    const hooks = await sendToFloor({ caller: "hooks", method: "GET", path: "/v1/webhooks" });
    expect(JSON.parse(hooks.body)).toHaveLength(onApi.webhooks.length + onFloor.webhooks.length);
  });

  it("sends with a page, a find, one animal, an edit and shelters every header the API's replies carry", async () => {
    const [apiPet, floorPet] = [onApi.pets[0], onFloor.pets[0]];
    const [apiEdited, floorEdited] = [onApi.editable[0], onFloor.editable[0]];
    const rename = { method: "PATCH", json: { name: "Headed" } };
    const replies: [string, string, { method?: string; json?: unknown }][] = [
      ["/v1/pets?limit=20", `${WITH_HEADERS_PATH}?limit=20`, {}],
      ["/v1/pets?q=luna", `${WITH_HEADERS_PATH}?q=luna`, {}],
      [`/v1/pets?id=${apiPet}`, `${WITH_HEADERS_PATH}?id=${floorPet}`, {}],
      [`/v1/pets?${PROFILE_QUERY}`, `${WITH_HEADERS_PATH}?${PROFILE_QUERY}`, {}],
      [`/v1/pets?${NEAR_QUERY}&limit=1`, `${WITH_HEADERS_PATH}?${NEAR_QUERY}&limit=1`, {}],
      ["/v1/shelters", SHELTER_REPLIES_PATH, {}],
      ["/v1/shelters?limit=5", `${SHELTER_REPLIES_PATH}?limit=5`, {}],
      [`/v1/pets/${apiPet}`, `${WITH_HEADERS_PATH}/${floorPet}`, {}],
      [`/v1/pets/${apiEdited}`, `${WITH_HEADERS_PATH}/${floorEdited}`, rename],
    ];
    for (const [apiPath, floorPath, { method = "GET", json }] of replies) {
      const endpoint = await api(apiPath, { key: keys.shopper, method, json });
      await endpoint.text();
      const body = json === undefined ? {} : { body: JSON.stringify(json) };
      const { response } = await floorAnswer(
        new Request(`${ORIGIN}${floorPath}`, { method, ...body }),
      );
      expect([response.status, endpoint.status], floorPath).toEqual([200, 200]);
      expect([...response.headers.keys()], floorPath).toEqual([...endpoint.headers.keys()]);
      expect(response.headers.get("Cache-Control")).toBe(endpoint.headers.get("Cache-Control"));
    }
  });

  it("finds by profile, bare and sending the headers, the very page the API finds", async () => {
    const path = `/v1/pets?${PROFILE_QUERY}`;
    const endpoint = await api(path, { key: keys.shopper });
    const found = (await endpoint.json()) as { age: string; goodWithChildren: boolean }[];
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((pet) => pet.age === "young" && pet.goodWithChildren)).toBe(true);
    for (const floorPath of [path, `${WITH_HEADERS_PATH}?${PROFILE_QUERY}`]) {
      const { text } = await floorAnswer(new Request(`${ORIGIN}${floorPath}`));
      expect(JSON.parse(text), floorPath).toEqual(found);
    }
  });

  it("finds near a place, bare and sending the headers, the very page the API finds", async () => {
    const path = `/v1/pets?${NEAR_QUERY}`;
    const endpoint = await api(path, { key: keys.shopper });
    const found = (await endpoint.json()) as { distanceKm: number | null }[];
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((pet) => pet.distanceKm !== null && pet.distanceKm <= 50)).toBe(true);
    for (const floorPath of [path, `${WITH_HEADERS_PATH}?${NEAR_QUERY}`]) {
      const { text } = await floorAnswer(new Request(`${ORIGIN}${floorPath}`));
      expect(JSON.parse(text), floorPath).toEqual(found);
    }
  });

  it("runs a create's whole batch, event and all, and its INSERT alone without one", async () => {
    const pet = { name: "Floored", categoryId: 2 };
    const batch = await sendToFloor({
      caller: "shopper",
      method: "POST",
      path: "/v1/pets",
      body: JSON.stringify(pet),
    });
    const alone = await sendToFloor({
      caller: "shopper",
      method: "POST",
      path: "/v1/pet-inserts",
      body: JSON.stringify(pet),
    });
    const ids = [batch, alone].map((answer) => (JSON.parse(answer.body) as { id: number }).id);
    const { results } = await env.DB.prepare(
      "SELECT json_extract(data, '$.id') AS id FROM events WHERE type = 'pet.created' AND json_extract(data, '$.id') IN (?, ?)",
    )
      .bind(...ids)
      .all<{ id: number }>();
    expect(results).toEqual([{ id: ids[0] }]);
    expect(JSON.parse(alone.body)).toMatchObject({ id: ids[1], ...pet, status: "available" });
  });
});
