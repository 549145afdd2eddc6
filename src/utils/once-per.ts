/**
 * `build(source)` made once per source object (held weakly, so it goes with
 * its source), then handed out again: for what an isolate can share across
 * requests, such as objects over the same bindings.
 */
export function oncePer<S extends object, T>(build: (source: S) => T): (source: S) => T {
  const made = new WeakMap<S, T>();
  return (source) => {
    let value = made.get(source);
    if (value === undefined) {
      value = build(source);
      made.set(source, value);
    }
    return value;
  };
}
