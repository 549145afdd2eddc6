import { env } from "cloudflare:test";
import { openToken, sealToken } from "../../../src/api/consistency-token.ts";

/** The secret the tests' Worker seals its Consistency-Tokens with. */
export const TOKEN_SECRET = env.CONSISTENCY_TOKEN_SECRET;

/** The bookmark a token the Worker sealed for the account carries; undefined for any other token. */
export async function bookmarkOf(
  token: string,
  account: number,
  now = Date.now(),
): Promise<string | undefined> {
  const opened = await openToken(token, account, [TOKEN_SECRET], now);
  return typeof opened === "object" ? opened.bookmark : undefined;
}

/** A token for the bookmark, sealed as the Worker seals one (or with another secret, or at another time). */
export function tokenFor(
  bookmark: string,
  account: number,
  { secret = TOKEN_SECRET, now = Date.now() }: { secret?: string; now?: number } = {},
): Promise<string> {
  return sealToken(bookmark, account, secret, now);
}
