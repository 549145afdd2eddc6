import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";

const SCREENSHOTS = path.resolve(import.meta.dirname, "../../.screenshots");
const WIDTHS = [1280, 390];
export const PASSWORD = "a long enough password";

export async function screenshotFolder(): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
}

/**
 * The page as it is, at each width, without loading it again: nothing may
 * scroll sideways (the document no wider than the window), and a screenshot
 * of the whole page at each width lands in .screenshots/.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= width, `${name} is ${scrollWidth} px wide at ${width} px`);
    await page.screenshot({
      path: path.join(SCREENSHOTS, `dashboard-${name}-${width}.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize({ width: WIDTHS[0] ?? 1280, height: 900 });
}

/**
 * Clicks a button that posts a form and waits for the page the server
 * answers with, at whatever address (a refused form comes back at its own),
 * so what is read next is read from that page and not the one before it.
 */
export async function submit(page: Page, button: Locator): Promise<void> {
  const answered = page.waitForEvent("framenavigated", (frame) => frame === page.mainFrame());
  await button.click();
  await answered;
  await page.waitForLoadState();
}

/** The id of the element that has the focus, or the tag name of one without an id. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || "");
}

export async function signUp(page: Page, origin: string, email: string): Promise<void> {
  await page.goto(`${origin}/dashboard/sign-up`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${origin}/dashboard/account`);
}
