const numberFormat = new Intl.NumberFormat("en-US");
const pluralRules = new Intl.PluralRules("en-US");

export function formatCount(value: number): string {
  return numberFormat.format(value);
}

/** "1 request", "2 requests", "1,000 requests": the count with the noun that agrees with it. */
export function formatQuantity(value: number, one: string, other = `${one}s`): string {
  return `${formatCount(value)} ${pluralRules.select(value) === "one" ? one : other}`;
}

/** The noun alone, for text that sets the number apart (in bold, say). */
export function nounFor(value: number, one: string, other = `${one}s`): string {
  return pluralRules.select(value) === "one" ? one : other;
}

/** `2026-11-21 20:15 UTC`: unambiguous for every reader, whatever their time zone. */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
