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

/**
 * The parameters operations share alike (a listing's `cursor`, a path's
 * id, `If-None-Match`, a delivery's signature headers, a listing's `limit`
 * but for the description each use may keep), each stated once in
 * `components/parameters` under its name, numbered where two forms share one.
 */
export function shareParameters(document: OpenApiDocument): OpenApiDocument {
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
