import type { OpenAPIHono } from "@hono/zod-openapi";

/** The OpenAPI 3.1 document as the app builds it. */
export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/** A JSON object of the document, of any kind. */
export type JsonObject = Record<string, unknown>;

/** Whether a JSON value is an object (not an array, not null). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Items grouped by a key, in the order each key first appears. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** Each operation of a section (`paths`, `webhooks`): its path item key, method and object. */
export function operationsOf(section: Record<string, unknown> | undefined): JsonObject[] {
  return Object.values(section ?? {}).flatMap((item) =>
    isObject(item) ? Object.values(item).filter(isObject) : [],
  );
}

/** The sections that hold operations: `paths` and `webhooks`. */
export function sectionsOf(document: OpenApiDocument): (Record<string, unknown> | undefined)[] {
  return [document.paths, document.webhooks] as (Record<string, unknown> | undefined)[];
}

/** Rebuilds a section (`paths`, `webhooks`) with each of its operations mapped. */
function mapOperations<S extends Record<string, unknown> | undefined>(
  section: S,
  map: (operation: unknown) => unknown,
): S {
  if (!section) return section;
  return Object.fromEntries(
    Object.entries(section).map(([path, item]) => [
      path,
      isObject(item)
        ? Object.fromEntries(Object.entries(item).map(([method, value]) => [method, map(value)]))
        : item,
    ]),
  ) as S;
}

/**
 * The document's `paths` and `webhooks` with one member of every operation
 * (its `responses`, its `parameters`) rebuilt by `map`, where it has one.
 */
export function mapOperationMember(
  document: OpenApiDocument,
  member: string,
  map: (value: unknown) => unknown,
): Pick<OpenApiDocument, "paths" | "webhooks"> {
  const mapSection = <S extends Record<string, unknown> | undefined>(section: S) =>
    mapOperations(section, (operation) =>
      isObject(operation) && member in operation
        ? { ...operation, [member]: map(operation[member]) }
        : operation,
    );
  return { paths: mapSection(document.paths), webhooks: mapSection(document.webhooks) };
}

/** `base`, or the first of `base-2`, `base-3`… that is not taken. */
export function freeName(base: string, taken: (name: string) => boolean): string {
  let name = base;
  for (let n = 2; taken(name); n++) name = `${base}-${n}`;
  return name;
}

/**
 * What the uses of a shared response or parameter must agree on: all of it
 * but its description, which a reference may state anew (OpenAPI 3.1).
 */
export function bodyText(part: JsonObject): string {
  const { description: _, ...body } = part;
  return JSON.stringify(body);
}

/**
 * A reference to a shared part, with the use's own description where it is
 * not the one stated with the part.
 */
export function referenceTo(
  path: string,
  use: JsonObject,
  stated: JsonObject | undefined,
): { $ref: string; description?: unknown } {
  return use.description === stated?.description
    ? { $ref: path }
    : { $ref: path, description: use.description };
}
