import type { Context } from "hono";
import { contentTag } from "../api/entity-tags.ts";

/**
 * Whether `If-None-Match` names the tag: `*`, or a list holding it by the
 * weak comparison of RFC 9110 §8.8.3.2 (`W/"x"` and `"x"` are the same).
 */
function namesTag(ifNoneMatch: string, tag: string): boolean {
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = tag.startsWith("W/") ? tag.slice(2) : tag;
  for (const [, candidate] of ifNoneMatch.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (candidate === opaque) return true;
  }
  return false;
}

/** Puts `response` in place of the reply whole: assigning over it would merge the old headers back in. */
function replaceReply(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/**
 * A 200 to a GET or HEAD gets an `ETag` (its own where it set one, else a
 * strong tag of what was sent, which costs reading the body back), and
 * becomes a 304 without a body when `If-None-Match` names it. The 304
 * keeps every header but those describing the body. Hand-written:
 * hono/etag keeps only a fixed list of headers on its 304s and tags the
 * body alone, so a listing's `Link` would not count.
 */
export async function answerConditionally(c: Context): Promise<void> {
  const sent = c.res;
  let tag = sent.headers.get("ETag");
  let body: ArrayBuffer | undefined;
  if (tag === null) {
    body = await sent.arrayBuffer();
    tag = await contentTag(body, sent.headers.get("Link"));
  }
  const ifNoneMatch = c.req.header("If-None-Match");
  if (ifNoneMatch !== undefined && namesTag(ifNoneMatch, tag)) {
    if (body === undefined) await sent.body?.cancel();
    const notModified = new Response(null, { status: 304, headers: sent.headers });
    notModified.headers.delete("Content-Type");
    notModified.headers.delete("Content-Length");
    notModified.headers.set("ETag", tag);
    replaceReply(c, notModified);
  } else if (body !== undefined) {
    const tagged = new Response(body, sent);
    tagged.headers.set("ETag", tag);
    replaceReply(c, tagged);
  }
}
