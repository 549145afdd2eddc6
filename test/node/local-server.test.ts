import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../free-port.ts";
import {
  type LocalServer,
  lastLine,
  lines,
  makeSandbox,
  petsWith,
  type Sandbox,
  startServer,
} from "./cli.ts";

// The real `npm start`, on a free port with state in a throwaway directory;
// the commands are told only that directory, never the address.
let sandbox: Sandbox;
let stateDir: string;
let server: LocalServer | undefined;
const record = () => path.join(stateDir, "npm-start.json");

/** Marks the state's D1 as made by an earlier version: it applied a migration no longer shipped. */
function addUnknownMigration(name: string): void {
  const d1 = path.join(stateDir, "v3", "d1");
  const files = readdirSync(d1, { recursive: true, encoding: "utf8" });
  let marked = 0;
  for (const file of files.filter((file) => file.endsWith(".sqlite"))) {
    const db = new DatabaseSync(path.join(d1, file));
    const migrations =
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'";
    if (db.prepare(migrations).get()) {
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").run(name);
      marked += 1;
    }
    db.close();
  }
  expect(marked).toBe(1);
}

const key = (...args: string[]) => sandbox.key(...args, "--persist-to", stateDir);
const account = (...args: string[]) => sandbox.account(...args, "--persist-to", stateDir);

beforeAll(async () => {
  sandbox = makeSandbox();
  stateDir = mkdtempSync(path.join(tmpdir(), "petstore-state-"));
  server = await startServer(sandbox, stateDir);
});
afterAll(async () => {
  await server?.stop();
  sandbox?.remove();
  rmSync(stateDir, { recursive: true, force: true });
});

let revoked = "";
let untouched = "";

describe("npm start -- --port N --persist-to DIR", () => {
  it("records where it serves, so the command finds it from the state directory alone", async () => {
    expect(JSON.parse(readFileSync(record(), "utf8"))).toMatchObject({ url: server?.origin });
    const created = await key("create", "--plan", "free");
    expect(created.code).toBe(0);
    revoked = lastLine(created.stdout);
    untouched = lastLine((await key("create", "--account", "stays@example.com")).stdout);
    expect((await petsWith(server?.origin ?? "", revoked)).status).toBe(200);

    const result = await key("revoke", revoked);
    expect(result.code).toBe(0);
    expect((await petsWith(server?.origin ?? "", revoked)).status).toBe(401);
  });

  it("prints its table of bindings once, and no line per request of its own", async () => {
    const said = lines(server?.output() ?? "");
    const tables = said.filter((line) => line.includes("has access to the following bindings"));
    expect(tables).toHaveLength(1);
    expect(said.filter((line) => line.includes("Connection status updated"))).toEqual([]);
    expect(said.filter((line) => /\[wrangler:info\] GET \/health/.test(line))).toEqual([]);
  });

  it("refuses to serve the same state twice", async () => {
    const port = String(await freePort());
    const second = await sandbox.run("start", ["--port", port, "--persist-to", stateDir]);
    expect(second.code).toBe(1);
    expect(lines(second.stderr)).toEqual([
      `error: npm start already serves ${stateDir} on ${server?.origin}; stop it first, or give another --persist-to`,
    ]);
  });

  it("is not found by a command looking at another state directory", async () => {
    const result = await sandbox.key("list", "--account", "stays@example.com");
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      "error: no local Worker is running (none serves .wrangler/state); start one with `npm start`, or pass --url URL",
    ]);
  });

  it("removes its record when stopped", async () => {
    await server?.stop();
    server = undefined;
    expect(existsSync(record())).toBe(false);
  });
});

describe("with no Worker running", () => {
  it.each([
    ["revoke", () => key("revoke", untouched)],
    ["create", () => key("create", "--account", "nobody@example.com")],
    ["account plan", () => account("plan", "stays@example.com", "business")],
    ["account invite", () => account("invite", "invitee@example.com")],
  ])("%s says so in one line, exits 1 and prints nothing else", async (_name, run) => {
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toEqual([
      `error: no local Worker is running (none serves ${stateDir}); start one with \`npm start -- --persist-to ${stateDir}\`, or pass --url URL`,
    ]);
  });

  it("a record left by a server that no longer answers counts as none", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    writeFileSync(record(), JSON.stringify({ url, pid: process.pid }));
    const result = await key("revoke", untouched);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: no local Worker is running/);
  });

  it("nothing was changed: a server started later on the same state knows none of it", async () => {
    server = await startServer(sandbox, stateDir);
    expect(server.output()).not.toContain("earlier version");
    expect((await petsWith(server.origin, untouched)).status).toBe(200);
    expect((await petsWith(server.origin, revoked)).status).toBe(401);
    const limits = await key("list", "--account", "stays@example.com");
    expect(limits.stdout).toMatch(/^stays@example\.com: free /);
    for (const email of ["nobody@example.com", "invitee@example.com"]) {
      const list = await key("list", "--account", email);
      expect(list.stderr).toMatch(new RegExp(`^error: no account ${email}`));
    }
  });
});

describe("npm start on state made by an earlier version", () => {
  it("says in one line that it starts afresh, discards D1, KV and Durable Objects, and serves", async () => {
    await server?.stop();
    addUnknownMigration("0000_from_an_earlier_version.sql");

    server = await startServer(sandbox, stateDir);
    const said = lines(server.output()).filter((line) => line.includes("earlier version"));
    expect(said).toEqual([
      `Local state in ${stateDir} was made by an earlier version (its D1 applied 0000_from_an_earlier_version.sql); starting afresh without its D1, KV and Durable Objects.`,
    ]);
    expect((await petsWith(server.origin, untouched)).status).toBe(401);
    const list = await key("list", "--account", "stays@example.com");
    expect(list.stderr).toMatch(/^error: no account stays@example\.com/);

    const created = await key("create", "--plan", "free");
    expect(created.code).toBe(0);
    expect((await petsWith(server.origin, lastLine(created.stdout))).status).toBe(200);
  });
});
