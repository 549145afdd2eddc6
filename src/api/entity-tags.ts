import { z } from "@hono/zod-openapi";
import { ApiError, messages } from "../errors.ts";
import { toBase64Url } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";
import { utf8Encoder } from "../utils/utf8.ts";
import { stringHeader } from "./responses.ts";

/**
 * Entity tags: of what a client may change (an animal, a category), the
 * record's version, quoted, as its `etag` field and its `ETag` header give
 * it, and `If-Match` as RFC 9110 §13.1.1 reads it; of any other read, a
 * hash of what was sent.
 */

/** The version an entity tag this service issued names; the tag is strong, quotes included. */
const ISSUED = /^"([1-9][0-9]{0,15})"$/;

/** The `etag` field of a Pet or a Category. */
export const EntityTagSchema = z.string().regex(ISSUED).openapi("EntityTag", {
  description:
    "Strong entity tag of this version, quotes included; it changes with every change. The same as the `ETag` header of a reply carrying this one record: send it as `If-Match` to change the record only if nobody changed it since.",
  example: '"3"',
});

/** The `ETag` of a reply that carries one record: its `etag`. */
export const entityTagHeader = stringHeader(
  "The record's `etag`: send it as `If-Match` to change it safely, or as `If-None-Match` to revalidate it.",
  '"3"',
);

/** The `If-Match` request header of a change. */
export const IfMatchHeaderSchema = z.object({
  "If-Match": z
    .string()
    .optional()
    .openapi({
      param: {
        name: "If-Match",
        in: "header",
        description:
          'Make the change only if the record is still at one of these versions: `*`, or a comma-separated list of its `etag`s (`"3", "4"`). Compared strongly: a weak tag (`W/"3"`) never matches. When none matches, 412 `precondition_failed` and nothing changes; a header that is not such a list gives 400.',
      },
      example: '"3"',
    }),
});

/** One member of the list and the comma after it: an optional `W/`, then a quoted tag, or nothing. */
const MEMBER = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

/**
 * The versions an `If-Match` header accepts: undefined when any will do
 * (no header, or `*`), else those its strong tags name (none, when it
 * names only weak tags or tags this service never issued). A header that is
 * not `*` or a list of entity tags is a 400.
 */
export function acceptedVersions(header: string | undefined): readonly number[] | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  const versions: number[] = [];
  let tags = 0;
  // A tag may hold a comma, so the list is read member by member rather than split.
  for (let at = 0; at < header.length; ) {
    MEMBER.lastIndex = at;
    const match = MEMBER.exec(header);
    if (!match || MEMBER.lastIndex === at) throw malformed();
    at = MEMBER.lastIndex;
    if (match[2] === undefined) continue;
    tags += 1;
    const version = match[1] ? undefined : ISSUED.exec(`"${match[2]}"`)?.[1];
    if (version !== undefined) versions.push(Number(version));
  }
  // An empty list, or one of empty members only, names nothing to compare with.
  if (tags === 0) throw malformed();
  return versions;
}

function malformed(): ApiError {
  return new ApiError("invalid_request", messages.invalidIfMatch, {
    details: [{ path: "If-Match", message: "Must be * or a list of entity tags" }],
  });
}

/** Whether a record at `version` meets the `If-Match` that `acceptedVersions` read. */
export function meetsIfMatch(accepted: readonly number[] | undefined, version: number): boolean {
  return accepted === undefined || accepted.includes(version);
}

/**
 * The strong tag of a reply that carries no record's version: of its body
 * and, ahead of it, its `Link` header, so a page that gained a next page
 * has another tag. 128 bits of SHA-256 keep the header short and
 * collisions out of reach.
 */
export async function contentTag(body: string | ArrayBuffer, link: string | null): Promise<string> {
  const head = link === null ? "" : `${link}\n`;
  const digest = await sha256(typeof body === "string" ? head + body : joined(head, body));
  return `"${toBase64Url(digest.subarray(0, 16))}"`;
}

/** The text's UTF-8 bytes, then the body's. */
function joined(head: string, body: ArrayBuffer): ArrayBuffer {
  const headBytes = utf8Encoder.encode(head);
  const bytes = new Uint8Array(headBytes.length + body.byteLength);
  bytes.set(headBytes);
  bytes.set(new Uint8Array(body), headBytes.length);
  return bytes.buffer;
}

/**
 * What a conditional change's description says of `If-Match` and of who may
 * change the record: the account whose key `madeIt` (its own words), and
 * any `aside` on who that is.
 */
export function conditionalChange(madeIt: string, aside = ""): string {
  return `Send its \`etag\` as \`If-Match\` to change it only if nobody changed it since it was read: otherwise 412, and nothing changes. Only the account whose key ${madeIt} may change it${aside}: another gets 403 \`not_owner\`.`;
}

/** `*` or a list of entity tags (RFC 9110 §13.1.2): an `If-None-Match` a store may judge too. */
const ENTITY_TAGS =
  /^\s*(?:\*|(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"(?:\s*,\s*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")*)\s*$/;

/** Whether `If-None-Match` is well formed, so a store judges it as the conditional read does. */
export function isEntityTagList(ifNoneMatch: string): boolean {
  return ENTITY_TAGS.test(ifNoneMatch);
}
