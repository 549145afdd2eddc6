import { ApiError, messages } from "../errors.ts";

/** The order methods are listed in, whatever order their routes were registered in. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** The 405 for a method none of a path's routes serves, `Allow` naming those they serve. */
export function methodNotAllowedError(method: string, served: readonly string[]): ApiError {
  const allow = served
    .toSorted((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b))
    .join(", ");
  return new ApiError("method_not_allowed", messages.methodNotAllowed(method, allow), {
    headers: { Allow: allow },
  });
}
