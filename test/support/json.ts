/**
 * JSON text with object keys sorted, for comparing wire values exactly.
 * Unlike vitest's equality it treats `__proto__` and `constructor` keys as
 * the plain data they are (S34), and it tells `undefined` values apart
 * (they have no JSON form and must never appear in wire data).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (value === undefined) return "<undefined>";
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, { value: sortKeys((value as Record<string, unknown>)[key]), enumerable: true });
  }
  return out;
}
