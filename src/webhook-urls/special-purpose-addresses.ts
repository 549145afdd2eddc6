/*
 * The address blocks no endpoint may be in: every block the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries mark not globally reachable, or
 * N/A (deprecated relays, Teredo, 6to4), with the registry's names; IPv4
 * multicast and the reserved space above it besides. Each block is refused
 * whole. IPv6 hosts must also be in global unicast space (2000::/3), so the
 * IPv6 blocks outside it are listed for completeness and need no pattern.
 * webhook-url.ts turns this list into the URL pattern the server tests and
 * the OpenAPI document states.
 */

interface SpecialPurposeBlock {
  block: string;
  name: string;
}

export const REFUSED_IPV4_BLOCKS: readonly SpecialPurposeBlock[] = [
  { block: "0.0.0.0/8", name: '"This network"' },
  { block: "10.0.0.0/8", name: "Private-Use" },
  { block: "100.64.0.0/10", name: "Shared Address Space" },
  { block: "127.0.0.0/8", name: "Loopback" },
  { block: "169.254.0.0/16", name: "Link Local" },
  { block: "172.16.0.0/12", name: "Private-Use" },
  { block: "192.0.0.0/24", name: "IETF Protocol Assignments" },
  { block: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix" },
  { block: "192.0.0.8/32", name: "IPv4 dummy address" },
  { block: "192.0.0.170/32", name: "NAT64/DNS64 Discovery" },
  { block: "192.0.0.171/32", name: "NAT64/DNS64 Discovery" },
  { block: "192.0.2.0/24", name: "Documentation (TEST-NET-1)" },
  { block: "192.88.99.0/24", name: "Deprecated (6to4 Relay Anycast)" },
  { block: "192.168.0.0/16", name: "Private-Use" },
  { block: "198.18.0.0/15", name: "Benchmarking" },
  { block: "198.51.100.0/24", name: "Documentation (TEST-NET-2)" },
  { block: "203.0.113.0/24", name: "Documentation (TEST-NET-3)" },
  { block: "224.0.0.0/4", name: "Multicast (IPv4 Multicast Address Space Registry)" },
  { block: "240.0.0.0/4", name: "Reserved" },
  { block: "255.255.255.255/32", name: "Limited Broadcast" },
];

export const REFUSED_IPV6_BLOCKS: readonly SpecialPurposeBlock[] = [
  { block: "::1/128", name: "Loopback Address" },
  { block: "::/128", name: "Unspecified Address" },
  { block: "::ffff:0:0/96", name: "IPv4-mapped Address" },
  { block: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat." },
  { block: "100::/64", name: "Discard-Only Address Block" },
  { block: "100:0:0:1::/64", name: "Dummy IPv6 Prefix" },
  { block: "2001::/23", name: "IETF Protocol Assignments" },
  { block: "2001::/32", name: "TEREDO" },
  { block: "2001:2::/48", name: "Benchmarking" },
  { block: "2001:10::/28", name: "Deprecated (previously ORCHID)" },
  { block: "2001:db8::/32", name: "Documentation" },
  { block: "2002::/16", name: "6to4" },
  { block: "3fff::/20", name: "Documentation" },
  { block: "5f00::/16", name: "Segment Routing (SRv6) SIDs" },
  { block: "fc00::/7", name: "Unique-Local" },
  { block: "fe80::/10", name: "Link-Local Unicast" },
];

/** A block as a first address and a prefix length, over `bits` bits. */
export interface Range {
  first: bigint;
  prefix: number;
  bits: number;
}

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((value, octet) => value * 256n + BigInt(octet), 0n);
}

/** The eight 16-bit groups of an IPv6 address written with hex groups (and `::`). */
function ipv6Groups(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const part = (text: string) =>
    text === "" ? [] : text.split(":").map((group) => Number.parseInt(group, 16));
  const before = part(head);
  const after = tail === undefined ? [] : part(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function ipv6Value(address: string): bigint {
  return ipv6Groups(address).reduce((value, group) => value * 65536n + BigInt(group), 0n);
}

export function rangeOf(block: string): Range {
  const [address = "", prefix = ""] = block.split("/");
  const v6 = address.includes(":");
  return {
    first: v6 ? ipv6Value(address) : ipv4Value(address),
    prefix: Number(prefix),
    bits: v6 ? 128 : 32,
  };
}

export function contains(outer: Range, value: bigint): boolean {
  const shift = BigInt(outer.bits - outer.prefix);
  return value >> shift === outer.first >> shift;
}

/** The blocks not inside another of the list: those that decide alone. */
export function outermost(blocks: readonly SpecialPurposeBlock[]): Range[] {
  const ranges = blocks.map((entry) => rangeOf(entry.block));
  return ranges.filter(
    (range, index) =>
      !ranges.some(
        (other, otherIndex) =>
          otherIndex !== index &&
          other.prefix <= range.prefix &&
          contains(other, range.first) &&
          (other.prefix < range.prefix || otherIndex < index),
      ),
  );
}
