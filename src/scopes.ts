/**
 * What a key may do: one scope per kind of resource and access, each `/v1`
 * route declaring the one it needs. Shared by the Worker and the operator
 * command (which runs it under Node's type stripping, hence erasable syntax only).
 */

/** Every scope a key can hold; a key made without a list holds them all. */
export const SCOPES = [
  "pets:read",
  "pets:write",
  "orders:read",
  "orders:write",
  "events:read",
  "webhooks:read",
  "webhooks:write",
] as const;

export type Scope = (typeof SCOPES)[number];

/** Whether a key holding `held` may do what `needed` allows (`*:write` implies no `*:read`). */
export function holdsScope(held: readonly Scope[], needed: Scope): boolean {
  return held.includes(needed);
}
