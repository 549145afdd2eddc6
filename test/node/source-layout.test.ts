import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repo } from "./cli.ts";

/*
 * What no compiler checks about src/: the resource rooms import only
 * downwards (the README's Layout section states the order), every export is
 * imported somewhere, and no file outgrows one job.
 */

/** The resource rooms, top to bottom: each imports only from those after it. */
const LAYERS = [
  "deliveries",
  "webhooks",
  "webhook-urls",
  "events",
  "orders",
  "photos",
  "pets",
  "categories",
  "catalogue",
  "outbox",
];
const MAX_LINES = 350;
/** Loaded by the runtime or run as commands, not imported: their exports are their interface. */
const ENTRY_POINTS = ["src/index.ts", "src/cli/"];

const src = path.join(repo, "src");

function filesUnder(dir: string, skip: string[] = []): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((file) => path.join(dir, file))
    .filter((file) => /\.tsx?$/.test(file) && !skip.some((part) => file.includes(part)));
}

const sources = filesUnder(src);
const importers = [
  ...sources,
  ...filesUnder(path.join(repo, "test"), ["/generated/"]),
  path.join(repo, "worker-configuration.d.ts"),
];
const text = new Map(importers.map((file) => [file, readFileSync(file, "utf8")]));

/** A relative specifier as the file it names, or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`].find((candidate) => existsSync(candidate));
}

interface ImportOf {
  module: string;
  /** The names imported, or "*" with the local name of a namespace import. */
  names: string[];
  namespace?: string;
}

/** An import or re-export clause: a default, a namespace, a list, or a default and one of those. */
const STATEMENT =
  /^\s*(?:import|export)\s+(?:type\s+)?((?:[\w$]+\s*,\s*)?(?:\*\s+as\s+[\w$]+|\*|\{[^}]*\}|[\w$]+))\s+from\s*["']([^"']+)["']/gm;
const DYNAMIC = /import\(\s*["']([^"']+)["']\s*\)(?:\.([\w$]+))?/g;

/** Every static or dynamic import (and re-export) in a file, with what it takes. */
function importsOf(file: string): ImportOf[] {
  const source = text.get(file) ?? "";
  const found: ImportOf[] = [];
  for (const [, clause = "", specifier = ""] of source.matchAll(STATEMENT)) {
    const module = resolve(file, specifier);
    if (!module) continue;
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause)?.[1];
    const listed = /\{([^}]*)\}/.exec(clause)?.[1] ?? "";
    const names = listed
      .split(",")
      .map(
        (part) =>
          part
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0] ?? "",
      )
      .filter(Boolean);
    if (clause.trim() === "*") names.push("*");
    found.push(namespace ? { module, names, namespace } : { module, names });
  }
  for (const [, specifier = "", member] of source.matchAll(DYNAMIC)) {
    const module = resolve(file, specifier);
    if (module) found.push({ module, names: [member ?? "*"] });
  }
  return found;
}

const roomOf = (file: string) => path.relative(src, file).split(path.sep)[0] ?? "";

describe("src/", () => {
  it("has resource rooms that import only from the rooms below them", () => {
    const upward: string[] = [];
    for (const file of sources) {
      const layer = LAYERS.indexOf(roomOf(file));
      if (layer === -1) continue;
      for (const { module } of importsOf(file)) {
        const target = LAYERS.indexOf(roomOf(module));
        if (target !== -1 && target < layer) {
          upward.push(`${path.relative(repo, file)} imports ${path.relative(repo, module)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("exports only what another file imports", () => {
    const used = new Map<string, Set<string>>();
    for (const importer of importers) {
      for (const { module, names, namespace } of importsOf(importer)) {
        const set = used.get(module) ?? new Set<string>();
        for (const name of names) set.add(name);
        if (namespace) {
          const member = new RegExp(`\\b${namespace}\\.(\\w+)`, "g");
          for (const [, name] of (text.get(importer) ?? "").matchAll(member)) set.add(name ?? "");
        }
        used.set(module, set);
      }
    }
    const declaration =
      /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|abstract\s+class|type|interface|enum)\s+([\w$]+)/gm;
    const unused: string[] = [];
    for (const file of sources) {
      const relative = path.relative(repo, file);
      if (ENTRY_POINTS.some((entry) => relative.startsWith(entry))) continue;
      const imported = used.get(file) ?? new Set<string>();
      if (imported.has("*")) continue;
      for (const [, name] of (text.get(file) ?? "").matchAll(declaration)) {
        if (name && !imported.has(name)) unused.push(`${relative}: ${name}`);
      }
    }
    expect(unused).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = sources
      .map((file) => [path.relative(repo, file), (text.get(file) ?? "").split("\n").length - 1])
      .filter(([, lines]) => Number(lines) > MAX_LINES);
    expect(long).toEqual([]);
  });
});
