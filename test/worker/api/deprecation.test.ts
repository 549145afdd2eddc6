import { describe, expect, it } from "vitest";
import {
  type DeprecationNotice,
  deprecationLink,
  deprecationsIn,
  requestReader,
  successorOf,
} from "../../../src/api/deprecation.ts";
import { petRoutes } from "../../../src/pets/pets.routes.ts";

/** getPet as declared: its successor is the listing's `id` filter. */
const byId: DeprecationNotice = {
  operationId: "getPet",
  method: "GET",
  path: "/pets/{petId}",
  successor: "/v1/pets?id={petId}",
  documentation: "/docs",
};

describe("deprecation notices", () => {
  it("are read from the route tables, one per deprecated route", () => {
    expect(deprecationsIn([petRoutes])).toEqual([
      {
        operationId: "getPet",
        method: "GET",
        path: "/pets/{petId}",
        successor: "/v1/pets?id={petId}",
        documentation: "/docs",
      },
    ]);
    expect(deprecationsIn([petRoutes])).toEqual([byId]);
  });

  it("match the operation's requests, HEAD with GET, and name their path parameters", () => {
    const read = requestReader(byId);
    expect(read("GET", "/v1/pets/42")).toEqual({ petId: "42" });
    expect(read("HEAD", "/v1/pets/abc")).toEqual({ petId: "abc" });
    expect(read("POST", "/v1/pets/42")).toBeUndefined();
    expect(read("GET", "/v1/pets")).toBeUndefined();
    expect(read("GET", "/v1/pets/42/photos")).toBeUndefined();
  });

  it("fill a successor's path parameters from the request, as sent", () => {
    const read = requestReader(byId);
    expect(successorOf(byId, read("GET", "/v1/pets/42") ?? {})).toBe("/v1/pets?id=42");
    expect(deprecationLink(byId, read("GET", "/v1/pets/a%20b") ?? {})).toBe(
      '</v1/pets?id=a%20b>; rel="successor-version", </docs>; rel="deprecation"',
    );
    // A parameter the request does not name stays as written, as the document shows it.
    expect(successorOf(byId, {})).toBe("/v1/pets?id={petId}");
  });
});
