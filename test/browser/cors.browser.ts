/**
 * The API read from a page on another origin in a real browser (headless
 * Chromium), as a public web page would with a key: the preflight passes,
 * `Link` and `ETag` are readable from script, and reading the page again is
 * a revalidation the server answers 304, which the page reads as the page it
 * kept. An animal's photo shows in an `<img>` of such a page, with no key.
 * Run with `npm run test:browser`.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import { type Browser, type CDPSession, chromium } from "playwright-core";
import { freePort } from "../free-port.ts";
import { onePixelJpeg } from "../one-pixel-jpeg.ts";
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from "./chromium.ts";
import { startWorker, type WorkerServer } from "./worker-server.ts";

requireChromium();

const ADMIN_TOKEN = randomBytes(32).toString("base64url");

/** The page's own script: it reads a page of the API with a key, as a web page would. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>Animals elsewhere</title>
<script>
  async function readApi(url, key) {
    const response = await fetch(url, { headers: { Authorization: "Bearer " + key } });
    return {
      status: response.status,
      link: response.headers.get("Link"),
      etag: response.headers.get("ETag"),
      requestId: response.headers.get("X-Request-Id"),
      body: await response.text(),
    };
  }
  function showImage(url) {
    const image = new Image();
    document.body.append(image);
    return new Promise((resolve, reject) => {
      image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
      image.onerror = () => reject(new Error("the image did not load"));
      image.src = url;
    });
  }
</script>`;

let server: WorkerServer;
let pageServer: Server;
let pageOrigin: string;
let browser: Browser;

before(async () => {
  server = await startWorker({ ADMIN_TOKEN });
  const port = await freePort();
  pageServer = createServer((_, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(PAGE);
  });
  await new Promise<void>((resolve) => pageServer.listen(port, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
  await server?.stop();
});

async function newKey(): Promise<string> {
  const response = await fetch(`${server.origin}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ plan: "free" }),
  });
  const body = (await response.json()) as { key: string };
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.key;
}

async function addAnimal(key: string, name: string): Promise<number> {
  const response = await fetch(`${server.origin}/v1/pets`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
  const body = (await response.json()) as { id: number };
  assert.equal(response.status, 201);
  return body.id;
}

/** What the browser's network stack sent and received, as DevTools reports it. */
interface Exchange {
  url?: string;
  method?: string;
  sent?: Record<string, string>;
  status?: number;
}

/** Every exchange of the page from here on, as far as it has got. */
async function watchNetwork(cdp: CDPSession): Promise<() => Exchange[]> {
  const exchanges = new Map<string, Exchange>();
  const of = (id: string) => {
    const exchange = exchanges.get(id) ?? {};
    exchanges.set(id, exchange);
    return exchange;
  };
  cdp.on("Network.requestWillBeSent", ({ requestId, request }) => {
    Object.assign(of(requestId), { url: request.url, method: request.method });
  });
  cdp.on("Network.requestWillBeSentExtraInfo", ({ requestId, headers }) => {
    of(requestId).sent = headers;
  });
  cdp.on("Network.responseReceivedExtraInfo", ({ requestId, statusCode }) => {
    of(requestId).status = statusCode;
  });
  await cdp.send("Network.enable");
  return () => [...exchanges.values()];
}

interface Read {
  status: number;
  link: string | null;
  etag: string | null;
  requestId: string | null;
  body: string;
}

test("a page on another origin reads the API with a key, and revalidates its page", async () => {
  const key = await newKey();
  for (const name of ["Ada", "Bo", "Cy"]) await addAnimal(key, name);
  const page = await browser.newPage();
  const exchanges = await watchNetwork(await page.context().newCDPSession(page));
  await page.goto(pageOrigin);
  const url = `${server.origin}/v1/pets?limit=2`;
  const read = (): Promise<Read> =>
    page.evaluate(
      ([url, key]) =>
        (window as unknown as { readApi(url: string, key: string): Promise<Read> }).readApi(
          url,
          key,
        ),
      [url, key] as const,
    );

  const first = await read();
  assert.equal(first.status, 200);
  assert.match(
    first.link ?? "",
    /^<http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=2&cursor=[^>]+>; rel="next"$/,
  );
  assert.match(first.etag ?? "", /^"[A-Za-z0-9_-]{22}"$/);
  assert.deepEqual(
    JSON.parse(first.body).map((pet: { name: string }) => pet.name),
    ["Ada", "Bo"],
  );

  const again = await read();
  assert.equal(again.status, 200);
  assert.equal(again.body, first.body);
  assert.equal(again.etag, first.etag);
  assert.equal(again.link, first.link);
  // The headers were refreshed from the server's answer: the page was revalidated, not just reused.
  assert.notEqual(again.requestId, first.requestId);

  const api = exchanges().filter(({ url }) => url?.startsWith(server.origin));
  const preflights = api.filter(({ method }) => method === "OPTIONS");
  const reads = api.filter(({ method }) => method === "GET");
  // One preflight: the browser keeps its answer for a day.
  assert.deepEqual(
    preflights.map(({ status, sent }) => [status, sent?.["Access-Control-Request-Headers"]]),
    [[204, "authorization"]],
  );
  assert.deepEqual(
    reads.map(({ status, sent }) => [status, sent?.["If-None-Match"] ?? null]),
    [
      [200, null],
      [304, first.etag],
    ],
  );
  await page.close();
});

test("a page on another origin shows an animal's photo in an <img>, with no key", async () => {
  const key = await newKey();
  const petId = await addAnimal(key, "Rex");
  const uploaded = await fetch(`${server.origin}/v1/pets/${petId}/photos`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "image/jpeg" },
    body: onePixelJpeg(),
  });
  const photo = (await uploaded.json()) as { url: string };
  assert.equal(uploaded.status, 201, JSON.stringify(photo));
  assert.match(photo.url, new RegExp(`^${server.origin}/photos/[A-Za-z0-9_-]{22}$`));
  const page = await browser.newPage();
  const exchanges = await watchNetwork(await page.context().newCDPSession(page));
  await page.goto(pageOrigin);
  const shown = await page.evaluate(
    (url) =>
      (
        window as unknown as { showImage(url: string): Promise<{ width: number; height: number }> }
      ).showImage(url),
    photo.url,
  );
  assert.deepEqual(shown, { width: 1, height: 1 });
  const fetched = exchanges().filter(({ url }) => url === photo.url);
  assert.deepEqual(
    fetched.map(({ method, status, sent }) => [method, status, sent?.Authorization ?? null]),
    [["GET", 200, null]],
  );
  await page.close();
});
