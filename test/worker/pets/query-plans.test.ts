import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orderQueries } from "../../../src/orders/orders.queries.ts";
import { petQueries } from "../../../src/pets/pets.queries.ts";
import { testServices } from "../support/keys.ts";

/**
 * Listings page by key (after the last id seen), so a page deep into a large
 * table costs what the first does only if SQLite walks an index straight to
 * the position: these are the plans it chooses for the very statements the
 * handlers run.
 */
async function planOf(query: { getQuery(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.getQuery();
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params.map((param) => (typeof param === "object" ? 1 : param)))
    .all<{ detail: string }>();
  return results.map((row) => row.detail).join("\n");
}

describe("the listings' query plans", () => {
  const { db } = testServices();

  it("walks the primary key from the cursor for animals", async () => {
    expect(await planOf(petQueries(db).page)).toMatch(
      /SEARCH pets USING INTEGER PRIMARY KEY \(rowid>\?\)/,
    );
  });

  it("walks the (status, id) index from the cursor for animals of one status", async () => {
    const plan = await planOf(petQueries(db).pageByStatus);
    expect(plan).toMatch(
      /SEARCH pets USING (COVERING )?INDEX pets_status_id_idx \(status=\? AND id>\?\)/,
    );
    expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it("walks the account's indexes for orders, with and without a status", async () => {
    const all = await planOf(orderQueries(db).page);
    const byStatus = await planOf(orderQueries(db).pageByStatus);
    expect(all).toMatch(
      /SEARCH orders USING (COVERING )?INDEX orders_account_id_idx \(account_id=\? AND id>\?\)/,
    );
    expect(byStatus).toMatch(
      /SEARCH orders USING (COVERING )?INDEX orders_account_status_id_idx \(account_id=\? AND status=\? AND id>\?\)/,
    );
    expect(`${all}\n${byStatus}`).not.toMatch(/SCAN|TEMP B-TREE/);
  });
});
