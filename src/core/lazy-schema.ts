// A schema built on first use instead of when its module loads. Building the wire and storage schemas cost a CLI
// start about as much as loading zod itself (docs/benchmarks.md), and a listing served from the validated-record cache
// (src/store/record-cache.ts) validates nothing: `status`, `next`, `focus` and the picker's first screen need no
// schema at all then. The hook validates every event, so it builds the ones it uses on its first event, as before.
//
// A Proxy rather than an accessor function, so that every `X.safeParse(...)`, `z.infer<typeof X>` and schema that
// composes `X` stays as it is. What it forwards is what zod does with a schema object: read and set properties, `in`,
// and `instanceof` (zod's classes test their traits through the prototype).

/** `build()` runs once, at the first use of the returned schema. */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
