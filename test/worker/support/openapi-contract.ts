import { type Schema, Validator } from "@cfworker/json-schema";
import { expect } from "vitest";
import { errorStatus } from "../../../src/errors.ts";
import { SCOPES, type Scope } from "../../../src/scopes.ts";
import { seedKey } from "./keys.ts";
import { api } from "./request.ts";

/** The parts of an OpenAPI 3.1 document the contract checks read. */
export interface HeaderObject {
  required?: boolean;
  schema: Schema;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema: Schema }>;
}
export interface OperationObject {
  operationId: string;
  deprecated?: boolean;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  responses: Record<string, ResponseObject>;
  "x-stability"?: string;
}
export interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, unknown>;
    responses?: Record<string, unknown>;
    headers?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
    examples?: Record<string, unknown>;
  };
}

/**
 * Each operation's scope, as the contract's table of least privilege assigns
 * them: what the route tables must declare and the document state.
 */
export const OPERATION_SCOPES: Record<string, Scope> = {
  listPets: "pets:read",
  getPet: "pets:read",
  createPet: "pets:write",
  updatePet: "pets:write",
  deletePet: "pets:write",
  listPetPhotos: "pets:read",
  addPetPhoto: "pets:write",
  deletePetPhoto: "pets:write",
  listCategories: "pets:read",
  getCategory: "pets:read",
  createCategory: "pets:write",
  updateCategory: "pets:write",
  deleteCategory: "pets:write",
  listShelters: "pets:read",
  createShelter: "pets:write",
  getShelter: "pets:read",
  updateShelter: "pets:write",
  deleteShelter: "pets:write",
  listOrders: "orders:read",
  getOrder: "orders:read",
  placeOrder: "orders:write",
  completeOrder: "orders:write",
  cancelOrder: "orders:write",
  listEvents: "events:read",
  listWebhooks: "webhooks:read",
  getWebhook: "webhooks:read",
  listDeliveries: "webhooks:read",
  createWebhook: "webhooks:write",
  updateWebhook: "webhooks:write",
  deleteWebhook: "webhooks:write",
  testWebhook: "webhooks:write",
  retryDelivery: "webhooks:write",
  recoverWebhook: "webhooks:write",
  rotateWebhookSecret: "webhooks:write",
};

/** The operations of animals' photos, swept by contract-photos.test.ts rather than contract.test.ts. */
export const PHOTO_OPERATIONS = ["addPetPhoto", "listPetPhotos", "deletePetPhoto"];

/** The operations that manage the catalogue, swept by contract-catalogue.test.ts rather than contract.test.ts. */
export const CATALOGUE_OPERATIONS = [
  "updatePet",
  "deletePet",
  "listCategories",
  "getCategory",
  "createCategory",
  "updateCategory",
  "deleteCategory",
  "listShelters",
  "createShelter",
  "getShelter",
  "updateShelter",
  "deleteShelter",
];

const SHARED_PART = /^#\/components\/(responses|headers|parameters|examples)\/([^/]+)$/;

/**
 * The document with every shared response, header, parameter and example
 * written out where it is referenced, as a reader resolving the references
 * sees it (a reference's own description wins). Schema references stay:
 * the validator follows those itself.
 */
export function inlineReferences<D extends OpenApiDocument>(document: D): D {
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== "object" || value === null) return value;
    const reference = (value as { $ref?: unknown }).$ref;
    const [, kind, name] = (typeof reference === "string" && SHARED_PART.exec(reference)) || [];
    if (kind && name) {
      const shared =
        document.components[kind as "responses" | "headers" | "parameters" | "examples"]?.[name];
      if (shared === undefined) throw new Error(`the document has no ${reference}`);
      // A reference may state its own description (OpenAPI 3.1): it wins.
      const { $ref: _, ...overrides } = value as Record<string, unknown>;
      return { ...(inline(shared) as object), ...overrides };
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, inline(inner)]));
  };
  return inline(document) as D;
}

/** The document's own address, the base its `#/…` references resolve against. */
const DOCUMENT_ID = "https://petstore.test/v1/openapi.json";

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The document without its examples, for the validator: examples are data,
 * yet it walks them as schemas, and reads the `id` of an example object
 * (`{ "id": 42, … }`) as a schema identifier, which two examples then share.
 */
function withoutExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExamples);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "example" && key !== "examples")
      .map(([key, inner]) => [key, withoutExamples(inner)]),
  );
}

export interface LocatedOperation {
  method: string;
  path: string;
  operation: OperationObject;
}

/** Checks replies against the document the Worker itself serves, its shared parts written out. */
export class Contract {
  readonly document: OpenApiDocument;
  /** What the validators read: the document less its examples. */
  private readonly schemas: Schema;
  /** Every reply that passed, as `operationId status`, for coverage and the count. */
  readonly validated: string[] = [];
  private readonly validators = new Map<string, Validator>();

  constructor(document: OpenApiDocument) {
    this.document = inlineReferences(document);
    this.schemas = withoutExamples(this.document) as Schema;
  }

  static async load(): Promise<Contract> {
    const response = await api("/v1/openapi.json");
    expect(response.status).toBe(200);
    return new Contract((await response.json()) as OpenApiDocument);
  }

  operation(operationId: string): LocatedOperation {
    for (const [path, item] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.operationId === operationId) return { method, path, operation };
      }
    }
    throw new Error(`the document has no operation ${operationId}`);
  }

  /** A validator for the schema at this JSON pointer, with `$ref`s resolved in the document. */
  private validatorAt(pointer: string): Validator {
    let validator = this.validators.get(pointer);
    if (!validator) {
      validator = new Validator({ $ref: `${DOCUMENT_ID}#${pointer}` }, "2020-12", false);
      validator.addSchema(this.schemas, DOCUMENT_ID);
      this.validators.set(pointer, validator);
    }
    return validator;
  }

  /** Whether the schema at this JSON pointer accepts the value, as any validator reading the document would say. */
  accepts(pointer: string, value: unknown): boolean {
    return this.validatorAt(pointer).validate(value).valid;
  }

  /**
   * Whether the operation's parameter accepts the value. (The validator
   * resolves no pointer into an array, so the parameter's schema is taken
   * out, its references made absolute.)
   */
  parameterAccepts(operationId: string, name: string, value: unknown): boolean {
    const parameter = this.operation(operationId).operation.parameters?.find(
      (candidate) => candidate.name === name,
    );
    if (!parameter) throw new Error(`${operationId} has no parameter ${name}`);
    const absolute = JSON.parse(
      JSON.stringify(parameter.schema).replaceAll('"#/', `"${DOCUMENT_ID}#/`),
    ) as Schema;
    const validator = new Validator(absolute, "2020-12", false);
    validator.addSchema(this.schemas, DOCUMENT_ID);
    return validator.validate(value).valid;
  }

  private assertValid(pointer: string, value: unknown, what: string): void {
    const result = this.validatorAt(pointer).validate(value);
    const errors = result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
    expect(errors, `${what} does not match ${pointer}`).toEqual([]);
  }

  /**
   * Fails unless the reply is one the operation documents: its status is
   * listed, its body matches that status's schema, and every header the
   * document does not mark `required: false` is present with a valid value.
   * Consumes the body; returns it parsed.
   */
  async check(operationId: string, response: Response): Promise<unknown> {
    const { method, path, operation } = this.operation(operationId);
    const status = String(response.status);
    const documented = operation.responses[status];
    expect(
      documented,
      `${operationId} answered ${status}, which the document does not list`,
    ).toBeDefined();
    if (!documented) throw new Error("unreachable");
    const base = `/paths/${escapePointer(path)}/${method}/responses/${status}`;

    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const value = response.headers.get(name);
      if (value === null) {
        expect(header.required, `${operationId} ${status} lacks the ${name} header`).toBe(false);
        continue;
      }
      const typed = (header.schema as { type?: string }).type === "integer" ? Number(value) : value;
      if (typeof typed === "number") {
        expect(value, `${name} is not an integer`).toMatch(/^-?\d+$/);
      }
      this.assertValid(`${base}/headers/${escapePointer(name)}/schema`, typed, `header ${name}`);
    }

    const mediaTypes = Object.keys(documented.content ?? {});
    // Without a documented body, read as bytes: text() of a photo's empty HEAD makes workerd warn.
    const body: unknown =
      mediaTypes.length > 0
        ? await response.json()
        : new TextDecoder().decode(await response.arrayBuffer());
    if (mediaTypes.length > 0) {
      expect(response.headers.get("Content-Type")).toMatch(/^application\/json\b/);
      this.assertValid(
        `${base}/content/application~1json/schema`,
        body,
        `${operationId} ${status}`,
      );
    }
    if (response.status >= 400) this.assertErrorConsistent(response.status, body);
    this.validated.push(`${operationId} ${status}`);
    return body;
  }

  /** For replies outside any operation (405, unknown routes): the Error body alone. */
  async checkError(response: Response): Promise<unknown> {
    const body: unknown = await response.json();
    this.assertValid("/components/schemas/Error", body, `${response.status} reply`);
    this.assertErrorConsistent(response.status, body);
    this.validated.push(`(no operation) ${response.status}`);
    return body;
  }

  /** What the shared Error schema cannot say: the code and `status` agree with the HTTP status. */
  private assertErrorConsistent(status: number, body: unknown): void {
    const { code, status: bodyStatus } = body as { code: keyof typeof errorStatus; status: number };
    expect(bodyStatus).toBe(status);
    expect(errorStatus[code]).toBe(status);
  }

  /**
   * The documented replies (`operationId status`) of the operations `swept`
   * accepts that no check has validated, less those that cannot be produced
   * here: what a contract sweep missed.
   */
  unswept(
    swept: (operationId: string) => boolean,
    notProducible: Record<string, string>,
  ): string[] {
    const covered = new Set(this.validated);
    return this.documentedReplies().filter((reply) => {
      const operationId = reply.slice(0, reply.indexOf(" "));
      return swept(operationId) && !covered.has(reply) && !(reply in notProducible);
    });
  }

  /** `operationId status` for every documented reply. */
  documentedReplies(): string[] {
    return Object.values(this.document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) =>
        Object.keys(operation.responses).map((status) => `${operation.operationId} ${status}`),
      ),
    );
  }
}

/**
 * Drives each operation into the 403s any key can meet, and checks them
 * against the document: sent by a key without the scope its security
 * requirement names, and by a key from outside the ranges it was made with.
 */
export async function sweepKeyRefusals(contract: Contract, operationIds: string[]): Promise<void> {
  const lacking = new Map<string, string>();
  const elsewhere = (await seedKey({ allowedRanges: ["192.0.2.0/24"] })).key;
  for (const operationId of operationIds) {
    const { method, path } = contract.operation(operationId);
    const scope = OPERATION_SCOPES[operationId];
    if (!scope) throw new Error(`${operationId} has no scope in the table`);
    let key = lacking.get(scope);
    if (!key) {
      key = (await seedKey({ scopes: SCOPES.filter((held) => held !== scope) })).key;
      lacking.set(scope, key);
    }
    const url = `/v1${path.replace(/\{\w+\}/g, "1")}`;
    for (const [sender, code] of [
      [key, "insufficient_scope"],
      [elsewhere, "address_not_allowed"],
    ] as const) {
      const reply = await api(url, { method: method.toUpperCase(), key: sender });
      expect(reply.status, `${operationId} ${code}`).toBe(403);
      expect(((await contract.check(operationId, reply)) as { code: string }).code).toBe(code);
    }
  }
}
