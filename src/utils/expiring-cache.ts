/**
 * A per-isolate cache with a size bound and a time to live: entries expire
 * after `ttlMs`, and beyond `maxEntries` the oldest one is dropped (a Map
 * keeps insertion order), so memory stays bounded however many keys pass.
 */
export class ExpiringCache<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;

  // Plain fields, not parameter properties: Node runs this file with its types stripped.
  constructor(maxEntries: number, ttlMs: number) {
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
  }

  /** The value, while it has not expired. */
  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: K, value: V, now: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: now + this.#ttlMs });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }
}
