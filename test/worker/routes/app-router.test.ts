import { RegExpRouter } from "hono/router/reg-exp-router";
import { describe, expect, it } from "vitest";
import { SectionRouter } from "../../../src/routes/app-router.ts";

/** The names of the handlers a router gives a request, in the order Hono would run them. */
function handlersFor(router: SectionRouter<string>, method: string, path: string): string[] {
  const [matched] = router.match(method, path);
  return matched.map(([handler]) => handler);
}

/** Routes as the app registers them: wildcard middleware first, then each section's routes. */
function appLikeRouter(): SectionRouter<string> {
  const router = new SectionRouter<string>("/dashboard");
  router.add("ALL", "/*", "everywhere");
  router.add("ALL", "/v1/*", "api middleware");
  router.add("GET", "/v1/pets", "list");
  router.add("GET", "/v1/pets/:petId", "get");
  router.add("ALL", "/dashboard/*", "dashboard middleware");
  router.add("GET", "/dashboard/keys/new", "key form");
  router.add("GET", "/dashboard/keys/:hash/revoke", "confirm revoke");
  return router;
}

describe("the app's router", () => {
  it.each([
    ["/v1/pets/7", ["everywhere", "api middleware", "get"]],
    ["/v1/pets", ["everywhere", "api middleware", "list"]],
    ["/dashboard/keys/new", ["everywhere", "dashboard middleware", "key form"]],
    ["/dashboard/keys/abc/revoke", ["everywhere", "dashboard middleware", "confirm revoke"]],
    ["/dashboard", ["everywhere", "dashboard middleware"]],
  ])(
    "gives GET %s its middleware and route in the order they were registered",
    (path, handlers) => {
      expect(handlersFor(appLikeRouter(), "GET", path)).toEqual(handlers);
    },
  );

  it("matches API requests with RegExpRouter and the dashboard's pages with the trie", () => {
    const router = appLikeRouter();
    // RegExpRouter's answers carry the parameters' stash beside the handlers; the trie's do not.
    expect(router.match("GET", "/v1/pets/7")[1]).toContain("7");
    expect(router.match("GET", "/dashboard/keys/new")[1]).toBeUndefined();
  });

  it("keeps a path that only starts like the section out of it", () => {
    expect(handlersFor(appLikeRouter(), "GET", "/dashboards")).toEqual(["everywhere"]);
  });

  it("needs the trie for the dashboard: RegExpRouter alone refuses its routes", () => {
    const alone = new RegExpRouter<string>();
    alone.add("GET", "/dashboard/keys/new", "key form");
    expect(() => alone.add("GET", "/dashboard/keys/:hash/revoke", "confirm revoke")).toThrow();
  });
});
