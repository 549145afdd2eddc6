import { expect } from "vitest";
import { type ApiRequestInit, api, ORIGIN } from "./request.ts";

export const PASSWORD = "correct horse battery";
const KEY_IN_TEXT = /ps_test_[0-9A-Za-z]{32}/g;

let ipCounter = 0;
let emailCounter = 0;

/** A fresh address, so tests in one file never collide. */
export function uniqueEmail(label = "user"): string {
  emailCounter += 1;
  return `${label}-${emailCounter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

export interface Page {
  response: Response;
  status: number;
  html: string;
  location: string | null;
}

/**
 * A cookie-keeping browser without JavaScript: it sends Origin on posts (as
 * browsers do) and its own client IP, and reads every body it receives.
 */
export class DashboardBrowser {
  readonly cookies = new Map<string, string>();
  /** The client address it sends: its own, unless the test names one. */
  readonly ip: string;
  /** The CSRF token of the last page that carried one. */
  csrf = "";

  constructor(ip = `198.51.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`) {
    this.ip = ip;
  }

  async request(path: string, init: ApiRequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    headers.set("CF-Connecting-IP", this.ip);
    if (this.cookies.size > 0 && !headers.has("Cookie")) {
      headers.set(
        "Cookie",
        [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
      );
    }
    const response = await api(path, { ...init, headers, redirect: "manual" });
    this.remember(response.headers.getSetCookie());
    const html = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) this.csrf = token;
    return { response, status: response.status, html, location: response.headers.get("Location") };
  }

  get(path: string): Promise<Page> {
    return this.request(path);
  }

  /**
   * Posts a form; the current CSRF token goes with it unless the fields say
   * otherwise. A list is sent as one field per value, as ticked checkboxes are.
   */
  post(
    path: string,
    fields: Record<string, string | string[]> = {},
    headers: Record<string, string> = {},
  ): Promise<Page> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries({ csrf: this.csrf, ...fields })) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    return this.request(path, {
      method: "POST",
      body,
      headers: { Origin: ORIGIN, ...headers },
    });
  }

  async signUp(email: string, password = PASSWORD): Promise<Page> {
    await this.get("/dashboard/sign-up");
    return this.post("/dashboard/sign-up", { email, password });
  }

  async signIn(email: string, password = PASSWORD): Promise<Page> {
    await this.get("/dashboard/sign-in");
    return this.post("/dashboard/sign-in", { email, password });
  }

  /** Signs up a new account and lands on its account page. */
  async newAccount(email = uniqueEmail()): Promise<Page> {
    const page = await this.signUp(email);
    expect(page.status, page.html).toBe(303);
    return this.get("/dashboard/account");
  }

  /** Creates a key (post, then the page the 303 leads to) and returns it as that page shows it, once. */
  async createKey(): Promise<{ key: string; page: Page }> {
    const created = await this.post("/dashboard/keys");
    expect(created.status, created.html).toBe(303);
    expect(created.location).toBe("/dashboard/account");
    const page = await this.get("/dashboard/account");
    const keys = keysIn(page.html);
    expect(keys).toHaveLength(1);
    return { key: keys[0] ?? "", page };
  }

  private remember(setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair = "", ...attributes] = header.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** Every full key in the text (each appears once per showing). */
export function keysIn(text: string): string[] {
  return [...new Set(text.match(KEY_IN_TEXT) ?? [])];
}

/** The hash behind the roll/revoke buttons of the key ending in these four characters. */
export function keyHashOnPage(html: string, lastFour: string): string {
  const row = new RegExp(`data-key-last-four="${lastFour}"[\\s\\S]*?</tr>`).exec(html)?.[0] ?? "";
  const hash = /\/dashboard\/keys\/([0-9a-f]{64})\//.exec(row)?.[1];
  expect(hash, `no actions for key …${lastFour}`).toBeDefined();
  return hash ?? "";
}

/** The text a person reads in a field's error paragraph. */
export function fieldError(html: string, field: "email" | "password"): string | undefined {
  return new RegExp(`id="${field}-error"[^>]*>([^<]*)<`).exec(html)?.[1];
}

/** The `id` of the one element a page focuses on load (`autofocus`), or undefined when none does. */
export function autofocused(html: string): string | undefined {
  const focused = [...html.matchAll(/<[^>]*\sautofocus(?:="")?[^>]*>/g)];
  expect(focused.length, "at most one field has the focus").toBeLessThanOrEqual(1);
  return /\sid="([^"]+)"/.exec(focused[0]?.[0] ?? "")?.[1];
}
