import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onePixelJpeg } from "../one-pixel-jpeg.ts";
import { repo, sharedServer } from "./cli.ts";
import { signalGroup } from "./process-group.ts";

/**
 * The README's walk-throughs, run as written: every ```sh block marked
 * `<!-- walkthrough -->` runs, in order, in one shell, in the directory of the
 * `npm start` the Node files share (the only other files there make keys and
 * accounts, no animals or webhooks). The only change is the port: the README
 * says 8787, the test's server listens on a free one. The photo it uploads,
 * rex.jpg, the test makes.
 */

const MARKER = "<!-- walkthrough -->";

function walkthroughs(markdown: string): string[] {
  const blocks: string[] = [];
  const pattern = new RegExp(`${MARKER}\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``, "g");
  for (const match of markdown.matchAll(pattern)) blocks.push(match[1] ?? "");
  return blocks;
}

/**
 * Runs the script in a process group of its own, which is ended once bash
 * exits: what a walk-through starts in the background (its webhook
 * receiver) never outlives it, even when a step fails before the
 * walk-through stops it.
 */
function bash(script: string, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `set -euo pipefail\n${script}`], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", ADMIN_TOKEN: "" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => signalGroup(child, "SIGKILL"), 120_000);
    child.on("exit", () => {
      clearTimeout(timer);
      signalGroup(child, "SIGTERM");
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

const local = sharedServer();

describe("the README", () => {
  const blocks = walkthroughs(readFileSync(path.join(repo, "README.md"), "utf8"));

  it("has walk-throughs to run", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it("runs its walk-throughs as written against npm start, every reply a success", async () => {
    const port = new URL(local.server.origin).port;
    const script = blocks.join("\n").replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`);
    const photo = path.join(local.sandbox.dir, "rex.jpg");
    writeFileSync(photo, onePixelJpeg());
    const { code, output } = await bash(script, local.sandbox.dir).finally(() => rmSync(photo));
    expect(code, output).toBe(0);
    const statuses = [...output.matchAll(/HTTP\/[\d.]+ (\d{3})/g)].map((match) => match[1]);
    expect(statuses.length, output).toBeGreaterThan(3);
    expect(
      statuses.filter((status) => !status?.startsWith("2")),
      output,
    ).toEqual([]);
    // The webhook receiver it starts verified every delivery of the adoption's five events,
    // and both test events, the second after the rotation, with the secret it had before.
    expect(
      output.match(/^verified (?:pet|order)\.[a-z_]+ evt_[0-9a-z]{26} /gm),
      output,
    ).toHaveLength(5);
    expect(output.match(/^verified webhook\.test evt_[0-9a-z]{26} /gm), output).toHaveLength(2);
    expect(output, output).not.toMatch(/^refused:/m);
    // Near Bath, both animals of the Bristol shelter came with their distance, and so did it.
    expect(output.match(/"distanceKm":17\.8,/g), output).toHaveLength(3);
    // The photo went up whole, and its public address answered without a key.
    expect(output, output).toMatch(/"contentType":"image\/jpeg","size":141,/);
    expect(output, output).toMatch(/^cache-control: public, max-age=31536000, immutable\r?$/im);
  });
});
