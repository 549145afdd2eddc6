/**
 * One UTF-8 encoder, and one decoder of each kind, for the isolate: each
 * `new TextEncoder()` is a runtime object for workerd to make, which the hot
 * path would pay for on every request (a key's hash, a page's tag, a token's
 * seal, a JSON body). None holds state between calls (no decoder is ever
 * used to stream).
 */
export const utf8Encoder = new TextEncoder();
export const utf8Decoder = new TextDecoder();
/** A decoder that throws on bytes that are not UTF-8, for request bodies (a BOM is dropped). */
export const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
