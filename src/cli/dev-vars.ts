import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Creates .dev.vars from the committed .dev.vars.example when it is missing,
 * with a fresh random ADMIN_TOKEN and SESSION_SECRET. Returns whether it made the file.
 */
export function ensureDevVars(root: string): boolean {
  const target = path.join(root, ".dev.vars");
  if (existsSync(target)) return false;
  const example = readFileSync(path.join(root, ".dev.vars.example"), "utf8");
  let text = example;
  for (const name of ["ADMIN_TOKEN", "SESSION_SECRET"]) {
    const value = randomBytes(32).toString("base64url");
    const line = new RegExp(`^${name}=.*$`, "m");
    text = line.test(text)
      ? text.replace(line, `${name}=${value}`)
      : `${text.trimEnd()}\n${name}=${value}\n`;
  }
  writeFileSync(target, text, { mode: 0o600, flag: "wx" });
  return true;
}
