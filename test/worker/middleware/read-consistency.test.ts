import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { openToken } from "../../../src/api/consistency-token.ts";
import { keyRecordName } from "../../../src/keys/key-format.ts";
import { createPet, expectError, freshIp } from "../support/assertions.ts";
import { bookmarkOf, TOKEN_SECRET, tokenFor } from "../support/consistency.ts";
import { seedKey } from "../support/keys.ts";
import { sessionRecordingD1 } from "../support/recording-d1.ts";
import { type ApiRequestInit, api, jsonOf, postJson } from "../support/request.ts";

/*
 * Reads at scale: every admitted /v1 request has a D1 session of its own.
 * Writes start at the primary; reads at the newest bookmark the client sent
 * back (`Consistency-Token`) or this isolate issued to the key, else at the
 * nearest copy. Local D1 has no replicas, so what is pinned here is where
 * each session starts (recorded at the binding) and what the tokens say.
 * Tokens are sealed for the key's account with the environment's secret.
 */

const TOKEN = "Consistency-Token";

let key: string;
let account: number;

beforeAll(async () => {
  const seeded = await seedKey();
  ({ key } = seeded);
  account = seeded.record.accountId;
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
    const bookmark = await bookmarkOf(written, account);
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
      const res = await postJson("/v1/pets", key, { name, categoryId: 3 });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
      tokens.push(tokenOf(res));
    }
    expect(new Set(tokens).size).toBe(3);
    expect([...tokens].sort()).toEqual(tokens);
    const bookmarks = await Promise.all(tokens.map((token) => bookmarkOf(token, account)));
    expect(bookmarks.every((bookmark) => bookmark !== undefined)).toBe(true);
    expect([...bookmarks].sort()).toEqual(bookmarks);
  });

  it("a request without a token works: a key's first read starts at the nearest copy", async () => {
    const { key: fresh, record } = await seedKey();
    const read = await recorded("/v1/pets?limit=1", { key: fresh });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual(["first-unconstrained"]);
    expect(await bookmarkOf(tokenOf(read.res), record.accountId)).toBeDefined();
  });

  it("the isolate remembers the newest token it issued to a key, for that key's next read", async () => {
    const { key: own, record } = await seedKey();
    const made = await postJson("/v1/pets", own, { name: "Mine", categoryId: 4 });
    expect(made.status).toBe(201);
    const { id } = await jsonOf<{ id: number }>(made);
    const read = await recorded(`/v1/pets/${id}`, { key: own });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual([await bookmarkOf(tokenOf(made), record.accountId)]);
    // An older token sent back does not take the reads back before the key's newest.
    const older = await tokenFor(
      "00000000-00000001-00000000-00000000000000000000000000000000",
      record.accountId,
    );
    const again = await recorded(`/v1/pets/${id}`, { key: own, headers: { [TOKEN]: older } });
    expect(again.starts).toEqual([await bookmarkOf(tokenOf(read.res), record.accountId)]);
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
  const BOOKMARK = "00000000-0000000b-00000000-00000000000000000000000000000000";
  const good = () => tokenFor(BOOKMARK, account);
  /** The token with one character changed, at `at` from its end. */
  const alteredAt = (token: string, at: number) => {
    const i = token.length - at;
    return `${token.slice(0, i)}${token[i] === "0" ? "1" : "0"}${token.slice(i + 1)}`;
  };
  it.each<[string, () => Promise<string>]>([
    ["text of no token", async () => "hello"],
    ["an empty header", async () => ""],
    ["a bare D1 bookmark", async () => BOOKMARK],
    // Unsealed: anyone could write one for any bookmark, so none is taken any more.
    [
      "a token of the earlier, unsealed encoding",
      async () =>
        "ct1_60r30c1g60r30b9g60r30c1g61h2tc1g60r30c1g60pk0c1g60r30c1g60r30c1g60r30c1g60r30c1g60r30c1g60r30c0r94t",
    ],
    ["another version", async () => (await good()).replace("ct2_", "ct3_")],
    ["a truncated token", async () => (await good()).slice(0, -1)],
    ["a token with its bookmark altered", async () => alteredAt(await good(), 120)],
    ["a token with its minute altered", async () => alteredAt(await good(), 56)],
    ["a token with its seal altered", async () => alteredAt(await good(), 3)],
    ["characters outside the alphabet", async () => `${(await good()).slice(0, -1)}u`],
    ["a token far too long", async () => `ct2_${"0".repeat(500)}`],
    [
      "a token sealed with another secret",
      () => tokenFor(BOOKMARK, account, { secret: "s".repeat(40) }),
    ],
    ["another account's token", () => tokenFor(BOOKMARK, account + 1)],
  ])("400 for %s, naming the header", async (_, sent) => {
    const res = await api("/v1/pets?limit=1", { key, headers: { [TOKEN]: await sent() } });
    await expectError(res, 400, "invalid_request", { paths: [TOKEN] });
    expect(res.headers.get(TOKEN)).toBeNull();
  });

  it("never remembers a token it refused: the key's next read starts where it would have", async () => {
    const { key: fresh, record } = await seedKey();
    const forged = await tokenFor(
      "ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff",
      record.accountId,
      {
        secret: "f".repeat(40),
      },
    );
    const refused = await recorded("/v1/pets?limit=1", {
      key: fresh,
      headers: { [TOKEN]: forged },
    });
    expect(refused.res.status).toBe(400);
    expect(refused.starts).toEqual([]);
    const next = await recorded("/v1/pets?limit=1", { key: fresh });
    expect(next.starts).toEqual(["first-unconstrained"]);
    const issued = await bookmarkOf(tokenOf(next.res), record.accountId);
    expect(issued).toMatch(/^[0-9a-f]{8}-/);
    expect(issued).not.toBe("ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff");
  });

  it("reads the token a reply sent, whatever the case of the header's name", async () => {
    const res = await api("/v1/pets?limit=1", {
      key,
      headers: { "consistency-token": await good() },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});

describe("Consistency-Token — accounts, age and rotation", () => {
  const BOOKMARK = "00000000-0000000c-00000000-00000000000000000000000000000000";

  it("takes a token another key of the same account was given", async () => {
    const writer = await seedKey();
    const reader = await seedKey({ account: writer.row.account.email, scopes: ["pets:read"] });
    expect(reader.record.accountId).toBe(writer.record.accountId);
    const made = await postJson("/v1/pets", writer.key, { name: "Shared", categoryId: 1 });
    expect(made.status).toBe(201);
    await made.arrayBuffer();
    const sent = tokenOf(made);
    const read = await recorded("/v1/pets?limit=1", {
      key: reader.key,
      headers: { [TOKEN]: sent },
    });
    expect(read.res.status).toBe(200);
    expect(read.starts).toEqual([await bookmarkOf(sent, writer.record.accountId)]);
  });

  it("reads a token older than 24 hours as none, and one younger as sent", async () => {
    const { key: fresh, record } = await seedKey();
    const hour = 60 * 60_000;
    const stale = await tokenFor(BOOKMARK, record.accountId, {
      now: Date.now() - 24 * hour - 2 * 60_000,
    });
    const aged = await recorded("/v1/pets?limit=1", { key: fresh, headers: { [TOKEN]: stale } });
    expect(aged.res.status).toBe(200);
    expect(aged.starts).toEqual(["first-unconstrained"]);
    const { key: other, record: otherRecord } = await seedKey();
    const young = await tokenFor(BOOKMARK, otherRecord.accountId, { now: Date.now() - 23 * hour });
    const kept = await recorded("/v1/pets?limit=1", { key: other, headers: { [TOKEN]: young } });
    expect(kept.res.status).toBe(200);
    expect(kept.starts).toEqual([BOOKMARK]);
  });

  it("takes the previous secret's tokens during a rotation, and seals with the new one", async () => {
    const previous = TOKEN_SECRET;
    const next = "the-next-consistency-token-secret-of-40-chars";
    const old = await tokenFor(BOOKMARK, account, { secret: previous });
    const rotating = {
      CONSISTENCY_TOKEN_SECRET: next,
      CONSISTENCY_TOKEN_PREVIOUS_SECRET: previous,
    };
    const res = await api("/v1/pets?limit=1", {
      key,
      headers: { [TOKEN]: old },
      bindings: rotating,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const issued = tokenOf(res);
    expect(await bookmarkOf(issued, account)).toBeUndefined();
    expect(typeof (await openToken(issued, account, [next], Date.now()))).toBe("object");
    // Once the previous secret is gone, its tokens are refused.
    const after = await api("/v1/pets?limit=1", {
      key,
      headers: { [TOKEN]: old },
      bindings: { CONSISTENCY_TOKEN_SECRET: next },
    });
    await expectError(after, 400, "invalid_request", { paths: [TOKEN] });
  });
});

describe("Consistency-Token — configuration", () => {
  it("without a usable secret, replies carry no token and a token sent is refused", async () => {
    const off = { CONSISTENCY_TOKEN_SECRET: "" };
    const plain = await api("/v1/pets?limit=1", { key, bindings: off });
    expect(plain.status).toBe(200);
    await plain.arrayBuffer();
    expect(plain.headers.get(TOKEN)).toBeNull();
    const sent = await tokenFor(
      "00000000-0000000d-00000000-00000000000000000000000000000000",
      account,
    );
    const res = await api("/v1/pets?limit=1", { key, headers: { [TOKEN]: sent }, bindings: off });
    await expectError(res, 400, "invalid_request", { paths: [TOKEN] });
  });

  it("binds the token of a key whose KV record an earlier version wrote, without its account", async () => {
    const { key: older, hash, record } = await seedKey();
    const { accountId: _, ...withoutAccount } = record;
    await env.API_KEYS.put(keyRecordName(hash), JSON.stringify(withoutAccount));
    const res = await api("/v1/pets?limit=1", {
      key: older,
      headers: { "CF-Connecting-IP": freshIp() },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(await bookmarkOf(tokenOf(res), record.accountId)).toBeDefined();
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
