/**
 * The addresses a key may be used from: CIDR ranges, IPv4 or IPv6. Shared by
 * the Worker and the operator command (Node's type stripping: erasable syntax
 * only). Hono's ipRestriction middleware takes one list for a whole app; each
 * key carries its own, and a request outside it is charged to its address
 * before it is refused, so its parsing helpers are used here instead.
 */
import {
  convertIPv4BinaryToString,
  convertIPv4MappedIPv6ToIPv4,
  convertIPv4ToBinary,
  convertIPv6BinaryToString,
  convertIPv6ToBinary,
  isIPv4MappedIPv6,
} from "hono/utils/ipaddr";

/** A range as compared: its family, its network bits, and the mask that selects them. */
interface Range {
  v4: boolean;
  network: bigint;
  mask: bigint;
}

const maskOf = (prefix: number, bits: number) =>
  ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);

/**
 * An address as compared, however it is written: IPv4-mapped IPv6
 * (`::ffff:10.1.2.3`, `::ffff:a01:203`) as its IPv4 address. Undefined when
 * the text is not an address.
 */
export function addressOf(text: string): { v4: boolean; value: bigint } | undefined {
  try {
    if (!text.includes(":")) return { v4: true, value: convertIPv4ToBinary(text) };
    const value = convertIPv6ToBinary(text);
    return isIPv4MappedIPv6(value)
      ? { v4: true, value: convertIPv4MappedIPv6ToIPv4(value) }
      : { v4: false, value };
  } catch {
    return undefined;
  }
}

/**
 * A range as written (`10.0.0.0/8`, `2001:db8::/32`, or one address), in the
 * form it is stored and shown, or why it is not one. A mapped IPv6 range of
 * /96 or longer is the IPv4 range it maps; bits set past the prefix are
 * refused rather than guessed at.
 */
export function parseRange(text: string): { range: string } | { problem: string } {
  const [written = "", prefixText, ...rest] = text.trim().split("/");
  const address = addressOf(written);
  if (!address || rest.length > 0) return { problem: `"${text}" is not an address or CIDR range` };
  const mapped = written.includes(":") && address.v4;
  const bits = address.v4 && !mapped ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) {
    return { problem: `"${text}" has no prefix length after "/"` };
  }
  let prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return { problem: `"${text}": the prefix length is at most ${bits}` };
  if (mapped) {
    if (prefix < 96)
      return { problem: `"${text}": an IPv4-mapped range needs a prefix of 96 or more` };
    prefix -= 96;
  }
  const width = address.v4 ? 32 : 128;
  const network = address.value & maskOf(prefix, width);
  const show = address.v4 ? convertIPv4BinaryToString : convertIPv6BinaryToString;
  if (network !== address.value) {
    return {
      problem: `"${text}" has bits set past its prefix; did you mean ${show(network)}/${prefix}?`,
    };
  }
  return { range: `${show(network)}/${prefix}` };
}

/** A stored range (from `parseRange`) ready to compare. */
function compiled(range: string): Range {
  const [written = "", prefix = ""] = range.split("/");
  const address = addressOf(written);
  if (!address) throw new Error(`not a stored range: ${range}`);
  const mask = maskOf(Number(prefix), address.v4 ? 32 : 128);
  return { v4: address.v4, network: address.value & mask, mask };
}

/** Each key's ranges compiled once, while its record is cached. */
const compiledRanges = new WeakMap<readonly string[], Range[]>();

/**
 * Whether the address is in one of the ranges; an address that cannot be
 * read (or none, as when the request did not come through Cloudflare) is in none.
 */
export function inRanges(ranges: readonly string[], address: string | undefined): boolean {
  const candidate = address === undefined ? undefined : addressOf(address.trim());
  if (!candidate) return false;
  let parsed = compiledRanges.get(ranges);
  if (!parsed) {
    parsed = ranges.map(compiled);
    compiledRanges.set(ranges, parsed);
  }
  return parsed.some(
    (range) => range.v4 === candidate.v4 && (candidate.value & range.mask) === range.network,
  );
}
