/**
 * The consumer program's two helpers: a structural equality check that
 * throws (so a wrong result fails the process), and one report line per step.
 */

/** Throws unless `actual` and `expected` are the same JSON value (object key order aside). */
export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  const got = canonical(actual);
  const want = canonical(expected);
  if (got !== want) throw new Error(`${what}: expected ${want}, got ${got}`);
}

/** Prints one line of the program's report (test/package.test.ts reads it). */
export function report(line: string): void {
  console.log(line);
}

/** JSON text with object keys sorted; `undefined` spelled out so that it never equals a missing key. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === undefined) return "<undefined>";
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}
