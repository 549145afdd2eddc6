const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** An event id as the feed's: `evt_` and 26 random lowercase Crockford base32 characters. */
export function newEventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(26));
  return `evt_${Array.from(bytes, (byte) => CROCKFORD[byte & 31]).join("")}`;
}
