import { ApiError, messages } from "../errors.ts";
import { holdsScope, type Scope } from "../scopes.ts";

/**
 * Refuses the request unless its key holds every scope in `needed`: 403
 * `insufficient_scope`, whose challenge names them all (RFC 6750 §3.1) and
 * whose message names those the key lacks.
 */
export function checkScopes(key: { record: { scopes: readonly Scope[] } }, needed: Scope[]): void {
  const missing = needed.filter((scope) => !holdsScope(key.record.scopes, scope));
  if (missing.length === 0) return;
  throw new ApiError("insufficient_scope", messages.insufficientScope(missing), {
    headers: {
      "WWW-Authenticate": `Bearer realm="petstore", error="insufficient_scope", scope="${needed.join(" ")}"`,
    },
  });
}
