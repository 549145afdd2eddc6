/** `Bearer`, any case, then the credentials after spaces or tabs, if any. */
const BEARER = /^Bearer(?:[ \t]+(.*))?$/i;

/**
 * The token an `Authorization: Bearer <token>` header carries, without the
 * spaces around it (RFC 6750 §2.1); undefined for no header, another scheme
 * (`Basic …`), or a bare `Bearer`, which carry no token at all.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1]?.trim() || undefined;
}
