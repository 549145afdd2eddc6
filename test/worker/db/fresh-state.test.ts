import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { seedKey } from "../support/keys.ts";
import { postJson } from "../support/request.ts";

/*
 * Every file starts from the state a fresh D1 has after its migrations,
 * whatever the files before it wrote: tables empty, search indexes empty
 * (their shadow tables emptied by the index's own command), and the seven
 * categories a migration seeds, as seeded, owned by the operator account.
 */

describe("the state each test file starts from", () => {
  it("holds the seven seeded categories, unowned, at their first version", async () => {
    const { results } = await env.DB.prepare(
      "SELECT id, name, account_id AS accountId, version, deleted_at AS deletedAt FROM categories ORDER BY id",
    ).all();
    expect(results).toEqual(
      ["Dogs", "Cats", "Rabbits", "Birds", "Small mammals", "Reptiles", "Fish"].map((name, i) => ({
        id: i + 1,
        name,
        accountId: null,
        version: 1,
        deletedAt: null,
      })),
    );
  });

  it("has empty tables and an empty animal index, but the seeded names indexed", async () => {
    for (const table of ["pets", "orders", "events", "pet_search"]) {
      const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
      expect(row?.n, table).toBe(0);
    }
    // The names index knows the seeded names: a second "dogs" is refused.
    const { key } = await seedKey();
    const res = await postJson("/v1/categories", key, { name: "dogs" });
    expect(res.status).toBe(409);
    await res.json();
  });
});
