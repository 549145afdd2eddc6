/**
 * Prints the OpenAPI document without starting a server:
 *   npm run openapi                      → stdout
 *   npm run openapi -- --out FILE        → FILE
 *   npm run openapi -- --env production  → as that environment's configuration sets it
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { unstable_readConfig } from "wrangler";
import { ConfigurationError, parseConfig } from "../config.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "../openapi/openapi-document.ts";

const USAGE = `Usage: npm run openapi -- [--out FILE] [--env staging|production]

Writes the OpenAPI 3.1 document of the API (generated from the route schemas)
to FILE, or to standard output, as one environment configures the API (its
wrangler.toml vars: servers, webhook URL rules, delivery timeout and retry
schedule, deprecation dates); without --env, local development's.`;

const root = path.resolve(import.meta.dirname, "../..");

function fail(reason: string): never {
  process.stderr.write(`openapi: ${reason}\n`);
  process.exit(2);
}

function options(): { out: string | undefined; env: string | undefined } {
  try {
    const { values } = parseArgs({
      options: {
        out: { type: "string", short: "o" },
        env: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (values.env !== undefined && !["staging", "production"].includes(values.env)) {
      fail(`--env must be staging or production, not "${values.env}"`);
    }
    return { out: values.out, env: values.env };
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

// `npm run -s openapi | head` closes the pipe early; that is not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

const { out, env } = options();
const described = env
  ? `${env} ([env.${env}] in wrangler.toml)`
  : "local development (wrangler.toml's top level)";
const { vars } = unstable_readConfig({ config: path.join(root, "wrangler.toml"), env });
let document: OpenApiDocument;
try {
  document = buildOpenApiDocument(parseConfig(vars));
} catch (error) {
  if (!(error instanceof ConfigurationError)) throw error;
  fail(`${described}: ${error.message}`);
}
process.stderr.write(`openapi: describes ${described}\n`);
const json = `${JSON.stringify(document, null, 2)}\n`;
if (out === undefined) {
  process.stdout.write(json);
} else {
  await mkdir(path.dirname(path.resolve(out)), { recursive: true });
  await writeFile(out, json);
  process.stderr.write(`openapi: wrote ${out}\n`);
}
