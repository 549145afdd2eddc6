import {
  bodyText,
  groupBy,
  isObject,
  type JsonObject,
  mapOperations,
  type OpenApiDocument,
  operationsOf,
  referenceTo,
} from "./document-parts.ts";

/** Rebuilds each operation of a section with its parameters mapped. */
function mapParameters<S extends Record<string, unknown> | undefined>(
  section: S,
  map: (parameter: unknown) => unknown,
): S {
  return mapOperations(section, (operation) =>
    isObject(operation) && Array.isArray(operation.parameters)
      ? { ...operation, parameters: operation.parameters.map(map) }
      : operation,
  );
}

/**
 * The parameters operations share alike (a listing's `cursor`, a path's
 * id, `If-None-Match`, a delivery's signature headers, a listing's `limit`
 * but for the description each use may keep), each stated once in
 * `components/parameters` under its name, numbered where two forms share one.
 */
export function shareParameters(document: OpenApiDocument): OpenApiDocument {
  const sections = [document.paths, document.webhooks] as (Record<string, unknown> | undefined)[];
  const uses = sections
    .flatMap(operationsOf)
    .flatMap((operation) => (Array.isArray(operation.parameters) ? operation.parameters : []))
    .filter(isObject);
  const parameters: Record<string, JsonObject> = {};
  const names = new Map<string, string>();
  for (const [text, same] of groupBy(uses, bodyText)) {
    const [first] = same;
    if (same.length < 2 || !first) continue;
    const base = String(first.name ?? "parameter");
    let name = base;
    for (let n = 2; name in parameters; n++) name = `${base}-${n}`;
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
    paths: mapParameters(document.paths, reference),
    webhooks: mapParameters(document.webhooks, reference),
    components: {
      ...document.components,
      parameters: parameters as Record<string, unknown>,
    } as OpenApiDocument["components"],
  };
}
