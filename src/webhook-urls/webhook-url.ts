/*
 * Which URLs an endpoint may have, as one regular expression: the server
 * tests it and the OpenAPI document states it as the `url` pattern, so a
 * client generated from the document agrees with the server. It describes a
 * strict, plain form of URL on purpose: the forms a URL parser reads in
 * surprising ways (`0x7f.1`, `2130706433`, `127.0.0.1.`, percent-encoded or
 * non-ASCII hosts, user names before `@`) are simply not in it, so the host
 * this expression sees is the host `fetch` connects to. Written in the
 * syntax JSON Schema patterns share with JavaScript; no flags.
 */

import {
  contains,
  outermost,
  type Range,
  REFUSED_IPV4_BLOCKS,
  REFUSED_IPV6_BLOCKS,
  rangeOf,
} from "./special-purpose-addresses.ts";

/** An octet of a dotted IPv4 address, without leading zeros (a parser reads those as octal). */
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/** The decimal octets from `low` to `high`, as alternatives. */
const octets = (low: number, high: number) =>
  `(?:${Array.from({ length: high - low + 1 }, (_, i) => low + i).join("|")})`;

/** The start of a dotted IPv4 address in the block; the whole address for a /32. */
function ipv4BlockStart({ first, prefix }: Range): string {
  const bytes = [24n, 16n, 8n, 0n].map((shift) => Number((first >> shift) & 255n));
  const whole = Math.floor(prefix / 8);
  const parts = bytes.slice(0, whole).map(String);
  const free = 8 - (prefix % 8);
  const low = bytes[whole] ?? 0;
  if (whole < 4 && free < 8) parts.push(octets(low, low + 2 ** free - 1));
  return parts.join("\\.") + (parts.length === 4 ? "(?![0-9])" : "\\.");
}

/** The refused IPv4 blocks, each as the start of a dotted address, octets written as above. */
const NON_PUBLIC_IPV4 = outermost(REFUSED_IPV4_BLOCKS).map(ipv4BlockStart);

const PUBLIC_IPV4 = `(?!${NON_PUBLIC_IPV4.join("|")})${IPV4}`;

const HEX_GROUP = "[0-9A-Fa-f]{1,4}";

/** A hex digit from `low` to `high`, in either case. */
function hexDigits(low: number, high: number): string {
  if (low === 0 && high === 15) return "[0-9A-Fa-f]";
  const digits = Array.from({ length: high - low + 1 }, (_, i) => (low + i).toString(16));
  const both = digits.flatMap((digit) =>
    /[a-f]/.test(digit) ? [digit.toUpperCase(), digit] : [digit],
  );
  return both.length === 1 ? (both[0] ?? "") : `[${both.join("")}]`;
}

/**
 * A 16-bit group whose top `fixed` bits are those of `value`, written in
 * any case, with or without its leading zeros.
 */
function hexGroup(value: number, fixed: number): string {
  const nibbles = [12, 8, 4, 0].map((shift) => {
    const free = Math.min(4, Math.max(0, 16 - fixed - shift));
    const known = (value >> shift) & 15 & ~(2 ** free - 1);
    return { low: known, high: known + 2 ** free - 1 };
  });
  const forms: string[] = [];
  for (let omitted = 0; omitted < 4; omitted++) {
    if (nibbles.slice(0, omitted).some((nibble) => nibble.low !== 0)) break;
    const rest = nibbles.slice(omitted).map((nibble) => hexDigits(nibble.low, nibble.high));
    forms.push(rest.join(""));
  }
  return `(?:${forms.join("|")})`;
}

/**
 * The start of a bracketed IPv6 address in the block, for blocks of global
 * unicast space from /16 to /32: its first group (written with four digits,
 * as the forms below require), then its second, or `::` when the block holds
 * a second group of zero.
 */
function ipv6BlockStart({ first, prefix }: Range): string {
  if (prefix < 16 || prefix > 32) throw new Error(`no pattern for an IPv6 /${prefix} block`);
  const group = (index: number) => Number((first >> BigInt(16 * (7 - index))) & 0xffffn);
  const lead = hexGroup(group(0), 16);
  if (prefix === 16) return `${lead}:`;
  const second = group(1);
  const holdsZero = second >> (32 - prefix) === 0;
  return `${lead}:(?:${hexGroup(second, prefix - 16)}(?=[:\\]])${holdsZero ? "|:" : ""})`;
}

const GLOBAL_UNICAST = rangeOf("2000::/3");

/** The refused blocks inside global unicast space; the others lie outside 2000::/3. */
const REFUSED_IPV6 = outermost(REFUSED_IPV6_BLOCKS)
  .filter((range) => contains(GLOBAL_UNICAST, range.first))
  .map(ipv6BlockStart);

/**
 * A bracketed IPv6 address in global unicast space (2000::/3): its first
 * group written with four digits, 2 or 3 first. That leaves out loopback,
 * unspecified, link-local, unique-local, multicast, and IPv4-mapped or
 * -compatible addresses (all in other blocks). Within it, the
 * special-purpose blocks are refused too.
 */
function publicIpv6(): string {
  const first = "[23][0-9A-Fa-f]{3}";
  const refused = `(?!${REFUSED_IPV6.join("|")})`;
  // A group of 16 bits after the first, or the last 32 bits as a dotted IPv4 address.
  const groups = (count: number) => (count === 0 ? "" : `(?::${HEX_GROUP}){${count}}`);
  const forms = [`${first}${groups(7)}`, `${first}${groups(5)}:${IPV4}`];
  // "::" stands for at least one zero group: 1 to 7 groups written before it, at most 7 in all.
  for (let before = 1; before <= 7; before++) {
    const lead = `${first}${groups(before - 1)}::`;
    const room = 7 - before;
    forms.push(room === 0 ? lead : `${lead}(?:${HEX_GROUP}(?::${HEX_GROUP}){0,${room - 1}})?`);
    if (room >= 2) {
      const tail = room === 2 ? "" : `(?:${HEX_GROUP}:){0,${room - 2}}`;
      forms.push(`${lead}${tail}${IPV4}`);
    }
  }
  return `\\[${refused}(?:${forms.join("|")})\\]`;
}

/** Upper or lower case, letter by letter: JSON Schema patterns take no flags. */
const anyCase = (word: string) =>
  [...word].map((letter) => `[${letter.toUpperCase()}${letter}]`).join("");

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/**
 * A DNS name of two or more labels, the last starting with a letter (a
 * parser reads a numeric last label as an IPv4 address), an optional final
 * dot; `localhost` and names under it are refused.
 */
const DOMAIN = `(?!(?:${LABEL}\\.)*${anyCase("localhost")}\\.?(?:[:/?]|$))(?:${LABEL}\\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?`;

/** 1 to 65535, without leading zeros. */
const PORT =
  "(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";

/** Path and query: visible ASCII, no fragment (nothing after `#` is ever sent). */
const PATH_AND_QUERY = '(?:[/?][!-"$-~]*)?';

export interface WebhookUrlPolicy {
  /** Local development and tests only: `http://127.0.0.1` on any port, where test receivers listen. */
  allowLoopbackHttp: boolean;
}

/** The longest URL an endpoint may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The pattern every endpoint URL matches, under this environment's policy. */
export function webhookUrlPattern(policy: WebhookUrlPolicy): string {
  const publicHttps = `https://(?:${PUBLIC_IPV4}|${DOMAIN}|${publicIpv6()})(?::${PORT})?${PATH_AND_QUERY}`;
  const loopbackHttp = `http://127\\.0\\.0\\.1(?::${PORT})?${PATH_AND_QUERY}`;
  return policy.allowLoopbackHttp ? `^(?:${publicHttps}|${loopbackHttp})$` : `^${publicHttps}$`;
}

/** The rules in words, for the document and for the 400 a refused URL gets. */
export function webhookUrlRules(policy: WebhookUrlPolicy): string {
  const local = policy.allowLoopbackHttp
    ? " This environment also allows `http://127.0.0.1` on any port, for local receivers."
    : "";
  return `An \`https://\` URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters whose host is a public DNS name (ASCII; not \`localhost\`) or a public IP address literal, written in plain dotted or bracketed form: no address in a block the IANA IPv4 and IPv6 special-purpose registries mark not globally reachable or N/A (loopback, private, link-local, shared, documentation, benchmarking, protocol assignments, Teredo, 6to4 and the rest), no IPv4 multicast or reserved address, and IPv6 only in global unicast space (2000::/3). No user name or password, no fragment.${local} A name that resolves to a private address cannot be detected here; do not register one.`;
}

const compiled = new Map<string, RegExp>();

/** Whether an endpoint may have this URL under the policy. */
export function isAllowedWebhookUrl(url: string, policy: WebhookUrlPolicy): boolean {
  const source = webhookUrlPattern(policy);
  let pattern = compiled.get(source);
  if (!pattern) {
    pattern = new RegExp(source, "u");
    compiled.set(source, pattern);
  }
  return url.length <= MAX_WEBHOOK_URL_LENGTH && pattern.test(url);
}
