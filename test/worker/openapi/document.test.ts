import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.ts";
import { parseConfig } from "../../../src/config.ts";
import { buildOpenApiDocument } from "../../../src/openapi/openapi-document.ts";
import { freshIp } from "../support/assertions.ts";
import {
  inlineReferences,
  type OpenApiDocument,
  type OperationObject,
  type ResponseObject,
} from "../support/openapi-contract.ts";
import { api, ORIGIN, send } from "../support/request.ts";

/** The document as sent, its references as they are. */
async function sent(path = "/v1/openapi.json"): Promise<OpenApiDocument> {
  const response = await api(path);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

/** The document as a reader sees it: its shared responses and headers written out where used. */
async function served(): Promise<OpenApiDocument> {
  return inlineReferences(await sent());
}

/** A scope as DESIGN writes them: a resource, then `read` or `write`. */
const SCOPE = /^[a-z]+:(read|write)$/;

const operations = (document: OpenApiDocument): [string, OperationObject][] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, OperationObject] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );

describe("GET /v1/openapi.json", () => {
  it("is public and carries the request id and private, no-cache", async () => {
    const response = await api("/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(response.headers.get("X-Request-Id")).toBeTruthy();
    expect(response.headers.get("Cache-Control")).toBe("private, no-cache");
    await response.arrayBuffer();
  });

  it("is the document generated from the route schemas, serving origin first among its servers", async () => {
    const document = await sent();
    const built = JSON.parse(
      JSON.stringify(buildOpenApiDocument(parseConfig(env))),
    ) as OpenApiDocument;
    expect({ ...document, servers: built.servers }).toEqual(built);
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(document.servers.map((server) => server.url)).toEqual([
      `${ORIGIN}/v1`,
      env.PRODUCTION_URL,
      env.STAGING_URL,
    ]);
  });

  it("reports the caller's keyless budget without spending it, and is served when it is spent", async () => {
    const ip = freshIp();
    const headers = { "CF-Connecting-IP": ip };
    const first = await api("/v1/openapi.json", { headers });
    await first.arrayBuffer();
    expect(first.headers.get("X-RateLimit-Limit")).toBe("60");
    expect(first.headers.get("X-RateLimit-Remaining")).toBe("60");
    expect(first.headers.get("RateLimit-Policy")).toBe('"minute";q=60;w=60');
    // Until the budget refuses one: 61 in turn may straddle a minute, and the window moves with it.
    let refused = false;
    for (let sent = 0; sent < 200 && !refused; sent++) {
      refused = (await send("/v1/pets", { headers })).status === 429;
    }
    expect(refused).toBe(true);
    const spent = await api("/v1/openapi.json", { headers });
    expect(spent.status).toBe(200);
    expect(spent.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(spent.headers.get("Retry-After")).toBeNull();
    await spent.arrayBuffer();
  });

  it("documents exactly the operations the app serves", async () => {
    const app = createApp();
    const servedRoutes = app.openAPIRegistry.definitions
      .flatMap((definition) => (definition.type === "route" ? [definition.route] : []))
      .map((route) => `${route.method.toUpperCase()} ${route.path.replace(/^\/v1/, "")}`)
      .sort();
    const documented = operations(await served())
      .map(([name]) => name)
      .sort();
    expect(documented).toEqual(servedRoutes);
    expect(documented).toEqual([
      "DELETE /categories/{categoryId}",
      "DELETE /pets/{petId}",
      "DELETE /pets/{petId}/photos/{photoId}",
      "DELETE /shelters/{shelterId}",
      "DELETE /webhooks/{webhookId}",
      "GET /categories",
      "GET /categories/{categoryId}",
      "GET /events",
      "GET /pets",
      "GET /pets/{petId}",
      "GET /pets/{petId}/photos",
      "GET /shelters",
      "GET /shelters/{shelterId}",
      "GET /store/orders",
      "GET /store/orders/{orderId}",
      "GET /webhooks",
      "GET /webhooks/{webhookId}",
      "GET /webhooks/{webhookId}/deliveries",
      "PATCH /categories/{categoryId}",
      "PATCH /pets/{petId}",
      "PATCH /shelters/{shelterId}",
      "PATCH /webhooks/{webhookId}",
      "POST /categories",
      "POST /pets",
      "POST /pets/{petId}/photos",
      "POST /shelters",
      "POST /store/orders",
      "POST /store/orders/{orderId}/cancel",
      "POST /store/orders/{orderId}/complete",
      "POST /webhooks",
      "POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry",
      "POST /webhooks/{webhookId}/recover",
      "POST /webhooks/{webhookId}/rotate-secret",
      "POST /webhooks/{webhookId}/test",
    ]);
  });

  it("marks managing animals and their photos, categories, shelters, events and webhooks beta, each under its tag", async () => {
    const document = (await served()) as OpenApiDocument & { tags: { name: string }[] };
    const beta = operations(document).filter(
      ([, operation]) => operation["x-stability"] === "beta",
    );
    expect(
      beta.map(([, operation]) => [operation.operationId, (operation as { tags?: string[] }).tags]),
    ).toEqual([
      ["updatePet", ["pets"]],
      ["deletePet", ["pets"]],
      ["addPetPhoto", ["pets"]],
      ["listPetPhotos", ["pets"]],
      ["deletePetPhoto", ["pets"]],
      ["listCategories", ["categories"]],
      ["createCategory", ["categories"]],
      ["getCategory", ["categories"]],
      ["updateCategory", ["categories"]],
      ["deleteCategory", ["categories"]],
      ["listShelters", ["shelters"]],
      ["createShelter", ["shelters"]],
      ["getShelter", ["shelters"]],
      ["updateShelter", ["shelters"]],
      ["deleteShelter", ["shelters"]],
      ["listEvents", ["events"]],
      ["createWebhook", ["webhooks"]],
      ["listWebhooks", ["webhooks"]],
      ["getWebhook", ["webhooks"]],
      ["updateWebhook", ["webhooks"]],
      ["deleteWebhook", ["webhooks"]],
      ["listDeliveries", ["webhooks"]],
      ["testWebhook", ["webhooks"]],
      ["retryDelivery", ["webhooks"]],
      ["recoverWebhook", ["webhooks"]],
      ["rotateWebhookSecret", ["webhooks"]],
    ]);
    expect(document.tags.map((tag) => tag.name)).toEqual([
      "pets",
      "categories",
      "shelters",
      "store",
      "events",
      "webhooks",
    ]);
    const create = operations(document).find(([name]) => name === "POST /webhooks")?.[1];
    expect(Object.keys(create?.responses ?? {}).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
  });

  it("describes the request each kind of event arrives as, under `webhooks`", async () => {
    const document = (await served()) as OpenApiDocument & {
      webhooks: Record<string, { post: Record<string, unknown> }>;
    };
    const kinds = [
      "pet.created",
      "pet.updated",
      "pet.status_changed",
      "pet.deleted",
      "category.created",
      "category.updated",
      "category.deleted",
      "shelter.created",
      "shelter.updated",
      "shelter.deleted",
      "order.placed",
      "order.completed",
      "order.cancelled",
      "webhook.test",
    ];
    expect(Object.keys(document.webhooks)).toEqual(kinds);
    const schemas = [
      "PetCreatedEvent",
      "PetUpdatedEvent",
      "PetStatusChangedEvent",
      "PetDeletedEvent",
      "CategoryCreatedEvent",
      "CategoryUpdatedEvent",
      "CategoryDeletedEvent",
      "ShelterCreatedEvent",
      "ShelterUpdatedEvent",
      "ShelterDeletedEvent",
      "OrderPlacedEvent",
      "OrderCompletedEvent",
      "OrderCancelledEvent",
      "TestEvent",
    ];
    kinds.forEach((kind, index) => {
      const post = document.webhooks[kind]?.post as {
        "x-stability": string;
        parameters: { name: string; in: string; required: boolean }[];
        requestBody: { content: Record<string, { schema: { $ref: string } }> };
        responses: Record<string, unknown>;
      };
      expect(post["x-stability"]).toBe("beta");
      expect(
        post.parameters.map((parameter) => [parameter.name, parameter.in, parameter.required]),
      ).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true],
      ]);
      expect(post.requestBody.content["application/json"]?.schema.$ref).toBe(
        `#/components/schemas/${schemas[index]}`,
      );
      expect(Object.keys(post.responses)).toEqual(["2XX", "default"]);
    });
    expect(document.components.schemas.PetStatusChangedEvent).toMatchObject({
      required: ["id", "type", "createdAt", "data", "previousStatus"],
    });
    expect(document.components.schemas.PetCreatedEvent).toMatchObject({
      required: ["id", "type", "createdAt", "data"],
    });
  });

  it("states the endpoint URL rules of the environment that serves it", () => {
    const urlPattern = (allow: string) => {
      const built = JSON.parse(
        JSON.stringify(
          buildOpenApiDocument(parseConfig({ ...env, WEBHOOK_ALLOW_LOOPBACK_HTTP: allow })),
        ),
      ) as OpenApiDocument;
      const schema = built.components.schemas.NewWebhook as {
        properties: { url: { $ref: string } };
      };
      // The long pattern is stated once, in the schema both bodies reference.
      const name = schema.properties.url.$ref.replace("#/components/schemas/", "");
      return built.components.schemas[name] as { pattern: string; description: string };
    };
    const local = urlPattern("true");
    const production = urlPattern("false");
    const accepts = (url: { pattern: string }, text: string) =>
      new RegExp(url.pattern, "u").test(text);
    expect(accepts(local, "http://127.0.0.1:8788/hook")).toBe(true);
    expect(accepts(production, "http://127.0.0.1:8788/hook")).toBe(false);
    expect(accepts(production, "https://example.com/hook")).toBe(true);
    expect(local.description).toContain("http://127.0.0.1");
    expect(production.description).not.toContain("http://127.0.0.1");
    expect(production.description).toContain("cannot be detected");
  });

  it("states the delivery timeout and retry schedule the configuration sets", async () => {
    const deployed = {
      WEBHOOK_RETRY_DELAYS: "30,120,600,3600,21600,43200",
      WEBHOOK_TIMEOUT_MS: "10000",
    };
    const shortened = { WEBHOOK_RETRY_DELAYS: "5,90", WEBHOOK_TIMEOUT_MS: "2500" };
    const response = await api("/v1/openapi.json", { bindings: shortened });
    expect(response.status).toBe(200);
    type Described = {
      tags: { name: string; description: string }[];
      webhooks: Record<string, { post: { description: string; responses: DeliveryAnswers } }>;
    };
    type DeliveryAnswers = Record<string, { description: string }>;
    // What a receiver answers is a response the deliveries share: written out where used.
    const served = inlineReferences(
      (await response.json()) as OpenApiDocument,
    ) as unknown as Described;
    const built = inlineReferences(
      buildOpenApiDocument(parseConfig({ ...env, ...deployed })) as unknown as OpenApiDocument,
    ) as unknown as Described;
    const texts = (document: Described) => {
      const tag = document.tags.find((candidate) => candidate.name === "webhooks");
      const delivery = document.webhooks["pet.created"]?.post;
      return [tag?.description, delivery?.description, delivery?.responses.default?.description];
    };
    const [servedTag, servedDelivery, servedDefault] = texts(served);
    const [builtTag, builtDelivery, builtDefault] = texts(built);
    // The rules are stated once, in the tag, which each kind's delivery refers to.
    expect(servedTag).toContain("Any 2xx within 2.5 s is success");
    expect(servedTag).toContain(
      "is retried after about 5 s and 90 s, then the delivery has failed",
    );
    expect(servedDefault).toContain("no answer within 2.5 s");
    expect(builtTag).toContain("Any 2xx within 10 s is success");
    expect(builtTag).toContain(
      "is retried after about 30 s, 2 min, 10 min, 1 h, 6 h and 12 h, then the delivery has failed",
    );
    expect(builtDefault).toContain("no answer within 10 s");
    for (const text of [servedDelivery, builtDelivery]) {
      expect(text).toContain("as the `webhooks` tag describes");
    }
  });

  it("marks the store's operations experimental under the `store` tag, with the state table", async () => {
    const document = (await served()) as OpenApiDocument & {
      tags: { name: string; description: string }[];
    };
    const store = operations(document).filter(([name]) => name.includes("/store/"));
    expect(store.map(([, operation]) => operation.operationId).sort()).toEqual([
      "cancelOrder",
      "completeOrder",
      "getOrder",
      "listOrders",
      "placeOrder",
    ]);
    const rows = [
      "| (none) | `POST /store/orders` (`placeOrder`) | the animal is `available` | `placed` | `available` → `pending` |",
      "| `placed` | `POST /store/orders/{orderId}/complete` (`completeOrder`) | — | `completed` | `pending` → `sold` |",
      "| `placed` | `POST /store/orders/{orderId}/cancel` (`cancelOrder`) | — | `cancelled` | `pending` → `available` |",
    ];
    for (const [name, operation] of store) {
      expect(operation["x-stability"], name).toBe("experimental");
      expect((operation as { tags?: string[] }).tags, name).toEqual(["store"]);
    }
    for (const [name, operation] of store.filter(([name]) => name.startsWith("POST"))) {
      const description = (operation as { description?: string }).description ?? "";
      for (const row of rows) expect(description, name).toContain(row);
    }
    const tag = document.tags.find((candidate) => candidate.name === "store");
    for (const row of rows) expect(tag?.description).toContain(row);
    expect(document.components.schemas.OrderStatus).toMatchObject({
      enum: ["placed", "completed", "cancelled"],
    });
    const place = store.find(([name]) => name === "POST /store/orders")?.[1];
    expect(Object.keys(place?.responses ?? {}).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(place?.responses["201"]?.headers?.Location?.required).toBe(true);
    expect(place?.responses["201"]?.headers?.["Idempotent-Replayed"]?.required).toBe(false);
  });

  it("names the operations, marks getPet deprecated and every operation's stability", async () => {
    const document = await served();
    const byName = Object.fromEntries(operations(document));
    expect(byName["GET /pets"]?.operationId).toBe("listPets");
    expect(byName["POST /pets"]?.operationId).toBe("createPet");
    const getPet = byName["GET /pets/{petId}"];
    expect(getPet?.operationId).toBe("getPet");
    expect(getPet?.deprecated).toBe(true);
    expect((getPet as { description?: string } | undefined)?.description).toContain("2030");
    for (const [, operation] of operations(document)) {
      expect(["stable", "beta", "experimental"]).toContain(operation["x-stability"]);
      expect(operation.security).toEqual([{ bearerAuth: [expect.stringMatching(SCOPE)] }]);
      expect(operation.responses["401"]?.headers?.["WWW-Authenticate"]).toBeDefined();
      expect(operation.responses["429"]?.headers?.["Retry-After"]).toBeDefined();
    }
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("documents on every operation the 403 a key meets without its scope or from elsewhere", async () => {
    const document = await served();
    for (const [name, operation] of operations(document)) {
      const forbidden = operation.responses["403"] as
        | (ResponseObject & { content: { "application/json": { examples: object } } })
        | undefined;
      const codes = Object.keys(forbidden?.content["application/json"].examples ?? {});
      expect(codes, name).toEqual(
        expect.arrayContaining(["insufficient_scope", "address_not_allowed"]),
      );
      expect(forbidden?.headers?.["WWW-Authenticate"]?.required, name).toBe(false);
    }
  });

  it("states the parameter constraints the validators enforce", async () => {
    const document = await served();
    const parameters = Object.fromEntries(
      operations(document).flatMap(([, operation]) =>
        (operation.parameters ?? []).map((parameter) => [parameter.name, parameter]),
      ),
    );
    expect(parameters.limit?.schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(parameters.cursor?.schema).toMatchObject({ type: "string" });
    expect(parameters.petId).toMatchObject({
      in: "path",
      required: true,
      schema: { type: "integer", format: "int64", minimum: 1, maximum: 9007199254740991 },
    });
    expect(parameters["Idempotency-Key"]).toMatchObject({
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
    expect(document.components.schemas.PetStatus).toMatchObject({
      enum: ["available", "pending", "sold"],
    });
  });

  it("gives an example for every named schema", async () => {
    const document = await served();
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      expect(schema, name).toHaveProperty("example");
    }
  });

  it("answers 405 to other methods", async () => {
    const response = await api("/v1/openapi.json", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBe("GET, HEAD");
    await response.arrayBuffer();
  });
});

describe("GET /docs", () => {
  it("is a public page that loads this Worker's renderer under script-src 'self', and links the document without scripts", async () => {
    const response = await api("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
    const policy = response.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain("<title>Pet Store API reference</title>");
    expect(html).toMatch(/<script src="\/reference\/standalone\.[0-9a-f]{16}\.js"><\/script>/);
    expect(html).toContain('data-url="/v1/openapi.json"');
    expect(html).toMatch(/<noscript>[\s\S]*<a href="\/v1\/openapi.json">/);
    // Nothing on the page points at another host.
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("answers 405 to other methods", async () => {
    const response = await api("/docs", { method: "DELETE" });
    expect(response.status).toBe(405);
    await response.arrayBuffer();
  });
});
