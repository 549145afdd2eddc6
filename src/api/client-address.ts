import type { Context } from "hono";

/**
 * The address a throttle counts against: the client's IPv4 address as sent,
 * or the /64 prefix of its IPv6 address, since one subscriber usually holds
 * a whole /64 and could otherwise take a fresh address for every attempt.
 */
export function throttleAddress(clientIp: string | undefined): string {
  const ip = clientIp?.trim().toLowerCase() ?? "";
  if (ip === "") return "unknown";
  return ip.includes(":") ? (ipv6Prefix64(ip) ?? ip) : ip;
}

/** `2001:db8:1:2::/64` for any address in that /64; undefined when the text is not IPv6. */
function ipv6Prefix64(ip: string): string | undefined {
  const halves = ip.split("::");
  if (halves.length > 2) return undefined;
  const [head = "", tail] = halves;
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - headGroups.length - tailGroups.length;
  // Without "::" all eight groups are written; with it, it stands for at least one.
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...headGroups, ...Array<string>(missing).fill("0"), ...tailGroups];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(":")}::/64`;
}

/** The client's address as Cloudflare sends it (none off Cloudflare), which a key's allowed ranges are matched against. */
export function connectingAddress(c: Context): string | undefined {
  return c.req.header("CF-Connecting-IP");
}

/** The address the request's budgets count against (keyless requests, sign-in and sign-up). */
export function clientAddress(c: Context): string {
  return throttleAddress(connectingAddress(c));
}
