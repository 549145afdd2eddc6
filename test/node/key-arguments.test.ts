import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lines, makeSandbox, type Sandbox } from "./cli.ts";

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox();
});
afterAll(() => sandbox.remove());

const someKey = `ps_test_${"b".repeat(32)}`;

describe("npm run key --help", () => {
  it.each([
    [[], "Usage: npm run key -- <subcommand>"],
    ["create", "Usage: npm run key -- create --plan"],
    ["revoke", "Usage: npm run key -- revoke <key>"],
    ["plan", "Usage: npm run key -- plan <key>"],
  ])("%s --help prints its usage and exits 0", async (subcommand, usage) => {
    const result = await sandbox.key(...[subcommand].flat(), "--help");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(usage);
  });
});

describe("npm run key with bad arguments", () => {
  it.each([
    ["no subcommand", [], /missing subcommand/],
    ["an unknown subcommand", ["rotate"], /unknown subcommand "rotate"/],
    ["an unknown plan", ["create", "--plan", "gold"], /unknown plan "gold"/],
    ["create without --plan", ["create"], /--plan is required/],
    ["enterprise without limits", ["create", "--plan", "enterprise"], /enterprise needs both/],
    [
      "enterprise with one limit",
      ["create", "--plan", "enterprise", "--per-minute", "5"],
      /enterprise needs both/,
    ],
    [
      "free with --per-minute",
      ["create", "--plan", "free", "--per-minute", "5"],
      /only for enterprise/,
    ],
    [
      "a limit that is not a positive whole number",
      ["create", "--plan", "enterprise", "--per-minute", "0", "--per-day", "5"],
      /positive whole number/,
    ],
    ["an unknown option", ["create", "--plan", "free", "--colour"], /Unknown option '--colour'/],
    ["an unknown environment", ["create", "--plan", "free", "--env", "dev"], /unknown --env "dev"/],
    [
      "a malformed account",
      ["create", "--plan", "free", "--account", "bob"],
      /--account must be an email/,
    ],
    ["revoke of a malformed key", ["revoke", "ps_test_short"], /not a well-formed API key/],
    ["revoke without a key", ["revoke"], /missing <key>/],
    ["plan without a plan", ["plan", someKey], /missing <plan>/],
    ["plan to an unknown plan", ["plan", someKey, "gold"], /unknown plan "gold"/],
    ["plan free with limits", ["plan", someKey, "free", "--per-day", "9"], /only for enterprise/],
    [
      "--persist-to with --env",
      ["revoke", someKey, "--env", "staging", "--persist-to", "x"],
      /cannot go with --env/,
    ],
  ])("%s: exit 2 with a one-line reason on stderr", async (_name, args, reason) => {
    const result = await sandbox.key(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(reason);
  });
});

describe("npm start arguments", () => {
  it("--help prints its usage and exits 0", async () => {
    const result = await sandbox.start("--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: npm start");
  });

  it.each([
    [["--port", "99999"], /--port must be 1–65535/],
    [["--port", "http"], /--port must be 1–65535/],
    [["--host", "0.0.0.0"], /Unknown option '--host'/],
  ])("%j: exit 2 with a one-line reason", async (args, reason) => {
    const result = await sandbox.start(...args);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(reason);
  });
});
