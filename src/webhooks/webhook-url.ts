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

/** An octet of a dotted IPv4 address, without leading zeros (a parser reads those as octal). */
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/**
 * IPv4 blocks that are not the public internet (IANA special-purpose
 * registry): each as the start of a dotted address, octets written as above.
 */
const NON_PUBLIC_IPV4: readonly string[] = [
  "0\\.", // 0.0.0.0/8: this network, unspecified
  "10\\.", // 10.0.0.0/8: private
  "100\\.(?:6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\\.", // 100.64.0.0/10: shared (carrier NAT)
  "127\\.", // 127.0.0.0/8: loopback
  "169\\.254\\.", // 169.254.0.0/16: link-local
  "172\\.(?:1[6-9]|2[0-9]|3[01])\\.", // 172.16.0.0/12: private
  "192\\.0\\.0\\.", // 192.0.0.0/24: protocol assignments
  "192\\.0\\.2\\.", // 192.0.2.0/24: documentation
  "192\\.168\\.", // 192.168.0.0/16: private
  "198\\.1[89]\\.", // 198.18.0.0/15: benchmarking
  "198\\.51\\.100\\.", // 198.51.100.0/24: documentation
  "203\\.0\\.113\\.", // 203.0.113.0/24: documentation
  "(?:22[4-9]|2[3-5][0-9])\\.", // 224.0.0.0/3: multicast, reserved, broadcast
];

const PUBLIC_IPV4 = `(?!${NON_PUBLIC_IPV4.join("|")})${IPV4}`;

const HEX_GROUP = "[0-9A-Fa-f]{1,4}";

/**
 * A bracketed IPv6 address in global unicast space (2000::/3): its first
 * group written with four digits, 2 or 3 first. That leaves out loopback,
 * unspecified, link-local, unique-local, multicast, and IPv4-mapped or
 * -compatible addresses (all in other blocks). Within it, the blocks that
 * carry an IPv4 address or are for documentation are refused too: Teredo
 * (2001:0::/32), documentation (2001:db8::/32) and 6to4 (2002::/16).
 */
function publicIpv6(): string {
  const first = "[23][0-9A-Fa-f]{3}";
  const refused = "(?!2001:(?:0{1,4})?:|2001:0?[Dd][Bb]8:|2002:)";
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
  return `An \`https://\` URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters whose host is a public DNS name (ASCII; not \`localhost\`) or a public IP address literal: no loopback, private, link-local, shared, reserved or unspecified address, IPv4 or IPv6 (IPv4-mapped included), written in plain dotted or bracketed form. No user name or password, no fragment.${local} A name that resolves to a private address cannot be detected here; do not register one.`;
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
