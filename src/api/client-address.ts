import type { Context } from "hono";
import { convertIPv4BinaryToString, convertIPv6BinaryToString } from "hono/utils/ipaddr";
import { addressOf } from "../keys/address-ranges.ts";

/** The network bits of an IPv6 /64. */
const PREFIX_64 = ((1n << 64n) - 1n) << 64n;

/**
 * The address a throttle counts against, in one form however the client's
 * text wrote it: an IPv4 address (an IPv4-mapped IPv6 address is its IPv4
 * address), or the /64 prefix of an IPv6 address, since one subscriber
 * usually holds a whole /64 and could otherwise take a fresh address for
 * every attempt. Text that is no address is counted as it is.
 */
export function throttleAddress(clientIp: string | undefined): string {
  const ip = clientIp?.trim() ?? "";
  if (ip === "") return "unknown";
  const address = addressOf(ip);
  if (!address) return ip.toLowerCase();
  if (address.v4) return convertIPv4BinaryToString(address.value);
  return `${convertIPv6BinaryToString(address.value & PREFIX_64)}/64`;
}

/** The client's address as Cloudflare sends it (none off Cloudflare), which a key's allowed ranges are matched against. */
export function connectingAddress(c: Context): string | undefined {
  return c.req.header("CF-Connecting-IP");
}

/** The address the request's budgets count against (keyless requests, sign-in and sign-up). */
export function clientAddress(c: Context): string {
  return throttleAddress(connectingAddress(c));
}
