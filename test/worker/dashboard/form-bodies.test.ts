import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DashboardBrowser, PASSWORD, uniqueEmail } from "../support/dashboard-browser.ts";
import { api, ORIGIN } from "../support/request.ts";

const LIMIT = 16 * 1024;

/** A body that sends these bytes, then fails, as when a client drops its connection mid-upload. */
function brokenStream(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.error(new Error("connection reset by peer"));
    },
  });
}

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

async function post(browser: DashboardBrowser, path: string, body: BodyInit, contentType: string) {
  return browser.request(path, {
    method: "POST",
    body,
    headers: { Origin: ORIGIN, "Content-Type": contentType },
  });
}

function expectPage(page: { status: number; html: string; response: Response }, status: number) {
  expect(page.status, page.html).toBe(status);
  expect(page.response.headers.get("Content-Type")).toMatch(/^text\/html/);
  expect(page.response.headers.get("Cache-Control")).toBe("no-store");
  expect(page.html).not.toMatch(/Something went wrong|Error:|TypeError/);
}

describe("form bodies the dashboard cannot read", () => {
  it("a malformed multipart sign-in gets a 400 page, not a 500", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-in");
    for (const [body, type] of [
      ["this is not multipart", "multipart/form-data; boundary=xyz"],
      [
        "--xyz\r\nContent-Disposition: form-data\r\n\r\nno name, no end",
        "multipart/form-data; boundary=xyz",
      ],
      ["email=a%40b.c&password=x", "multipart/form-data"],
    ]) {
      const page = await post(browser, "/dashboard/sign-in", body ?? "", type ?? "");
      expectPage(page, 400);
      expect(page.html).toContain("That form arrived incomplete or malformed.");
    }
  });

  it("a body that breaks off gets a 400 page", async () => {
    // Handed to the app as it is (not piped into the Worker), the stream's failure reaches the reader.
    const response = await api("/dashboard/sign-up", {
      method: "POST",
      body: brokenStream("email=someone%40example.com&pass"),
      headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      bindings: {},
    });
    expectPage({ status: response.status, html: await response.text(), response }, 400);
  });

  it("a body over 16 KiB gets a 413 page, whether or not its length was announced", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-in");
    const big = `email=${"a".repeat(LIMIT)}&password=x`;
    for (const body of [big, streamOf(big)]) {
      const page = await post(
        browser,
        "/dashboard/sign-in",
        body,
        "application/x-www-form-urlencoded",
      );
      expectPage(page, 413);
      expect(page.html).toContain("That form was too large to accept.");
    }
  });

  it("a signed-in form that cannot be read makes nothing", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const page = await post(
      browser,
      "/dashboard/keys",
      "--x\r\nbroken",
      "multipart/form-data; boundary=x",
    );
    expectPage(page, 400);
    const keys = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
    expect(keys?.n).toBe(0);
  });
});

describe("form bodies the dashboard reads", () => {
  it("accepts a well-formed multipart form like an urlencoded one", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-up");
    const form = new FormData();
    form.set("csrf", browser.csrf);
    form.set("email", uniqueEmail());
    form.set("password", PASSWORD);
    const page = await browser.request("/dashboard/sign-up", {
      method: "POST",
      body: form,
      headers: { Origin: ORIGIN },
    });
    expect(page.status, page.html).toBe(303);
    expect(page.location).toBe("/dashboard/account");
  });
});
