import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { seedKey } from "../support/keys.ts";
import { Contract } from "../support/openapi-contract.ts";
import { runs as numRuns, seed } from "../support/property.ts";
import { api, postJson } from "../support/request.ts";
import { receiverUrl, uniqueName } from "../support/webhooks.ts";

/*
 * The document and the server must agree on every input: what a client
 * generated from the document would send, the server accepts, and what the
 * document forbids, the server refuses. Generated inputs go to both, the
 * document's own schemas read by a JSON Schema validator and the running
 * Worker, and any disagreement in either direction fails with its example.
 */

const TIMEOUT_MS = 240_000;

let key: string;
let contract: Contract;
const tally = { bothAccept: 0, bothRefuse: 0 };

beforeAll(async () => {
  ({ key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e9 } }));
  contract = await Contract.load();
});

/** Characters near every edge the rules draw: white space, controls, surrogates, astral planes. */
const edgeCharacter = fc.constantFrom(
  " ",
  "\t",
  "\n",
  "\u000b",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2003",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u0000",
  "\u001b",
  "\u007f",
  "\u009f",
  "\u00a1",
  "\ud800",
  "\udfff",
  "\ud83d",
  "🐕",
  "é",
  "R",
  "x",
  "\\",
  '"',
);

const name = fc.oneof(
  fc.string({ unit: "binary", maxLength: 120 }),
  fc.string({ unit: edgeCharacter, minLength: 0, maxLength: 8 }),
  fc
    .tuple(fc.constantFrom("🐕", "a", "é"), fc.integer({ min: 98, max: 102 }))
    .map(([char, n]) => char.repeat(n)),
  fc.jsonValue(),
);

const identifier = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(9007199254740991, 9007199254740992, 2 ** 63, 1.5, -0, 1e21),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.constant(null),
);

const status = fc.oneof(
  fc.constantFrom("available", "pending", "sold", "Sold", "", "available "),
  fc.jsonValue(),
);

/** A body a careful client would send, to be broken in one place or not at all. */
const wellFormedPet = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 100 }).filter((text) => text.trim() !== ""),
    categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    status: fc.constantFrom("available", "pending", "sold"),
  },
  { requiredKeys: ["name", "categoryId"] },
);

const newPet = fc.oneof(
  wellFormedPet,
  fc
    .tuple(wellFormedPet, fc.constantFrom("name", "categoryId", "status"), name)
    .map(([body, field, value]) => ({ ...body, [field]: value })),
  fc.record(
    { name, categoryId: identifier, status, id: identifier, extra: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  fc.record({ name, categoryId: identifier }),
  fc.jsonValue(),
);

/** URLs near every edge the endpoint rules draw, and some far from any. */
const webhookUrl = fc.oneof(
  fc.constantFrom(
    "https://example.com/hook",
    "https://hooks.example.com:8443/petstore?token=abc",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "http://127.0.0.1:8788/hook",
    "http://127.0.0.1",
    "http://localhost:8788/hook",
    "https://127.0.0.1/hook",
    "https://10.1.2.3/hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://user:pw@example.com/hook",
    "https://example.com/#fragment",
    "ftp://example.com/",
  ),
  fc.webUrl({ validSchemes: ["https", "http"], withQueryParameters: true, withFragments: true }),
  fc.webUrl({
    validSchemes: ["https"],
    authoritySettings: { withIPv4: true, withIPv6: true, withPort: true },
  }),
  fc.string({ maxLength: 40 }),
  fc
    .string({ minLength: 2040, maxLength: 2060, unit: fc.constant("a") })
    .map((path) => `https://example.com/${path}`),
);

async function agree(documentSays: boolean, serverSays: boolean, example: unknown) {
  expect(
    serverSays,
    `document ${documentSays ? "accepts" : "refuses"} ${JSON.stringify(example)}`,
  ).toBe(documentSays);
  if (documentSays) tally.bothAccept += 1;
  else tally.bothRefuse += 1;
}

describe(`the document and the server agree (seed ${seed}, ${numRuns} runs each)`, () => {
  it(
    "on createPet bodies",
    async () => {
      const { path, method } = contract.operation("createPet");
      const pointer = `/paths/${path.replace(/\//g, "~1")}/${method}/requestBody/content/application~1json/schema`;
      await fc.assert(
        fc.asyncProperty(newPet, async (body) => {
          // What travels is JSON: the server and the validator both read it as parsed.
          const sent = JSON.stringify(body) ?? "null";
          const response = await api("/v1/pets", {
            method: "POST",
            key,
            headers: { "Content-Type": "application/json" },
            body: sent,
          });
          const reply = (await response.json()) as { code?: string };
          expect([201, 400, 422]).toContain(response.status);
          // A 422 takes the body as valid: the category it names is missing, not the body wrong.
          if (response.status === 422) expect(reply.code).toBe("unknown_category");
          await agree(contract.accepts(pointer, JSON.parse(sent)), response.status !== 400, body);
        }),
        { seed, numRuns },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "on listPets queries",
    async () => {
      // A query carries text: a client writes the number it means, or the status's name.
      const limit = fc.oneof(
        fc.integer({ min: -2, max: 103 }),
        fc.constantFrom(9007199254740992, 1.5, -0, 1e21, 5.0),
        fc.double(),
      );
      const statusName = fc.oneof(
        fc.constantFrom("available", "pending", "sold", "Sold", "", "available "),
        fc.string({ maxLength: 12 }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.record({ limit, status: statusName }, { requiredKeys: [] }),
          async (query) => {
            const search = new URLSearchParams();
            if (query.limit !== undefined) search.set("limit", String(query.limit));
            if (query.status !== undefined) search.set("status", String(query.status));
            const response = await api(`/v1/pets?${search}`, { key });
            await response.arrayBuffer();
            expect([200, 400]).toContain(response.status);
            // A client sends the values the document describes; the query carries their text.
            const accepted = (name: "limit" | "status") =>
              query[name] === undefined || contract.parameterAccepts("listPets", name, query[name]);
            await agree(accepted("limit") && accepted("status"), response.status === 200, query);
          },
        ),
        { seed, numRuns },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "on createWebhook bodies",
    async () => {
      const { path, method } = contract.operation("createWebhook");
      const pointer = `/paths/${path.replace(/\//g, "~1")}/${method}/requestBody/content/application~1json/schema`;
      const selector = fc.oneof(
        fc.constantFrom(
          "pet.created",
          "pet.status_changed",
          "order.placed",
          "order.completed",
          "order.cancelled",
          "pet.*",
          "order.*",
        ),
        fc.constantFrom("pet", "*", "order.shipped", "PET.*", "", "pet.created "),
        fc.jsonValue(),
      );
      const types = fc.oneof(
        fc.uniqueArray(
          fc.constantFrom(
            "pet.created",
            "pet.status_changed",
            "order.placed",
            "order.completed",
            "order.cancelled",
            "pet.*",
            "order.*",
          ),
          { minLength: 1, maxLength: 7 },
        ),
        fc.array(selector, { maxLength: 9 }),
        fc.jsonValue(),
      );
      const body = fc.oneof(
        fc.record({ url: webhookUrl, types }),
        fc.record({ url: webhookUrl, types, extra: fc.jsonValue() }, { requiredKeys: ["url"] }),
        fc.record({ url: fc.jsonValue(), types }, { requiredKeys: [] }),
        fc.jsonValue(),
      );
      await fc.assert(
        fc.asyncProperty(body, async (candidate) => {
          const sent = JSON.stringify(candidate) ?? "null";
          const response = await api("/v1/webhooks", {
            method: "POST",
            key,
            headers: { "Content-Type": "application/json" },
            body: sent,
          });
          const reply = (await response.json()) as { id?: number };
          expect([201, 400]).toContain(response.status);
          // Stay under the cap of 10 endpoints; none lives long enough to hear an event.
          if (response.status === 201) {
            const deleted = await api(`/v1/webhooks/${reply.id}`, { method: "DELETE", key });
            expect(deleted.status).toBe(204);
            await deleted.arrayBuffer();
          }
          await agree(
            contract.accepts(pointer, JSON.parse(sent)),
            response.status === 201,
            candidate,
          );
        }),
        { seed, numRuns },
      );
    },
    TIMEOUT_MS,
  );

  it("on updateWebhook bodies: one that changes nothing is refused by both", async () => {
    const url = receiverUrl("ok", uniqueName("agreement"));
    const created = await postJson("/v1/webhooks", key, { url, types: ["pet.*"] });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const { path, method } = contract.operation("updateWebhook");
    const pointer = `/paths/${path.replace(/\//g, "~1")}/${method}/requestBody/content/application~1json/schema`;
    for (const body of [{}, { enabled: true }, { types: ["pet.*"] }]) {
      const response = await api(`/v1/webhooks/${id}`, { method: "PATCH", key, json: body });
      expect([200, 400]).toContain(response.status);
      await response.arrayBuffer();
      await agree(contract.accepts(pointer, body), response.status === 200, body);
    }
    const deleted = await api(`/v1/webhooks/${id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
  });

  it(
    "on listEvents queries",
    async () => {
      const type = fc.oneof(
        fc.constantFrom(
          "pet.created",
          "pet.status_changed",
          "order.placed",
          "order.completed",
          "order.cancelled",
          "pet.*",
          "order.*",
        ),
        fc.constantFrom("pet", "*", "order.shipped", "PET.*", "", "pet.created ", "pet.%2A"),
        fc.string({ maxLength: 16 }),
      );
      const limit = fc.oneof(
        fc.integer({ min: -2, max: 103 }),
        fc.constantFrom(1.5, 1e21, -0),
        fc.double(),
      );
      await fc.assert(
        fc.asyncProperty(fc.record({ limit, type }, { requiredKeys: [] }), async (query) => {
          const search = new URLSearchParams();
          if (query.limit !== undefined) search.set("limit", String(query.limit));
          if (query.type !== undefined) search.set("type", query.type);
          const response = await api(`/v1/events?${search}`, { key });
          await response.arrayBuffer();
          expect([200, 400]).toContain(response.status);
          const accepted = (name: "limit" | "type") =>
            query[name] === undefined || contract.parameterAccepts("listEvents", name, query[name]);
          await agree(accepted("limit") && accepted("type"), response.status === 200, query);
        }),
        { seed, numRuns: Math.ceil(numRuns / 2) },
      );
    },
    TIMEOUT_MS,
  );

  it("saw both answers many times", () => {
    expect(tally.bothAccept).toBeGreaterThan(numRuns / 10);
    expect(tally.bothRefuse).toBeGreaterThan(numRuns / 10);
    console.log(
      `agreement: ${tally.bothAccept} accepted by both, ${tally.bothRefuse} refused by both`,
    );
  });
});
