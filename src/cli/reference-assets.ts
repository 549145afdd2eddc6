/**
 * `npm run build:assets`: copies the API reference's renderer (Scalar's
 * bundle, pinned by the lock file) into dist/assets, which wrangler serves,
 * under a name carrying its hash, so it can be cached for a year; the Worker
 * reads that name from dist/reference-assets.json.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Served with every reference file: they never change under their names. */
const ASSET_HEADERS = `/reference/*
  X-Content-Type-Options: nosniff
  Cache-Control: public, max-age=31536000, immutable
`;

function scalarBundlePath(): string {
  // The package exports no subpath for its browser bundle; find it beside its entry point.
  const entry = require.resolve("@scalar/api-reference");
  return path.join(path.dirname(entry), "browser", "standalone.js");
}

/** Writes the assets; returns the path under which the Worker links the renderer. */
export async function buildReferenceAssets(root: string): Promise<string> {
  const bundle = await readFile(scalarBundlePath());
  const hash = createHash("sha256").update(bundle).digest("hex").slice(0, 16);
  const script = `/reference/standalone.${hash}.js`;
  const assets = path.join(root, "dist", "assets");
  await rm(path.join(assets, "reference"), { recursive: true, force: true });
  await mkdir(path.join(assets, "reference"), { recursive: true });
  await writeFile(path.join(assets, script), bundle);
  await writeFile(path.join(assets, "_headers"), ASSET_HEADERS);
  await writeFile(
    path.join(root, "dist", "reference-assets.json"),
    `${JSON.stringify({ script }, null, 2)}\n`,
  );
  return script;
}

if (import.meta.main) {
  const script = await buildReferenceAssets(path.resolve(import.meta.dirname, "../.."));
  process.stderr.write(`build:assets: wrote dist/assets${script}\n`);
}
