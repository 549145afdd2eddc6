import type { KeyRecord } from "../keys/key-record.ts";

export type NotifyOutcome =
  | { kind: "applied" }
  | { kind: "unreachable"; reason: string }
  | { kind: "refused"; status: number };

const TIMEOUT_MS = 5_000;

/**
 * Tells the running Worker about a changed key record, so the key's Durable
 * Object applies it from the next request instead of after the isolates'
 * 30-second key cache (and KV's propagation) runs out.
 */
export async function notifyWorker(
  origin: string,
  adminToken: string,
  hash: string,
  record: KeyRecord,
): Promise<NotifyOutcome> {
  const url = new URL(`/admin/keys/${hash}/policy`, origin);
  const body = {
    revoked: record.revoked,
    plan: record.plan,
    limits: record.plan === "enterprise" ? record.limits : undefined,
    version: record.version,
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return { kind: "unreachable", reason: cause instanceof Error ? cause.message : String(cause) };
  }
  await response.body?.cancel();
  return response.ok ? { kind: "applied" } : { kind: "refused", status: response.status };
}
