import { readFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import path from "node:path";

/** A CPU profile as the DevTools protocol's `Profiler.stop` returns it. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a sampled frame's code came from, after the bundle's source map. */
interface Origin {
  /** A repository file (`src/pets/pets.queries.ts`), a package file (`hono/dist/compose.js`), or a runtime script. */
  module: string;
  functionName: string;
  line: number;
}

/**
 * What each share of the time is, first match wins: the API's own layers by
 * the files that make them, then the libraries and the runtime. The floor
 * has none of the first five.
 */
const CATEGORIES: { name: string; test: (origin: Origin) => boolean }[] = [
  {
    name: "the /v1 path: its steps and each route's checks, in order",
    test: ({ module }) => /^src\/middleware\/api-request/.test(module),
  },
  {
    name: "auth: the key's hash and record",
    test: ({ module }) =>
      /^src\/(middleware\/authenticate|keys\/|utils\/(sha256|expiring-cache))/.test(module),
  },
  {
    name: "limiter: its client, middleware and object",
    test: ({ module }) => /^src\/(middleware\/rate-limit|rate-limit\/)/.test(module),
  },
  {
    name: "response chain: headers, request id, conditional reads, logging",
    test: ({ module }) =>
      /^src\/(middleware\/(response-chain|conditional-read|cors-preflight|deprecation|method-not-allowed)|logging)/.test(
        module,
      ) ||
      /^hono\/dist\/(middleware\/(cors|etag|request-id|secure-headers)|utils\/(crypto|etag))/.test(
        module,
      ),
  },
  {
    name: "Hono's combine: the except() around auth, limits and the key check",
    test: ({ module }) => /^hono\/dist\/middleware\/combine\//.test(module),
  },
  {
    name: "services: the isolate's, looked up per request",
    test: ({ module }) =>
      /^src\/(services|middleware\/services|config|utils\/once-per)/.test(module),
  },
  {
    name: "validation: Zod, OpenAPI routes, body checks",
    test: ({ module }) =>
      /^(zod|@hono\/zod-openapi|@asteasolutions)\//.test(module) ||
      /^src\/(validation|middleware\/json-|api\/)/.test(module),
  },
  {
    name: "storage guard: a timeout around each storage call",
    test: ({ module }) => /^src\/storage\//.test(module),
  },
  {
    name: "Drizzle: binding statements, mapping rows",
    test: ({ module }) => /^drizzle-orm\//.test(module) || /^src\/db\//.test(module),
  },
  {
    // V8 counts JSON's builtins in their caller's self time: D1's client parses
    // each answer in toJson; Hono's c.json and c.req.json count as Hono's.
    name: "JSON: D1's answers parsed",
    test: ({ module, functionName }) =>
      (module === "cloudflare-internal:d1-api" && functionName === "toJson") ||
      (module === "" && /^(parse|stringify)$/.test(functionName)),
  },
  {
    name: "D1 binding (workerd's client)",
    test: ({ module }) => module === "cloudflare-internal:d1-api",
  },
  { name: "Hono: routing, context, c.json", test: ({ module }) => /^hono\//.test(module) },
  {
    name: "webhook signing: HMAC keys and signatures",
    test: ({ module }) => module === "src/deliveries/delivery-signature.ts",
  },
  {
    name: "webhook delivery: the endpoints' objects, their SQLite logs, the POSTs",
    test: ({ module }) => /^src\/deliveries\//.test(module),
  },
  {
    name: "outbox relay: claims, the queue's messages",
    test: ({ module }) => /^src\/outbox\//.test(module),
  },
  {
    name: "handlers, queries, changes, floors",
    test: ({ module }) => /^(src|test)\//.test(module),
  },
  {
    name: "garbage collection",
    test: ({ functionName }) => functionName === "(garbage collector)",
  },
  {
    name: "workerd and V8 outside scripts (program)",
    test: ({ functionName }) => functionName === "(program)",
  },
  {
    name: "runtime: workerd's scripts, wrangler's wrapper",
    test: ({ module }) =>
      /^[a-z-]+:/.test(module) ||
      /^(wrangler|miniflare)\//.test(module) ||
      module.startsWith(".wrangler/"),
  },
  { name: "native code no script called", test: () => true },
];

/**
 * Drizzle's own source maps point out of its package, to `../src/…`, so its
 * sources land under node_modules/src/; no other package here does that.
 */
const DRIZZLE_SOURCES = "src/";

/** A repository or package path for a bundle's source, from the source map's own relative path. */
function moduleOfSource(source: string, mapDir: string, root: string): string {
  const absolute = path.resolve(mapDir, source);
  const packageAt = absolute.lastIndexOf("/node_modules/");
  if (packageAt === -1) return path.relative(root, absolute);
  const inPackages = absolute.slice(packageAt + "/node_modules/".length);
  return inPackages.startsWith(DRIZZLE_SOURCES) ? `drizzle-orm/${inPackages}` : inPackages;
}

/** Resolves frames of one bundle through its source map; other frames keep their script's URL. */
export async function frameResolver(bundle: string, root: string) {
  const map = new SourceMap(JSON.parse(await readFile(`${bundle}.map`, "utf8")));
  const name = path.basename(bundle);
  const mapDir = path.dirname(bundle);
  return (frame: CpuProfile["nodes"][number]["callFrame"]): Origin => {
    const { functionName, url, lineNumber, columnNumber } = frame;
    if (!url.endsWith(name) || lineNumber < 0)
      return { module: url, functionName, line: lineNumber };
    const entry = map.findEntry(lineNumber, columnNumber);
    if (!("originalSource" in entry)) return { module: name, functionName, line: lineNumber };
    return {
      module: moduleOfSource(entry.originalSource, mapDir, root),
      functionName,
      line: entry.originalLine + 1,
    };
  };
}

export interface ProfileSummary {
  target: string;
  label: string;
  requests: number;
  /**
   * Sampled time the isolate was not idle, in ms. The sampler ticks by the
   * wall clock, so on a busy machine this holds time the thread waited for
   * a core: the shares are what to read, the bench's CPU is the total.
   */
  busyMs: number;
  /** Each category's share of the busy time (0–1), largest first. */
  categories: { name: string; share: number }[];
  /** The functions with the most self time: their share of the busy time. */
  top: { frame: string; share: number }[];
}

type Frame = CpuProfile["nodes"][number]["callFrame"];

/** V8's own entries, which no script calls: time outside scripts, collection, idleness. */
const isV8Entry = (frame: Frame) => frame.url === "" && frame.functionName.startsWith("(");

/**
 * Self time by category and by function, from a profile and the frames'
 * origins. A native function (`fetch`, `text`, a `Response`) counts toward
 * the script code that called it, D1's client for its `fetch`: the cost is
 * that code's; JSON's parse and stringify count as JSON wherever called.
 */
export function summariseProfile(
  profile: CpuProfile,
  resolve: (frame: Frame) => Origin,
  about: { target: string; label: string; requests: number },
  topCount = 15,
): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  /** The nearest frame, this one or a caller, that is script code rather than native. */
  const scriptFrame = (id: number): Origin | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      if (frame && frame.url !== "") return resolve(frame);
    }
    return undefined;
  };
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byCategory = new Map<string, number>();
  const byFrame = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, micros: number) =>
    map.set(key, (map.get(key) ?? 0) + micros);
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === "(idle)") continue;
    busy += micros;
    const own = resolve(frame);
    const native = frame.url === "" && !isV8Entry(frame);
    const caller = native ? scriptFrame(id) : undefined;
    const counted =
      native && !/^(parse|stringify)$/.test(frame.functionName) && caller ? caller : own;
    add(byCategory, CATEGORIES.find(({ test }) => test(counted))?.name ?? "", micros);
    const where = (origin: Origin) =>
      `${origin.functionName || "(anonymous)"} ${origin.module}${origin.line >= 0 ? `:${origin.line}` : ""}`.trim();
    add(
      byFrame,
      native && caller ? `${where(own)} (native) ← ${where(caller)}` : where(own),
      micros,
    );
  }
  const shares = (map: Map<string, number>) =>
    [...map]
      .map(([key, micros]) => ({ key, share: busy === 0 ? 0 : micros / busy }))
      .sort((a, b) => b.share - a.share);
  return {
    ...about,
    busyMs: busy / 1000,
    categories: shares(byCategory).map(({ key, share }) => ({ name: key, share })),
    top: shares(byFrame)
      .slice(0, topCount)
      .map(({ key, share }) => ({ frame: key, share })),
  };
}

const percent = (share: number) => `${(share * 100).toFixed(1).padStart(5)}%`;

/** One profile's summary as text: the busy time, the categories, the top functions. */
export function formatProfile(summary: ProfileSummary): string {
  return [
    `== ${summary.label} (${summary.target}): ${summary.requests} requests, ` +
      `${summary.busyMs.toFixed(0)} ms of the isolate's time sampled ==`,
    ...summary.categories.map(({ name, share }) => `  ${percent(share)}  ${name}`),
    "  top self time:",
    ...summary.top.map(({ frame, share }) => `  ${percent(share)}  ${frame}`),
  ].join("\n");
}
