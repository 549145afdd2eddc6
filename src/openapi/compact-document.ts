import type { OpenAPIHono } from "@hono/zod-openapi";

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Items grouped by a key, in the order each key first appears. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** Rebuilds each operation of a section (`paths`, `webhooks`) with its responses mapped. */
function mapResponses<S extends Record<string, unknown> | undefined>(
  section: S,
  map: (response: JsonObject) => unknown,
): S {
  const operation = (value: unknown) =>
    isObject(value) && isObject(value.responses)
      ? {
          ...value,
          responses: Object.fromEntries(
            Object.entries(value.responses).map(([status, response]) => [
              status,
              isObject(response) ? map(response) : response,
            ]),
          ),
        }
      : value;
  if (!section) return section;
  return Object.fromEntries(
    Object.entries(section).map(([path, item]) => [
      path,
      isObject(item)
        ? Object.fromEntries(
            Object.entries(item).map(([method, value]) => [method, operation(value)]),
          )
        : item,
    ]),
  ) as S;
}

/** Each operation of a section (`paths`, `webhooks`): its path item key, method and object. */
function operationsOf(section: Record<string, unknown> | undefined): JsonObject[] {
  return Object.values(section ?? {}).flatMap((item) =>
    isObject(item) ? Object.values(item).filter(isObject) : [],
  );
}

/** Rebuilds each operation of a section with its parameters mapped. */
function mapParameters<S extends Record<string, unknown> | undefined>(
  section: S,
  map: (parameter: unknown) => unknown,
): S {
  if (!section) return section;
  return Object.fromEntries(
    Object.entries(section).map(([path, item]) => [
      path,
      isObject(item)
        ? Object.fromEntries(
            Object.entries(item).map(([method, operation]) => [
              method,
              isObject(operation) && Array.isArray(operation.parameters)
                ? { ...operation, parameters: operation.parameters.map(map) }
                : operation,
            ]),
          )
        : item,
    ]),
  ) as S;
}

/**
 * The parameters operations share alike (a listing's `cursor`, a path's
 * id, `If-None-Match`, a delivery's signature headers), each stated once in
 * `components/parameters` under its name, numbered where two forms share one.
 */
function shareParameters(document: OpenApiDocument): OpenApiDocument {
  const sections = [document.paths, document.webhooks] as (Record<string, unknown> | undefined)[];
  const uses = sections
    .flatMap(operationsOf)
    .flatMap((operation) => (Array.isArray(operation.parameters) ? operation.parameters : []))
    .filter(isObject);
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const [text, same] of groupBy(uses, (parameter) => JSON.stringify(parameter))) {
    if (same.length < 2) continue;
    const base = String(same[0]?.name ?? "parameter");
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    names.set(text, name);
  }
  const reference = (parameter: unknown) => {
    const name = names.get(JSON.stringify(parameter));
    return name ? { $ref: `#/components/parameters/${name}` } : parameter;
  };
  const parameters = Object.fromEntries(
    [...names].map(([text, name]) => [name, JSON.parse(text) as unknown]),
  );
  // Built from the document's own JSON, so of the document's own types.
  return {
    ...document,
    paths: mapParameters(document.paths, reference),
    webhooks: mapParameters(document.webhooks, reference),
    components: { ...document.components, parameters } as OpenApiDocument["components"],
  };
}

interface ResponseUse {
  status: string;
  tags: readonly string[];
  response: JsonObject;
}

/** Every response of every operation of the sections, with its status and the operation's tags. */
function responseUses(sections: readonly (Record<string, unknown> | undefined)[]): ResponseUse[] {
  return sections.flatMap(operationsOf).flatMap((operation) => {
    if (!isObject(operation.responses)) return [];
    const tags = Array.isArray(operation.tags) ? operation.tags.map(String) : [];
    return Object.entries(operation.responses).flatMap(([status, response]) =>
      isObject(response) ? [{ status, tags, response }] : [],
    );
  });
}

/**
 * A shared response's name: its status, after its tag when every operation
 * giving it has that one tag (`webhooks-404`), numbered on where two forms
 * would share a name.
 */
function responseName(uses: readonly ResponseUse[], taken: ReadonlySet<string>): string {
  const tags = new Set(uses.flatMap((use) => use.tags));
  const [tag] = tags;
  const status = uses[0]?.status ?? "default";
  const base = tags.size === 1 && tag ? `${tag}-${status}` : status;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

/**
 * Each form of a header that replies use more than once, keyed by name and
 * JSON text, with the name it is stated under: its own name for the most
 * used form, numbered on for the others (`Cache-Control-2`). Each of
 * `responses` counts as stated once.
 */
function sharedHeaders(
  responses: readonly JsonObject[],
): Map<string, { component: string; header: JsonObject }> {
  const forms = responses.flatMap((response) =>
    Object.entries(isObject(response.headers) ? response.headers : {}).map(([name, header]) => ({
      name,
      header,
    })),
  );
  const shared = new Map<string, { component: string; header: JsonObject }>();
  for (const [name, uses] of groupBy(forms, (form) => form.name)) {
    const byUse = [...groupBy(uses, (form) => JSON.stringify(form.header))]
      .filter(([, same]) => same.length > 1)
      .sort((a, b) => b[1].length - a[1].length);
    byUse.forEach(([text, same], i) => {
      const header = same[0]?.header;
      const component = i === 0 ? name : `${name}-${i + 1}`;
      if (isObject(header)) shared.set(`${name}\n${text}`, { component, header });
    });
  }
  return shared;
}

/**
 * The document with what it repeats stated once and referenced: a response
 * that several operations give alike (the usual 401, 429, 5xx…, and what a
 * webhook's receiver answers) in `components/responses`, the headers
 * replies share (request id, rate limits, a read's Cache-Control…) in
 * `components/headers`, every form used more than once (a form used once
 * stays where it is), and parameters used alike in
 * `components/parameters`. Only the form changes: resolving the references
 * gives the document back.
 */
export function compactDocument(document: OpenApiDocument): OpenApiDocument {
  const sections = [document.paths, document.webhooks] as (Record<string, unknown> | undefined)[];
  const groups = groupBy(responseUses(sections), (use) => JSON.stringify(use.response));
  const responseNames = new Map<string, string>();
  for (const [text, uses] of groups) {
    if (uses.length > 1)
      responseNames.set(text, responseName(uses, new Set(responseNames.values())));
  }
  // A shared response is stated once from now on, so its headers count once.
  const stated = [...groups].flatMap(([text, uses]) =>
    responseNames.has(text) ? uses.slice(0, 1) : uses,
  );
  const shared = sharedHeaders(stated.map((use) => use.response));
  const headers: Record<string, unknown> = Object.fromEntries(
    [...shared.values()].map(({ component, header }) => [component, header]),
  );
  const withHeaderReferences = (response: JsonObject): JsonObject =>
    isObject(response.headers)
      ? {
          ...response,
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, header]) => {
              const form = shared.get(`${name}\n${JSON.stringify(header)}`);
              return [name, form ? { $ref: `#/components/headers/${form.component}` } : header];
            }),
          ),
        }
      : response;
  const responses: Record<string, unknown> = {};
  for (const [text, name] of responseNames) {
    responses[name] = withHeaderReferences(JSON.parse(text) as JsonObject);
  }
  const referenced = (response: JsonObject) => {
    const name = responseNames.get(JSON.stringify(response));
    return name ? { $ref: `#/components/responses/${name}` } : withHeaderReferences(response);
  };
  // Built from the document's own JSON, so of the document's own types.
  const components = {
    ...document.components,
    headers,
    responses,
  } as OpenApiDocument["components"];
  return shareParameters({
    ...document,
    paths: mapResponses(document.paths, referenced),
    webhooks: mapResponses(document.webhooks, referenced),
    components,
  });
}
