import { afterEach, describe, expect, it, vi } from "vitest";
import { DashboardBrowser, type Page, uniqueEmail } from "../support/dashboard-browser.ts";
import { failingD1, failingLimiter } from "../support/faulty-bindings.ts";
import { setClock } from "../support/limiters.ts";
import { captureLogs } from "../support/logs.ts";
import { api, MANY_REQUESTS, ORIGIN, sendInTurn, tally } from "../support/request.ts";

afterEach(() => {
  vi.useRealTimers();
});

/** The chart's markup, from its figure to the end of its table. */
function chart(page: Page, id: string): string {
  const match = new RegExp(
    `<figure class="chart" data-testid="chart-${id}">[\\s\\S]*?</figure>`,
  ).exec(page.html);
  expect(match, `no chart ${id}`).not.toBeNull();
  return match?.[0] ?? "";
}

/** Each drawn bar as `start → count`. */
function bars(svg: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const match of svg.matchAll(/data-start="([^"]+)" data-count="(\d+)"/g)) {
    found[match[1] ?? ""] = Number(match[2]);
  }
  return found;
}

async function use(key: string, count: number): Promise<void> {
  expect(tally(await sendInTurn(count, "/v1/pets", { key }))).toEqual({ 200: count });
}

describe("usage charts on the account page", MANY_REQUESTS, () => {
  it("draw this hour's and today's requests as bars, with titles, axes and a table", async () => {
    setClock("2031-03-10T14:20:00Z");
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key } = await browser.createKey();
    await use(key, 3);
    const page = await browser.get("/dashboard/account");

    const hourly = chart(page, "account-hourly");
    expect(bars(hourly)).toEqual({ "2031-03-10T14:00:00.000Z": 3 });
    expect(hourly).toContain('role="img"');
    expect(hourly).toContain('aria-labelledby="account-hourly-title account-hourly-desc"');
    expect(hourly).toContain(
      '<title id="account-hourly-title">Requests per hour, last 24 hours</title>',
    );
    expect(hourly).toContain(
      "3 requests in all; the busiest hour, 2031-03-10 14:00–15:00 UTC, had 3 requests.",
    );
    expect(hourly).toContain("Hour (UTC)");
    expect(hourly).toContain(">18:00<");
    expect(hourly.match(/<tr><td>/g)).toHaveLength(24);
    expect(hourly).toContain("<title>2031-03-10 14:00–15:00 UTC: 3 requests</title>");

    const daily = chart(page, "account-daily");
    expect(bars(daily)).toEqual({ "2031-03-10T00:00:00.000Z": 3 });
    expect(daily).toContain("Day (UTC)");
    expect(daily).toContain(">10 Mar<");
    expect(daily.match(/<tr><td>/g)).toHaveLength(30);
  });

  it("put each request in its hour and day, and leave out what is older than they show", async () => {
    setClock("2031-02-01T09:00:00Z");
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    await browser.newAccount(email);
    const { key } = await browser.createKey();
    await use(key, 1); // 38 days before the page: in neither chart.
    vi.setSystemTime(new Date("2031-02-12T23:59:00Z"));
    await use(key, 2); // 29 days back: the first day of the daily chart.
    vi.setSystemTime(new Date("2031-03-10T13:10:00Z"));
    await use(key, 4); // Yesterday by the hour, today by the day.
    vi.setSystemTime(new Date("2031-03-11T12:59:00Z"));
    await use(key, 1);
    vi.setSystemTime(new Date("2031-03-11T13:30:00Z"));
    await browser.signIn(email); // The first session ended weeks ago.
    const page = await browser.get("/dashboard/account");

    expect(bars(chart(page, "account-hourly"))).toEqual({
      "2031-03-11T12:00:00.000Z": 1,
    });
    expect(bars(chart(page, "account-daily"))).toEqual({
      "2031-02-12T00:00:00.000Z": 2,
      "2031-03-10T00:00:00.000Z": 4,
      "2031-03-11T00:00:00.000Z": 1,
    });
  });

  it("add up the account's keys, and draw each key's own charts", async () => {
    setClock("2031-03-10T08:05:00Z");
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const first = (await browser.createKey()).key;
    const second = (await browser.createKey()).key;
    await use(first, 2);
    await use(second, 1);
    const page = await browser.get("/dashboard/account");

    expect(bars(chart(page, "account-hourly"))).toEqual({ "2031-03-10T08:00:00.000Z": 3 });
    const own = (key: string) =>
      new RegExp(
        `<details class="key-usage" data-usage-of="${key.slice(-4)}">[\\s\\S]*?</details>\\s*(?=<details class="key-usage"|</section>)`,
      ).exec(page.html)?.[0] ?? "";
    expect(own(first)).toContain("2 requests in the last 30 days");
    expect(own(second)).toContain("1 request in the last 30 days");
    expect(bars(own(second))).toEqual({
      "2031-03-10T08:00:00.000Z": 1,
      "2031-03-10T00:00:00.000Z": 1,
    });
  });

  it("say so when a key has no requests, and count in words that agree", async () => {
    setClock("2031-03-10T08:05:00Z");
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key } = await browser.createKey();
    let page = await browser.get("/dashboard/account");
    expect(page.html).toContain("No requests with this key in the last 30 days.");
    expect(page.html).toContain("No requests in this period.");
    expect(bars(chart(page, "account-hourly"))).toEqual({});

    await use(key, 1);
    page = await browser.get("/dashboard/account");
    expect(page.html).toMatch(/data-testid="usage-minute">1<\/strong> request\./);
    expect(page.html).toMatch(/data-testid="usage-day">1<\/strong> request\./);
    expect(page.html).not.toMatch(/\b1 requests\b/);
  });

  it("load nothing from elsewhere: the SVG is in the page", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const page = await browser.get("/dashboard/account");
    expect(page.html).toContain("<svg");
    expect(page.html).not.toMatch(/<link|<img|<iframe|<object|src="http|href="http|@import|url\(/i);
  });
});

describe("when usage cannot be read", () => {
  captureLogs();
  /** The browser's account page, from an app whose given bindings fail. */
  function accountPageWith(browser: DashboardBrowser, bindings: Partial<Env>) {
    return api("/dashboard/account", {
      headers: {
        Cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        Origin: ORIGIN,
      },
      bindings,
    });
  }

  it("the account page still shows the keys, and the new key once, and says usage is unavailable", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const created = await browser.post("/dashboard/keys");
    expect(created.status).toBe(303);
    const response = await accountPageWith(browser, { RATE_LIMITER: failingLimiter() });
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain("Usage cannot be shown just now");
    expect(html).toMatch(/ps_test_[0-9A-Za-z]{32}/);
    expect(html).toMatch(/data-key-last-four="/);
    const again = await browser.get("/dashboard/account");
    expect(again.html).not.toMatch(/ps_test_[0-9A-Za-z]{32}/);
  });

  it("a database that cannot answer gives a 503 page, not a 500, and keeps the new key for later", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    await browser.post("/dashboard/keys");
    const response = await accountPageWith(browser, { DB: failingD1() });
    const html = await response.text();
    expect(response.status).toBe(503);
    expect(html).toContain("Briefly unavailable");
    const later = await browser.get("/dashboard/account");
    expect(later.html).toMatch(/ps_test_[0-9A-Za-z]{32}/);
  });
});
