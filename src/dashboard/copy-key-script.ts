import type { Context } from "hono";

/** The dashboard's one script: its route below /dashboard, and its path, which the pages' CSP names alone. */
export const COPY_KEY_SCRIPT_ROUTE = "/copy-key.js";
export const COPY_KEY_SCRIPT_PATH = `/dashboard${COPY_KEY_SCRIPT_ROUTE}`;

/**
 * Adds a working "Copy" button beside a new key. Without it the page still
 * works: the key sits in a read-only field to select and copy, and the button
 * stays hidden, so nobody meets a button that does nothing.
 */
const COPY_KEY_SCRIPT = `"use strict";
for (const button of document.querySelectorAll("button[data-copy-from]")) {
  const field = document.getElementById(button.dataset.copyFrom);
  const status = document.getElementById(button.dataset.copyStatus);
  if (!field || !status) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      status.textContent = "Press Ctrl+C (or ⌘C on a Mac) to copy the selected key.";
    }
  });
}
`;

export function serveCopyKeyScript(c: Context): Response {
  return c.body(COPY_KEY_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" });
}
