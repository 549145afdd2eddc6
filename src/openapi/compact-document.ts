import {
  bodyText,
  freeName,
  groupBy,
  isObject,
  type JsonObject,
  mapOperationMember,
  type OpenApiDocument,
  operationsOf,
  referenceTo,
  sectionsOf,
} from "./document-parts.ts";

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
  return freeName(base, (name) => taken.has(name));
}

/**
 * The responses to state once, by name: each that operations give alike,
 * then, of the rest, each that differs from another (or from one stated
 * already) only in its description, which its reference then keeps; the
 * responses stated where they are; and the name each response is stated
 * under, if it is.
 */
function sharedResponses(uses: readonly ResponseUse[]): {
  components: Map<string, JsonObject>;
  unshared: JsonObject[];
  nameOf: (response: JsonObject) => string | undefined;
} {
  const names = new Map<string, string>();
  const bodies = new Map<string, string>();
  const components = new Map<string, JsonObject>();
  const state = (text: string, same: readonly ResponseUse[]) => {
    const name = responseName(same, new Set(components.keys()));
    const response = same[0]?.response;
    if (!response) return;
    components.set(name, response);
    names.set(text, name);
    if (!bodies.has(bodyText(response))) bodies.set(bodyText(response), name);
  };
  const alike = groupBy(uses, (use) => JSON.stringify(use.response));
  const once: ResponseUse[] = [];
  for (const [text, same] of alike) {
    if (same.length > 1) state(text, same);
    else once.push(...same);
  }
  for (const [body, same] of groupBy(once, (use) => bodyText(use.response))) {
    const first = same[0];
    if (first && same.length > 1 && !bodies.has(body)) state(JSON.stringify(first.response), same);
  }
  const unshared = once.filter((use) => !bodies.has(bodyText(use.response)));
  return {
    components,
    unshared: unshared.map((use) => use.response),
    nameOf: (response) => names.get(JSON.stringify(response)) ?? bodies.get(bodyText(response)),
  };
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

/** The named examples of a response's content, each with its name and media type. */
function examplesOf(response: JsonObject): { name: string; example: unknown }[] {
  return Object.values(isObject(response.content) ? response.content : {}).flatMap((media) =>
    isObject(media) && isObject(media.examples)
      ? Object.entries(media.examples).map(([name, example]) => ({ name, example }))
      : [],
  );
}

/**
 * Each named example that replies give more than once (an error's code
 * and message: `insufficient_scope`, `rate_limited`…), keyed by name and
 * JSON text, with the name it is stated under, numbered on where two forms
 * share a name. Each of `responses` counts as stated once.
 */
function sharedExamples(responses: readonly JsonObject[]): Map<string, string> {
  const shared = new Map<string, string>();
  const uses = groupBy(responses.flatMap(examplesOf), ({ name, example }) =>
    JSON.stringify([name, example]),
  );
  for (const [key, same] of uses) {
    const name = same[0]?.name;
    if (same.length < 2 || name === undefined) continue;
    const taken = new Set(shared.values());
    shared.set(
      key,
      freeName(name, (component) => taken.has(component)),
    );
  }
  return shared;
}

/**
 * The parameters operations share alike (a listing's `cursor`, a path's
 * id, `If-None-Match`, a delivery's signature headers, a listing's `limit`
 * but for the description each use may keep), each stated once in
 * `components/parameters` under its name, numbered where two forms share one.
 */
function shareParameters(document: OpenApiDocument): OpenApiDocument {
  const uses = sectionsOf(document)
    .flatMap(operationsOf)
    .flatMap((operation) => (Array.isArray(operation.parameters) ? operation.parameters : []))
    .filter(isObject);
  const parameters: Record<string, JsonObject> = {};
  const names = new Map<string, string>();
  for (const [text, same] of groupBy(uses, bodyText)) {
    const [first] = same;
    if (same.length < 2 || !first) continue;
    const base = String(first.name ?? "parameter");
    const name = freeName(base, (taken) => taken in parameters);
    parameters[name] = first;
    names.set(text, name);
  }
  const reference = (parameter: unknown) => {
    const name = isObject(parameter) ? names.get(bodyText(parameter)) : undefined;
    return name && isObject(parameter)
      ? referenceTo(`#/components/parameters/${name}`, parameter, parameters[name])
      : parameter;
  };
  // Built from the document's own JSON, so of the document's own types.
  return {
    ...document,
    ...mapOperationMember(document, "parameters", (parameters) =>
      Array.isArray(parameters) ? parameters.map(reference) : parameters,
    ),
    components: {
      ...document.components,
      parameters: parameters as Record<string, unknown>,
    } as OpenApiDocument["components"],
  };
}

/**
 * The document with what it repeats stated once and referenced: a response
 * that several operations give alike (the usual 401, 429, 5xx…, and what a
 * webhook's receiver answers) in `components/responses`, where a reference
 * keeps its own description when only that differs, the headers
 * replies share (request id, rate limits, a read's Cache-Control…) in
 * `components/headers` and the examples they share (an error's code and
 * message) in `components/examples`, every form used more than once (a
 * form used once stays where it is), and parameters used alike in
 * `components/parameters`. Only the form changes: resolving the references
 * gives the document back.
 */
export function compactDocument(document: OpenApiDocument): OpenApiDocument {
  const {
    components: stated,
    unshared,
    nameOf,
  } = sharedResponses(responseUses(sectionsOf(document)));
  // A shared response is stated once, so its headers and examples count once.
  const statedResponses = [...stated.values(), ...unshared];
  const shared = sharedHeaders(statedResponses);
  const headers: Record<string, unknown> = Object.fromEntries(
    [...shared.values()].map(({ component, header }) => [component, header]),
  );
  const sharedExample = sharedExamples(statedResponses);
  const examples: Record<string, unknown> = {};
  for (const [key, component] of sharedExample) {
    examples[component] = (JSON.parse(key) as [string, unknown])[1];
  }
  const withExampleReferences = (media: unknown): unknown =>
    isObject(media) && isObject(media.examples)
      ? {
          ...media,
          examples: Object.fromEntries(
            Object.entries(media.examples).map(([name, example]) => {
              const component = sharedExample.get(JSON.stringify([name, example]));
              return [name, component ? { $ref: `#/components/examples/${component}` } : example];
            }),
          ),
        }
      : media;
  const withReferences = (response: JsonObject): JsonObject => ({
    ...response,
    ...(isObject(response.headers) && {
      headers: Object.fromEntries(
        Object.entries(response.headers).map(([name, header]) => {
          const form = shared.get(`${name}\n${JSON.stringify(header)}`);
          return [name, form ? { $ref: `#/components/headers/${form.component}` } : header];
        }),
      ),
    }),
    ...(isObject(response.content) && {
      content: Object.fromEntries(
        Object.entries(response.content).map(([type, media]) => [
          type,
          withExampleReferences(media),
        ]),
      ),
    }),
  });
  const responses: Record<string, unknown> = Object.fromEntries(
    [...stated].map(([name, response]) => [name, withReferences(response)]),
  );
  const referenced = (response: JsonObject) => {
    const name = nameOf(response);
    return name
      ? referenceTo(`#/components/responses/${name}`, response, stated.get(name))
      : withReferences(response);
  };
  // Built from the document's own JSON, so of the document's own types.
  const components = {
    ...document.components,
    headers,
    examples,
    responses,
  } as OpenApiDocument["components"];
  return shareParameters({
    ...document,
    ...mapOperationMember(document, "responses", (responses) =>
      isObject(responses)
        ? Object.fromEntries(
            Object.entries(responses).map(([status, response]) => [
              status,
              isObject(response) ? referenced(response) : response,
            ]),
          )
        : responses,
    ),
    components,
  });
}
