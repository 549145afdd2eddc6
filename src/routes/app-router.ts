import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";

/** Whether a route's path, or a request's, is the section's or below it. */
function isUnder(section: string, path: string): boolean {
  return path === section || path.startsWith(`${section}/`);
}

/**
 * The app's router: one section's requests (the dashboard's pages) matched
 * by a TrieRouter, every other request by a RegExpRouter, which matches in
 * one regular expression what the trie walks node by node. Hono's
 * SmartRouter picks one router for the whole app, and RegExpRouter refuses
 * a static segment beside a parameter (the dashboard's `/keys/new` and
 * `/keys/:hash/revoke`), so the API's requests would all pay for the trie.
 * The trie gets every route, so any wildcard middleware reaches the section
 * too; the RegExpRouter every route but the section's. Each keeps the
 * routes' order, which decides the order of their handlers.
 */
export class SectionRouter<T> implements Router<T> {
  readonly name = "SectionRouter";
  readonly #section: string;
  readonly #sectionRouter = new TrieRouter<T>();
  readonly #rest = new RegExpRouter<T>();

  constructor(section: string) {
    this.#section = section;
  }

  add(method: string, path: string, handler: T): void {
    this.#sectionRouter.add(method, path, handler);
    if (!isUnder(this.#section, path)) this.#rest.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const router = isUnder(this.#section, path) ? this.#sectionRouter : this.#rest;
    return router.match(method, path);
  }
}
