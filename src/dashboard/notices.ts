import { z } from "zod";
import type { Database } from "../db/database.ts";
import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";
import { utf8Decoder, utf8Encoder } from "../utils/utf8.ts";
import { insertNotice, takeNoticeRows } from "./notices.queries.ts";
import type { Session } from "./session.ts";

/** How long a notice waits for the page that shows it. */
export const NOTICE_TTL_MS = 5 * 60 * 1000;

/** Names what the derived key is for, so it can never stand in for a key derived for anything else. */
const PURPOSE = utf8Encoder.encode("petstore dashboard session notice v1");

const NoticeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("key-created"), key: z.string() }),
  z.object({
    kind: z.literal("key-rolled"),
    key: z.string(),
    oldLastFour: z.string(),
    graceEndsAt: z.number(),
  }),
  z.object({ kind: z.literal("key-revoked"), lastFour: z.string() }),
  z.object({
    kind: z.literal("webhook-secret"),
    /** Whether the endpoint is new, or an existing one has a new secret. */
    made: z.enum(["registered", "rotated"]),
    url: z.string(),
    secret: z.string(),
  }),
  z.object({ kind: z.literal("done"), text: z.string() }),
]);

/**
 * What a form's success tells the next page: a new key or signing secret
 * (its one showing), what became of a key, or a sentence saying what was done.
 */
export type Notice = z.infer<typeof NoticeSchema>;

/**
 * AES-256-GCM key derived (HKDF-SHA256) from the session cookie's token. D1
 * holds only that token's hash, so what it stores cannot be opened from D1.
 * The session's id is authenticated with each notice, so a sealed notice
 * moved to another session's row does not open there.
 */
async function noticeCipher(token: string, sessionId: string, iv: Uint8Array<ArrayBuffer>) {
  const material = await crypto.subtle.importKey("raw", utf8Encoder.encode(token), "HKDF", false, [
    "deriveKey",
  ]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: PURPOSE },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  return { key, params: { name: "AES-GCM", iv, additionalData: utf8Encoder.encode(sessionId) } };
}

/**
 * Keeps a notice with the session for the page a successful post redirects
 * to, sealed as `<iv>.<ciphertext>` (base64url); nothing in an address can make one.
 */
export async function leaveNotice(db: Database, session: Session, notice: Notice): Promise<void> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const { key, params } = await noticeCipher(session.token, session.id, iv);
  const ciphertext = await crypto.subtle.encrypt(
    params,
    key,
    utf8Encoder.encode(JSON.stringify(notice)),
  );
  await insertNotice(db, {
    sessionHash: session.id,
    sealed: `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`,
    expiresAt: new Date(Date.now() + NOTICE_TTL_MS),
  });
}

/** The sealed text, or undefined when this token and session did not seal it or it was altered. */
export async function openNotice(
  token: string,
  sessionId: string,
  sealed: string,
): Promise<string | undefined> {
  const [ivText = "", ciphertextText = ""] = sealed.split(".");
  const iv = fromBase64Url(ivText);
  const ciphertext = fromBase64Url(ciphertextText);
  if (iv?.byteLength !== 12 || !ciphertext) return undefined;
  const { key, params } = await noticeCipher(token, sessionId, iv);
  return crypto.subtle.decrypt(params, key, ciphertext).then(
    (text) => utf8Decoder.decode(text),
    () => undefined,
  );
}

/** The session's waiting notices, deleted as they are read: each is shown once, if at all. */
export async function takeNotices(db: Database, session: Session): Promise<Notice[]> {
  const now = Date.now();
  const notices: Notice[] = [];
  for (const row of await takeNoticeRows(db, session.id)) {
    if (row.expiresAt.getTime() <= now) continue;
    const text = await openNotice(session.token, session.id, row.sealed);
    const parsed = text === undefined ? undefined : NoticeSchema.safeParse(JSON.parse(text));
    if (parsed?.success) notices.push(parsed.data);
  }
  return notices;
}
