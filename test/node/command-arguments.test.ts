import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Command, lines, makeSandbox, type Run, repo, type Sandbox } from "./cli.ts";

// No Worker runs here: every one of these is answered before the command looks for one.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox();
});
afterAll(() => sandbox.remove());

let runs = 0;

/**
 * Runs a command's entry file in this process as `node src/cli/<command>.ts`
 * runs it (its argv, the project as working directory, no ADMIN_TOKEN), with
 * what it prints and the exit code it sets: a Node start per case would cost
 * each about half a second. The last test runs real processes.
 */
async function runHere(command: Command, args: string[]): Promise<Run> {
  const entry = path.join(repo, `src/cli/${command}.ts`);
  const saved = { argv: process.argv, cwd: process.cwd(), token: process.env.ADMIN_TOKEN };
  const printed = { stdout: "", stderr: "" };
  const log = vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => {
    printed.stdout += `${parts.join(" ")}\n`;
  });
  const error = vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => {
    printed.stderr += `${parts.join(" ")}\n`;
  });
  process.argv = [process.execPath, entry, ...args];
  process.chdir(sandbox.dir);
  delete process.env.ADMIN_TOKEN;
  process.exitCode = undefined;
  try {
    // A fresh instance of the entry module each time, so its top level runs again.
    runs += 1;
    await import(`${entry}?run=${runs}`);
    return { code: Number(process.exitCode ?? 0), ...printed };
  } finally {
    process.exitCode = undefined;
    process.argv = saved.argv;
    process.chdir(saved.cwd);
    if (saved.token !== undefined) process.env.ADMIN_TOKEN = saved.token;
    log.mockRestore();
    error.mockRestore();
  }
}

const someKey = `ps_test_${"b".repeat(32)}`;

describe("--help", () => {
  it.each<[Command, string[], string]>([
    ["key", [], "Usage: npm run key -- <subcommand>"],
    ["key", ["create"], "Usage: npm run key -- create"],
    ["key", ["create"], "--scopes S,S…             only these scopes"],
    ["key", ["create"], "--expires-in TIME         the key stops working"],
    ["key", ["create"], "--allow-ip CIDR           only requests from this address"],
    ["key", ["revoke"], "Usage: npm run key -- revoke <key>"],
    ["key", ["plan"], "Usage: npm run key -- plan <key>"],
    ["key", ["list"], "Usage: npm run key -- list [--account EMAIL]"],
    ["account", [], "Usage: npm run account -- <subcommand>"],
    ["account", ["plan"], "Usage: npm run account -- plan <email>"],
    ["account", ["invite"], "Usage: npm run account -- invite <email>"],
    ["start", [], "Usage: npm start"],
  ])("%s %j --help prints its usage and exits 0", async (command, subcommand, usage) => {
    const result = await runHere(command, [...subcommand, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(usage);
  });
});

describe("bad arguments: exit 2 with a one-line reason on stderr, nothing on stdout", () => {
  it.each<[string, Command, string[], RegExp]>([
    ["no subcommand", "key", [], /missing subcommand: create, revoke, plan, list \(/],
    ["an unknown subcommand", "key", ["rotate"], /unknown subcommand "rotate"/],
    ["an unknown plan", "key", ["create", "--plan", "gold"], /--plan: Invalid option/],
    [
      "enterprise without limits",
      "key",
      ["create", "--plan", "enterprise"],
      /Enterprise needs perMinute and perDay/,
    ],
    [
      "enterprise with one limit",
      "key",
      ["create", "--plan", "enterprise", "--per-minute", "5"],
      /Enterprise needs perMinute and perDay/,
    ],
    [
      "more a minute than a day",
      "key",
      ["create", "--plan", "enterprise", "--per-minute", "50", "--per-day", "5"],
      /--per-minute: perMinute cannot exceed perDay/,
    ],
    [
      "limits without a plan",
      "key",
      ["create", "--per-minute", "5", "--per-day", "9"],
      /--per-minute: Only Enterprise takes its own numbers/,
    ],
    [
      "free with --per-minute",
      "key",
      ["create", "--plan", "free", "--per-minute", "5"],
      /--per-minute: Only Enterprise takes its own numbers/,
    ],
    [
      "a limit that is not a positive whole number",
      "key",
      ["create", "--plan", "enterprise", "--per-minute", "0", "--per-day", "5"],
      /--per-minute: Too small/,
    ],
    ["an unknown option", "key", ["create", "--colour"], /Unknown option '--colour'/],
    [
      "an unknown scope",
      "key",
      ["create", "--scopes", "pets:read,pets:admin"],
      /^error: --scopes: /,
    ],
    ["an empty scope list", "key", ["create", "--scopes", ""], /^error: --scopes: /],
    [
      "a scope twice",
      "key",
      ["create", "--scopes", "pets:read,pets:read"],
      /--scopes: Each scope at most once/,
    ],
    [
      "an expiry without a unit",
      "key",
      ["create", "--expires-in", "90"],
      /--expires-in takes a number and s, m, h or d/,
    ],
    [
      "an expiry in weeks",
      "key",
      ["create", "--expires-in", "2w"],
      /--expires-in takes a number and s, m, h or d/,
    ],
    [
      "an expiry under a minute",
      "key",
      ["create", "--expires-in", "59s"],
      /--expires-in: A key lives at least a minute/,
    ],
    [
      "an expiry over a year",
      "key",
      ["create", "--expires-in", "366d"],
      /--expires-in: A key lives at most a year/,
    ],
    [
      "an address that is not one",
      "key",
      ["create", "--allow-ip", "localhost"],
      /--allow-ip: "localhost" is not an address or CIDR range/,
    ],
    [
      "a range with host bits",
      "key",
      ["create", "--allow-ip", "10.1.2.3/8"],
      /--allow-ip: "10\.1\.2\.3\/8" has bits set past its prefix; did you mean 10\.0\.0\.0\/8\?/,
    ],
    [
      "eleven ranges",
      "key",
      ["create", ...Array.from({ length: 11 }, (_, i) => ["--allow-ip", `10.${i}.0.0/16`]).flat()],
      /--allow-ip: At most 10 ranges/,
    ],
    ["an unknown environment", "key", ["create", "--env", "dev"], /unknown --env "dev"/],
    ["a malformed account", "key", ["create", "--account", "bob"], /^error: --account: /],
    ["revoke of a malformed key", "key", ["revoke", "ps_test_short"], /not a well-formed API key/],
    ["revoke without a key", "key", ["revoke"], /missing <key>/],
    ["revoke of two keys", "key", ["revoke", someKey, someKey], /unexpected argument/],
    ["plan without a plan", "key", ["plan", someKey], /missing <plan>/],
    ["plan to an unknown plan", "key", ["plan", someKey, "gold"], /<plan>: Invalid input/],
    [
      "plan account with limits",
      "key",
      ["plan", someKey, "account", "--per-day", "9"],
      /Only Enterprise/,
    ],
    ["list of an account that is no address", "key", ["list", "--account", "nobody"], /--account/],
    ["import, which is no more", "key", ["import"], /unknown subcommand "import"/],
    ["--url that is not a URL", "key", ["revoke", someKey, "--url", "localhost"], /--url must be/],
    [
      "--url in the clear to another machine",
      "key",
      ["revoke", someKey, "--url", "http://api.example.com"],
      /--url must use https unless it is this machine/,
    ],
    [
      "--persist-to with --env",
      "key",
      ["revoke", someKey, "--env", "staging", "--persist-to", "x"],
      /cannot go with --url or --env/,
    ],
    [
      "--url with --env",
      "key",
      ["revoke", someKey, "--env", "staging", "--url", "https://example.com"],
      /give one of them/,
    ],
    [
      "--env without ADMIN_TOKEN in the environment",
      "key",
      ["revoke", someKey, "--env", "production"],
      /--env production needs ADMIN_TOKEN/,
    ],
    ["account: no subcommand", "account", [], /missing subcommand: plan, invite/],
    ["account plan of a malformed email", "account", ["plan", "bob", "pro"], /^error: <email>: /],
    ["account plan without a plan", "account", ["plan", "a@example.com"], /missing <plan>/],
    [
      "account plan to account",
      "account",
      ["plan", "a@example.com", "account"],
      /<plan>: Invalid option/,
    ],
    [
      "account plan enterprise without limits",
      "account",
      ["plan", "a@example.com", "enterprise"],
      /Enterprise needs perMinute and perDay/,
    ],
    ["invite without an email", "account", ["invite"], /missing <email>/],
    ["start on port 99999", "start", ["--port", "99999"], /--port must be 1–65535/],
    ["start on port http", "start", ["--port", "http"], /--port must be 1–65535/],
    [
      "start with the debugger on port 0",
      "start",
      ["--inspector-port", "0"],
      /--inspector-port must be 1–65535, got "0"/,
    ],
    ["start with --host", "start", ["--host", "0.0.0.0"], /Unknown option '--host'/],
    ["start with an empty --persist-to", "start", ["--persist-to="], /needs a directory/],
  ])("%s", async (_name, command, args, reason) => {
    const result = await runHere(command, args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(reason);
  });
});

describe("as their own processes", () => {
  it.each<[Command, string[], number, RegExp]>([
    ["key", ["--help"], 0, /^$/],
    ["key", ["create", "--plan", "gold"], 2, /^error: --plan: Invalid option.*\(see --help\)$/],
    ["account", [], 2, /^error: missing subcommand: plan, invite/],
    ["start", ["--port", "http"], 2, /^error: --port must be 1–65535/],
  ])("%s %j exits %i, as run in this process", async (command, args, code, stderr) => {
    const [own, here] = [await sandbox.run(command, args), await runHere(command, args)];
    expect(own.code).toBe(code);
    expect(lines(own.stderr).length).toBeLessThanOrEqual(1);
    expect(own.stderr.trimEnd()).toMatch(stderr);
    expect(here).toEqual(own);
  });
});
