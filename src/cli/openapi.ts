import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Config, parseConfig } from "../config.ts";
import { buildOpenApiDocument } from "../openapi/openapi-document.ts";
import { envOf, parseCommand, runCommand, wranglerConfig } from "./command.ts";

const help = `Usage: npm run openapi -- [--out FILE] [--env staging|production]

Writes the OpenAPI 3.1 document of the API (generated from the route schemas)
to FILE, or to standard output, as one environment configures the API (its
wrangler.toml vars: servers, webhook URL rules, delivery timeout and retry
schedule, deprecation dates); without --env, local development's.`;

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
  const env = envOf(values.env);
  const described = env
    ? `${env} ([env.${env}] in wrangler.toml)`
    : "local development (wrangler.toml's top level)";
  const vars = (await wranglerConfig(path.resolve(import.meta.dirname, "../.."), env)).vars;
  let config: Config;
  try {
    config = parseConfig(vars);
  } catch (error) {
    throw new Error(`${described}: ${error instanceof Error ? error.message : error}`);
  }
  console.error(`openapi: describes ${described}`);
  const json = `${JSON.stringify(buildOpenApiDocument(config), null, 2)}\n`;
  if (values.out === undefined) {
    process.stdout.write(json);
  } else {
    await mkdir(path.dirname(path.resolve(values.out)), { recursive: true });
    await writeFile(values.out, json);
    console.error(`openapi: wrote ${values.out}`);
  }
  return 0;
}

await runCommand(main);
