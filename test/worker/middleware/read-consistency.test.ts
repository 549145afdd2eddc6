import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { bookmarkOf, consistencyToken } from "../../../src/api/consistency-token.ts";
import { keyRecordName } from "../../../src/keys/key-format.ts";
import { createPet, expectError, freshIp } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { sessionRecordingD1 } from "../support/recording-d1.ts";
import { type ApiRequestInit, api, jsonOf } from "../support/request.ts";

/*
 * Reads at scale: every admitted /v1 request has a D1 session of its own.
 * Writes start at the primary; reads at the newest bookmark the client sent
 * back (`Consistency-Token`) or this isolate issued to the key, else at the
 * nearest copy. Local D1 has no replicas, so what is pinned here is where
 * each session starts (recorded at the binding) and what the tokens say.
 */

const TOKEN = "Consistency-Token";

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey());
});

/** Sends the request over the real D1, recording where each session it opens starts. */
async function recorded(path: string, init: ApiRequestInit) {
  const starts: string[] = [];
  const res = await api(path, { ...init, bindings: { DB: sessionRecordingD1(starts) } });
  const text = await res.text();
  return { res, body: text === "" ? undefined : JSON.parse(text), starts };
}

const tokenOf = (res: Response) => res.headers.get(TOKEN) ?? "";

describe("Consistency-Token — happy path", () => {
  it("a write starts at the primary; a read sent its token starts there and sees the write", async () => {
    const made = await recorded("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Fresh", categoryId: 2 },
    });
    expect(made.res.status).toBe(201);
    expect(made.starts).toEqual(["first-primary"]);
    const written = tokenOf(made.res);
    const bookmark = bookmarkOf(written);
    expect(bookmark).toBeDefined();

    const read = await recorded(`/v1/pets/${made.body.id}`, {
      key,
      headers: { [TOKEN]: written },
    });
    expect(read.res.status).toBe(200);
    expect(read.body).toMatchObject({ id: made.body.id, name: "Fresh" });
    expect(read.starts).toEqual([bookmark]);
    expect(tokenOf(read.res) >= written).toBe(true);
  });

  it("tokens from later writes sort after those of earlier ones", async () => {
    const tokens: string[] = [];
    for (const name of ["First", "Second", "Third"]) {
      const res = await api("/v1/pets", { method: "POST", key, json: { name, categoryId: 3 } });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
      tokens.push(tokenOf(res));
    }
    expect(new Set(tokens).size).toBe(3);
    expect([...tokens].sort()).toEqual(tokens);
    expect(tokens.map((token) => bookmarkOf(token) ?? "").sort()).toEqual(
      tokens.map((token) => bookmarkOf(token)),
    );
  });

  it("a request without a token works: a key's first read starts at the nearest copy", async () => {
    const { key: fresh } = await seedKey();
    const read = await recorded("/v1/pets?limit=1", { key: fresh });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual(["first-unconstrained"]);
    expect(bookmarkOf(tokenOf(read.res))).toBeDefined();
  });

  it("the isolate remembers the newest token it issued to a key, for that key's next read", async () => {
    const { key: own } = await seedKey();
    const made = await api("/v1/pets", {
      method: "POST",
      key: own,
      json: { name: "Mine", categoryId: 4 },
    });
    expect(made.status).toBe(201);
    const { id } = await jsonOf<{ id: number }>(made);
    const read = await recorded(`/v1/pets/${id}`, { key: own });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual([bookmarkOf(tokenOf(made))]);
    // An older token sent back does not take the reads back before the key's newest.
    const older = consistencyToken("00000000-00000001-00000000-00000000000000000000000000000000");
    const again = await recorded(`/v1/pets/${id}`, { key: own, headers: { [TOKEN]: older } });
    expect(again.starts).toEqual([bookmarkOf(tokenOf(read.res))]);
  });

  it("a write starts at the primary even when it sends a token", async () => {
    const made = await createPet(key, { name: "Edited", categoryId: 2 });
    const sent = tokenOf(await api(`/v1/pets/${made.id}`, { key }));
    const edit = await recorded(`/v1/pets/${made.id}`, {
      method: "PATCH",
      key,
      json: { name: "Edited again" },
      headers: { [TOKEN]: sent },
    });
    expect(edit.res.status).toBe(200);
    expect(edit.starts).toEqual(["first-primary"]);
  });

  it("a new key works on its first request: one missing from KV is looked up at the primary", async () => {
    const { key: fresh, hash } = await seedKey();
    // As at a location its KV record has not reached yet.
    await env.API_KEYS.delete(keyRecordName(hash));
    const read = await recorded("/v1/pets?limit=1", {
      key: fresh,
      headers: { "CF-Connecting-IP": freshIp() },
    });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual(["first-primary", "first-unconstrained"]);
  });
});

describe("Consistency-Token — bad input", () => {
  const good = consistencyToken("00000000-0000000b-00000000-00000000000000000000000000000000");
  const altered = `${good.slice(0, 10)}${good[10] === "0" ? "1" : "0"}${good.slice(11)}`;
  it.each([
    ["text of no token", "hello"],
    ["an empty header", ""],
    ["a bare D1 bookmark", "00000000-0000000b-00000000-00000000000000000000000000000000"],
    ["another version", good.replace("ct1_", "ct2_")],
    ["a truncated token", good.slice(0, -1)],
    ["an altered token", altered],
    ["characters outside the alphabet", `${good.slice(0, -1)}u`],
    ["a token far too long", `ct1_${"0".repeat(500)}`],
  ])("400 for %s, naming the header", async (_, sent) => {
    const res = await api("/v1/pets?limit=1", { key, headers: { [TOKEN]: sent } });
    await expectError(res, 400, "invalid_request", { paths: [TOKEN] });
    expect(res.headers.get(TOKEN)).toBeNull();
  });

  it("reads the token a reply sent, whatever the case of the header's name", async () => {
    const res = await api("/v1/pets?limit=1", { key, headers: { "consistency-token": good } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});

describe("Consistency-Token — auth", () => {
  it("a request without a working key gets 401, not the token's 400, and no token", async () => {
    const res = await api("/v1/pets?limit=1", {
      headers: { [TOKEN]: "hello", "CF-Connecting-IP": freshIp() },
    });
    await expectError(res, 401, "unauthorized");
    expect(res.headers.get(TOKEN)).toBeNull();
  });
});
