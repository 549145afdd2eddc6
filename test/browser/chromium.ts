import { existsSync } from "node:fs";

/** Debian's Chromium: browser tests never download a browser of their own. */
export const CHROMIUM = "/usr/bin/chromium";

/** Headless in a sandboxed container, and quiet: no background calls to Google's hosts. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** Stops the test run with the one command that fixes a missing browser. */
export function requireChromium(): void {
  if (existsSync(CHROMIUM)) return;
  console.error(
    `Chromium is not installed at ${CHROMIUM}; the browser test cannot run.\n` +
      "Install it with:  sudo apt-get update && sudo apt-get install -y chromium",
  );
  process.exit(1);
}
