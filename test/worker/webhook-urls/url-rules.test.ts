import { env } from "cloudflare:test";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  REFUSED_IPV4_BLOCKS,
  REFUSED_IPV6_BLOCKS,
  rangeOf,
} from "../../../src/webhook-urls/special-purpose-addresses.ts";
import { isAllowedWebhookUrl } from "../../../src/webhook-urls/webhook-url.ts";
import { expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { seed } from "../support/property.ts";
import { api } from "../support/request.ts";

/*
 * Endpoint URLs: https only, public hosts only, no credentials; locally and
 * in tests also http://127.0.0.1. The server and the document read one
 * pattern; these tests hold it to what a URL parser (the one fetch uses)
 * makes of each URL.
 */

const production = { allowLoopbackHttp: false };
const local = { allowLoopbackHttp: true };

/** The production configuration, for requests: wrangler.toml's staging and production value. */
const PRODUCTION_BINDINGS = { WEBHOOK_ALLOW_LOOPBACK_HTTP: "false" };

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

async function freshKey(): Promise<string> {
  return (await seedUnlimitedKey()).key;
}

const create = (key: string, url: string, bindings?: Partial<Env>) =>
  api("/v1/webhooks", { method: "POST", key, json: { url, types: ["pet.*"] }, bindings });

const REFUSED = [
  // Loopback, however it is written.
  "https://127.0.0.1/hook",
  "https://127.0.0.1./hook",
  "https://127.1/hook",
  "https://2130706433/hook",
  "https://0x7f.0.0.1/hook",
  "https://0x7f000001/hook",
  "https://017700000001/hook",
  "https://0177.0.0.1/hook",
  "https://%31%32%37.0.0.1/hook",
  "https://１２７.０.０.１/hook",
  "https://[::1]/hook",
  "https://[0:0:0:0:0:0:0:1]/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://[::ffff:7f00:1]/hook",
  "https://[0:0:0:0:0:ffff:7f00:1]/hook",
  "https://[::127.0.0.1]/hook",
  "https://localhost/hook",
  "https://LOCALHOST./hook",
  "https://api.localhost/hook",
  // Unspecified, private, shared, link-local, reserved.
  "https://0.0.0.0/hook",
  "https://[::]/hook",
  "https://10.0.0.1/hook",
  "https://172.16.0.1/hook",
  "https://172.31.255.255/hook",
  "https://192.168.1.10/hook",
  "https://100.64.0.1/hook",
  "https://169.254.169.254/latest/meta-data",
  "https://198.18.0.1/hook",
  "https://224.0.0.1/hook",
  "https://255.255.255.255/hook",
  "https://[fe80::1]/hook",
  "https://[fc00::1]/hook",
  "https://[fd12:3456:789a::1]/hook",
  "https://[ff02::1]/hook",
  "https://[::ffff:10.0.0.1]/hook",
  "https://[::ffff:192.168.0.1]/hook",
  "https://[64:ff9b::a00:1]/hook",
  "https://[2002:a00:1::]/hook",
  "https://[2001::a00:1]/hook",
  "https://[2001:db8::1]/hook",
  "https://[3fff::1]/hook",
  "https://[3FFF:FFF:ffff::1]/hook",
  "https://[2001:2::1]/hook",
  "https://[2001:0002:0:0:0:0:0:1]/hook",
  "https://[2001:10::1]/hook",
  "https://[2001:1f::1]/hook",
  "https://[2001:1ff::1]/hook",
  "https://192.88.99.1/hook",
  "https://192.0.0.9/hook",
  // Credentials, other schemes, and the rest of the form.
  "https://user@example.com/hook",
  "https://user:secret@example.com/hook",
  "https://example.com@10.0.0.1/hook",
  "https://example.com:443@10.0.0.1/hook",
  "https://example.com\\@10.0.0.1/hook",
  "http://example.com/hook",
  "HTTPS://example.com/hook",
  "ftp://example.com/hook",
  "//example.com/hook",
  "https://example.com/hook#fragment",
  "https://example.com/a hook",
  "https://bücher.example/hook",
  "https://intranet/hook",
  "https://example.com:0/hook",
  "https://example.com:65536/hook",
  "https://example.123/hook",
  "https://exa_mple.com/hook",
  "",
  "not a url",
];

const ACCEPTED = [
  "https://example.com",
  "https://example.com/",
  "https://hooks.example.com/petstore?token=abc&x=1",
  "https://example.com.:8443/hook",
  "https://xn--bcher-kva.example/hook",
  "https://localhost.example.com/hook",
  "https://127.0.0.1.example.com/hook",
  "https://8.8.8.8/hook",
  "https://100.128.0.1/hook",
  "https://172.32.0.1/hook",
  "https://[2606:4700:4700::1111]/hook",
  "https://[2A00:1450:4001:81D::200E]:443/hook",
  "https://[2001:4860:4860::8888]/hook",
  "https://[2001:200::1]/hook",
  "https://[3fff:1000::1]/hook",
  "https://[2620:4f:8000::1]/hook",
  "https://192.88.100.1/hook",
];

describe("URLs refused in every environment", () => {
  it.each(REFUSED)("400 for %j, on creation and on a change", async (url) => {
    const key = await freshKey();
    const endpoint = await create(key, "https://example.com/hook");
    const { id } = (await endpoint.json()) as { id: number };
    for (const bindings of [undefined, PRODUCTION_BINDINGS]) {
      const body = await expectError(await create(key, url, bindings), 400, "invalid_request", {
        paths: ["url"],
      });
      expect(body.message).toMatch(/https:\/\//);
      const change = await api(`/v1/webhooks/${id}`, {
        method: "PATCH",
        key,
        json: { url },
        bindings,
      });
      await expectError(change, 400, "invalid_request", { paths: ["url"] });
    }
  });
});

describe("URLs accepted in every environment", () => {
  it.each(ACCEPTED)("201 for %j", async (url) => {
    const key = await freshKey();
    for (const bindings of [undefined, PRODUCTION_BINDINGS]) {
      const res = await create(key, url, bindings);
      const body = (await res.json()) as { url: string };
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.url).toBe(url);
    }
  });
});

describe("local receivers", () => {
  it("http://127.0.0.1 on any port locally and in tests, never in the production configuration", async () => {
    const key = await freshKey();
    for (const url of [
      "http://127.0.0.1:8788/hook",
      "http://127.0.0.1/hook",
      "http://127.0.0.1:65535",
    ]) {
      const res = await create(key, url);
      expect(res.status).toBe(201);
      await res.arrayBuffer();
      await expectError(await create(key, url, PRODUCTION_BINDINGS), 400, "invalid_request", {
        paths: ["url"],
      });
    }
    for (const url of [
      "http://localhost:8788/hook",
      "http://127.0.0.2/hook",
      "http://[::1]:8788/hook",
      "http://user@127.0.0.1:8788/hook",
      "http://127.1:8788/hook",
    ]) {
      await expectError(await create(key, url), 400, "invalid_request", { paths: ["url"] });
    }
  });
});

/*
 * An oracle written independently of the pattern: what a URL parser makes of
 * an accepted URL, judged by address arithmetic.
 */

const NON_PUBLIC_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
];

function v4Number(address: string): number {
  return address.split(".").reduce((value, octet) => value * 256 + Number(octet), 0);
}

function isPublicV4(address: string): boolean {
  const value = v4Number(address);
  return !NON_PUBLIC_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    return value >= v4Number(base) && value < v4Number(base) + size;
  });
}

/** The eight 16-bit groups of an address as the parser serialises it (compressed, lower case). */
function v6Groups(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const part = (text: string) =>
    text === "" ? [] : text.split(":").map((group) => Number.parseInt(group, 16));
  const before = part(head);
  const after = tail === undefined ? [] : part(tail);
  return [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
}

function isPublicV6(address: string): boolean {
  const [first = 0, second = 0] = v6Groups(address);
  const globalUnicast = first >= 0x2000 && first <= 0x3fff;
  // IETF protocol assignments (Teredo, benchmarking, ORCHID among them), documentation, 6to4.
  const protocolAssignments = first === 0x2001 && second <= 0x01ff;
  const documentation =
    (first === 0x2001 && second === 0x0db8) || (first === 0x3fff && second <= 0x0fff);
  const sixToFour = first === 0x2002;
  return globalUnicast && !protocolAssignments && !documentation && !sixToFour;
}

/** Whether fetch would reach a public host with this URL, by the parser's own reading. */
function reachesOnlyPublicHosts(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return false;
  const host = url.hostname;
  if (host.startsWith("[")) return isPublicV6(host.slice(1, -1));
  if (/^[0-9.]+$/.test(host)) return isPublicV4(host);
  const name = host.replace(/\.$/, "");
  return name.includes(".") && name !== "localhost" && !name.endsWith(".localhost");
}

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc.constantFrom("0", "00", "010", "0x7f", "256", "1e2", "", "255"),
);
const hex = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16)),
  fc.constantFrom(
    "0",
    "ffff",
    "2001",
    "db8",
    "2002",
    "fe80",
    "fc00",
    "3fff",
    "fff",
    "1000",
    "2",
    "10",
    "1ff",
    "200",
    "2000",
    "1fff",
    "4000",
    "0db8",
  ),
);
const ipv4 = fc.array(octet, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("."));
const ipv6 = fc.oneof(
  fc.array(hex, { minLength: 1, maxLength: 9 }).map((groups) => groups.join(":")),
  fc
    .tuple(fc.array(hex, { maxLength: 7 }), fc.array(hex, { maxLength: 7 }))
    .map(([before, after]) => `${before.join(":")}::${after.join(":")}`),
  fc
    .tuple(fc.array(hex, { maxLength: 6 }), ipv4)
    .map(([groups, v4]) => `${groups.join(":")}::${v4}`),
  fc
    .tuple(fc.array(hex, { minLength: 6, maxLength: 6 }), ipv4)
    .map(([groups, v4]) => `${groups.join(":")}:${v4}`),
  ipv4.map((v4) => `::ffff:${v4}`),
);
const label = fc.oneof(
  fc.stringMatching(/^[a-z0-9-]{1,8}$/),
  fc.constantFrom(
    "localhost",
    "LocalHost",
    "example",
    "com",
    "0x7f",
    "127",
    "xn--bcher-kva",
    "bücher",
    "a_b",
    "%31",
  ),
);
/** Well-formed addresses and names, each in one of the forms people write them. */
const wellFormedV4 = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })
  .map((parts) => parts.join("."));
const firstGroup = fc.oneof(
  fc.integer({ min: 0x2000, max: 0x3fff }),
  fc.constantFrom(0x2001, 0x2002, 0x3fff, 0, 0xfe80, 0xfc00, 0xfd00, 0xff02, 0x64, 0x1fff, 0x4000),
  fc.integer({ min: 0, max: 0xffff }),
);
const secondGroup = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 0xffff }),
  fc.integer({ min: 0, max: 0x3ff }),
  fc.constantFrom(0x2, 0x10, 0x1f, 0x1ff, 0x200, 0xdb8, 0xfff, 0x1000),
);
const wellFormedV6 = fc
  .tuple(
    firstGroup,
    fc
      .tuple(
        secondGroup,
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), {
          minLength: 6,
          maxLength: 6,
        }),
      )
      .map(([second, rest]) => [second, ...rest]),
    fc.boolean(),
  )
  .map(([first, rest, full]) => {
    const groups = [first, ...rest].map((group) => group.toString(16));
    // Either all eight groups, or the parser's own compressed form.
    return full
      ? groups.join(":")
      : new URL(`https://[${groups.join(":")}]/`).hostname.slice(1, -1);
  });
const wellFormedName = fc
  .tuple(
    fc.array(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,6}[a-z0-9])?$/), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.stringMatching(/^[a-z][a-z0-9]{1,5}$/),
  )
  .map(([labels, top]) => [...labels, top].join("."));

const host = fc.oneof(
  { arbitrary: wellFormedV4, weight: 3 },
  { arbitrary: wellFormedV6.map((address) => `[${address}]`), weight: 3 },
  { arbitrary: wellFormedName, weight: 3 },
  ipv4,
  ipv6.map((address) => `[${address}]`),
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join(".")),
  fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom(".", ""))
    .map(([labels, dot]) => labels.join(".") + dot),
);

/** Mostly the plain form, sometimes one of the forms a parser reads in its own way. */
const mostly = <T>(usual: T, ...unusual: T[]) =>
  fc.oneof(
    { arbitrary: fc.constant(usual), weight: 4 },
    { arbitrary: fc.constantFrom(...unusual), weight: 1 },
  );

const candidateUrl = fc
  .record({
    scheme: mostly("https://", "http://", "HTTPS://", "https:/", "https:\\\\"),
    user: mostly("", "user@", "user:pw@", "@"),
    host,
    port: mostly("", ":443", ":8443", ":0", ":65535", ":65536", ":", ":0443"),
    rest: mostly("/hook", "", "/", "/a?b=c", "?x", "#frag", "/a b", "\\@10.0.0.1", "/@10.0.0.1"),
  })
  .map(({ scheme, user, host: name, port, rest }) => `${scheme}${user}${name}${port}${rest}`);

/** Mostly the local receiver's address, sometimes a near miss of it. */
const loopbackCandidateUrl = fc
  .record({
    scheme: mostly("http://", "https://", "HTTP://", "http:/"),
    user: mostly("", "user@", "user:pw@"),
    host: mostly("127.0.0.1", "127.0.0.2", "127.1", "localhost", "[::1]", "0.0.0.0"),
    port: mostly("", ":8787", ":0", ":65535", ":65536"),
    rest: mostly("/hook", "", "/a?b=c", "#frag", "\\@10.0.0.1"),
  })
  .map(({ scheme, user, host: name, port, rest }) => `${scheme}${user}${name}${port}${rest}`);

describe("the pattern against the parser", () => {
  it("every URL it accepts reaches only public hosts over https, by the parser's reading", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ arbitrary: candidateUrl, weight: 9 }, fc.string()), (url) => {
        if (!isAllowedWebhookUrl(url, production)) return;
        accepted += 1;
        expect(reachesOnlyPublicHosts(url), url).toBe(true);
      }),
      { seed, numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(2_000);
  });

  it("agrees with the address arithmetic at the edge of every refused IPv4 block", () => {
    for (const [base, bits] of NON_PUBLIC_V4) {
      const start = v4Number(base);
      const end = start + 2 ** (32 - bits) - 1;
      for (const value of [start - 1, start, start + 1, end - 1, end, end + 1]) {
        if (value < 0 || value > 0xffffffff) continue;
        const address = [24, 16, 8, 0]
          .map((shift) => Math.floor(value / 2 ** shift) % 256)
          .join(".");
        const url = `https://${address}/hook`;
        expect(isAllowedWebhookUrl(url, production), url).toBe(isPublicV4(address));
      }
    }
  });

  it("refuses every block of the special-purpose list, first address to last, however it is written", () => {
    const format = (value: bigint, bits: number, full: boolean): string => {
      if (bits === 32) {
        return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join(".");
      }
      const groups = [...Array(8).keys()].map((i) =>
        ((value >> BigInt(16 * (7 - i))) & 0xffffn).toString(16).padStart(full ? 4 : 1, "0"),
      );
      const text = groups.join(":");
      return `[${full ? text.toUpperCase() : new URL(`https://[${text}]/`).hostname.slice(1, -1)}]`;
    };
    for (const entry of [...REFUSED_IPV4_BLOCKS, ...REFUSED_IPV6_BLOCKS]) {
      const range = rangeOf(entry.block);
      const last = range.first | ((1n << BigInt(range.bits - range.prefix)) - 1n);
      for (const value of [range.first, range.first + 1n, last - 1n, last]) {
        for (const full of [false, true]) {
          const url = `https://${format(value, range.bits, full)}/hook`;
          expect(isAllowedWebhookUrl(url, production), `${entry.name}: ${url}`).toBe(false);
          expect(isAllowedWebhookUrl(url, local), `${entry.name}: ${url}`).toBe(false);
        }
      }
    }
  });

  it("the local allowance adds http://127.0.0.1 and nothing else", () => {
    let added = 0;
    fc.assert(
      fc.property(fc.oneof(candidateUrl, loopbackCandidateUrl, fc.string()), (url) => {
        if (!isAllowedWebhookUrl(url, local) || isAllowedWebhookUrl(url, production)) return;
        added += 1;
        expect(new URL(url).origin.startsWith("http://127.0.0.1"), url).toBe(true);
      }),
      { seed, numRuns: 5_000 },
    );
    expect(added).toBeGreaterThan(100);
  });
});
