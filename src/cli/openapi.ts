/**
 * Prints the OpenAPI document without starting a server:
 *   npm run openapi                      → stdout
 *   npm run openapi -- --out FILE        → FILE
 *   npm run openapi -- --env production  → as that environment's configuration sets it
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigurationError, parseConfig } from "../config.ts";
import { buildOpenApiDocument } from "../openapi/openapi-document.ts";
import { parseCommand, runCommand, UsageError } from "./command.ts";
import { wranglerConfig } from "./project.ts";

const help = `Usage: npm run openapi -- [--out FILE] [--env staging|production]

Writes the OpenAPI 3.1 document of the API (generated from the route schemas)
to FILE, or to standard output, as one environment configures the API (its
wrangler.toml vars: servers, webhook URL rules, delivery timeout and retry
schedule, deprecation dates); without --env, local development's.`;

const root = path.resolve(import.meta.dirname, "../..");

// `npm run -s openapi | head` closes the pipe early; that is not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

async function main(argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    out: { type: "string", short: "o" },
    env: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const { env, out } = values;
  if (env !== undefined && env !== "staging" && env !== "production") {
    throw new UsageError(`--env must be staging or production, not "${env}"`);
  }
  const described = env
    ? `${env} ([env.${env}] in wrangler.toml)`
    : "local development (wrangler.toml's top level)";
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig((await wranglerConfig(root, env)).vars);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new Error(`${described}: ${error.message}`);
    throw error;
  }
  console.error(`openapi: describes ${described}`);
  const json = `${JSON.stringify(buildOpenApiDocument(config), null, 2)}\n`;
  if (out === undefined) {
    process.stdout.write(json);
  } else {
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, json);
    console.error(`openapi: wrote ${out}`);
  }
  return 0;
}

await runCommand(main);
