import { TrieRouter } from "hono/router/trie-router";
import type { RouterRoute } from "hono/types";

/**
 * The methods the app serves at a path, read from its registered routes as
 * hono/method-not-allowed reads them: a GET brings HEAD, and middleware and
 * catch-alls (`ALL`) serve nothing. Empty for a path no route matches. The
 * table is built on first use, once every route is registered.
 */
export function routeMethods(app: { routes: RouterRoute[] }): (path: string) => string[] {
  let router: TrieRouter<Set<string>> | undefined;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const { method, path } of app.routes) {
      if (method === "ALL" || method === "HEAD") continue;
      const methods = byPath.get(path) ?? new Set<string>();
      methods.add(method);
      if (method === "GET") methods.add("HEAD");
      byPath.set(path, methods);
    }
    const table = new TrieRouter<Set<string>>();
    for (const [path, methods] of byPath) table.add("ALL", path, methods);
    return table;
  };
  return (path) => {
    router ??= build();
    const served = new Set<string>();
    for (const [methods] of router.match("ALL", path)[0]) {
      for (const method of methods) served.add(method);
    }
    return [...served];
  };
}
