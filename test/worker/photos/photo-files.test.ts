import { beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError, freshIp, RATE_LIMIT_HEADERS } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { addPhoto, imageOf, type PhotoBody } from "../support/photos.ts";
import { api, ORIGIN } from "../support/request.ts";

/*
 * GET /photos/{photoId}: what any <img> fetches, from any origin, with no
 * key. These requests carry none, from one address, far beyond the keyless
 * budget of 60 a minute: the route is never limited.
 */

const PAGE = "https://elsewhere.test";
const ADDRESS = { "CF-Connecting-IP": freshIp() };

let key: string;
let photo: PhotoBody;
let bytes: Uint8Array;

beforeAll(async () => {
  ({ key } = await seedKey());
  const pet = await createPet(key, { name: "Photogenic", categoryId: 1 });
  photo = await addPhoto(key, pet.id, "image/png", 3000);
  bytes = imageOf("image/png", 3000, pet.id);
});

function fetchPhoto(path: string, init: RequestInit = {}): Promise<Response> {
  return api(path, { ...init, headers: { ...ADDRESS, ...init.headers } });
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

describe("GET /photos/{photoId} — happy path", () => {
  it("serves the bytes with their type, an ETag, a year's immutable caching, nosniff, a CSP that runs nothing, and CORS", async () => {
    expect(photo.url.startsWith(`${ORIGIN}/photos/`)).toBe(true);
    const res = await fetchPhoto(pathOf(photo.url), { headers: { Origin: PAGE } });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(res.headers.get("Content-Length")).toBe("3000");
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    for (const name of [...RATE_LIMIT_HEADERS, "Set-Cookie", "Consistency-Token"]) {
      expect(res.headers.get(name), name).toBeNull();
    }
  });

  it("answers HEAD with the same headers and no body", async () => {
    const got = await fetchPhoto(pathOf(photo.url));
    await got.arrayBuffer();
    const head = await fetchPhoto(pathOf(photo.url), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    for (const name of [
      "Content-Type",
      "Content-Length",
      "ETag",
      "Cache-Control",
      "Content-Security-Policy",
      "Access-Control-Allow-Origin",
    ]) {
      expect(head.headers.get(name), name).toBe(got.headers.get(name));
    }
  });

  it("answers If-None-Match naming its ETag with 304, no body, the other headers kept, for GET and HEAD", async () => {
    const first = await fetchPhoto(pathOf(photo.url));
    await first.arrayBuffer();
    const tag = first.headers.get("ETag") ?? "";
    for (const [method, ifNoneMatch] of [
      ["GET", tag],
      ["GET", `W/${tag}`],
      ["GET", `"other", ${tag}`],
      ["GET", "*"],
      ["HEAD", tag],
    ]) {
      const res = await fetchPhoto(pathOf(photo.url), {
        method,
        headers: { "If-None-Match": ifNoneMatch ?? "" },
      });
      expect(res.status, `${method} ${ifNoneMatch}`).toBe(304);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
      expect(res.headers.get("ETag")).toBe(tag);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.headers.get("Content-Type")).toBeNull();
    }
    // A tag it does not name, a weak one it does not name, or one not quoted: the whole photo.
    for (const ifNoneMatch of ['"other"', 'W/"other"', tag.slice(1, -1)]) {
      const stale = await fetchPhoto(pathOf(photo.url), {
        headers: { "If-None-Match": ifNoneMatch },
      });
      expect(stale.status, ifNoneMatch).toBe(200);
      expect(new Uint8Array(await stale.arrayBuffer())).toEqual(bytes);
    }
  });

  it("answers a CORS preflight without a key, allowing GET and HEAD", async () => {
    const res = await fetchPhoto(pathOf(photo.url), {
      method: "OPTIONS",
      headers: { Origin: PAGE, "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(204);
    await res.arrayBuffer();
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD");
  });

  it("is never refused for its rate: 100 requests from one address without a key all succeed", async () => {
    const address = { "CF-Connecting-IP": freshIp() };
    for (let i = 0; i < 100; i++) {
      const res = await api(pathOf(photo.url), { method: "HEAD", headers: address });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });
});

describe("GET /photos/{photoId} — bad input", () => {
  it.each([
    ["an unknown id", "/photos/AAAAAAAAAAAAAAAAAAAAAA"],
    ["a malformed id", "/photos/not-a-photo"],
    ["a path that names no photo", "/photos/"],
  ])("answers %s with the 404 Error body, with CORS", async (_case, path) => {
    const res = await fetchPhoto(path);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toBeNull();
    await expectError(res, 404, "not_found");
  });

  it("answers another method with 405 and Allow: GET, HEAD", async () => {
    const res = await fetchPhoto(pathOf(photo.url), { method: "PUT", body: "x" });
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
    await expectError(res, 405, "method_not_allowed");
  });
});
