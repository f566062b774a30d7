/**
 * Issue 9.3: untyped JSON (`rawInput`, `rawOutput`, `_meta`) as deep and as
 * large as `JSON.parse` reads it. `parse`, `validate`, `build` and
 * `parseOwned` of v1 and v2/unstable must return (never throw `Maximum call stack size exceeded`),
 * copy every level with `__proto__` as plain data (S34), and leave the input
 * as it was. The checks below walk values iteratively: `JSON.stringify` and
 * vitest's equality would themselves overflow the stack at these depths.
 */
import { describe, expect, it } from "vitest";
import { ENTRIES } from "./support/surfaces.js";

const SURFACES = ["v1", "v2/unstable"] as const;

/** JSON text nesting `{"__proto__": {"k": [ ... 1 ... ]}}`, `depth` containers deep, parsed by JSON.parse. */
function deepJson(depth: number): unknown {
  const open: string[] = [];
  for (let i = 0; i < depth; i++) open.push(i % 3 === 0 ? '{"__proto__":' : i % 3 === 1 ? '{"k":' : "[");
  const close = open.map((o) => (o === "[" ? "]" : "}")).reverse();
  return JSON.parse(open.join("") + "1" + close.join(""));
}

/**
 * True when `a` and `b` are equal JSON values (own keys only, so `__proto__`
 * is compared as data) and share no object; plain prototypes on `b`'s side.
 */
function equalFreshCopy(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [x, y] = pair;
    if (typeof x !== "object" || x === null) {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (typeof y !== "object" || y === null || x === y || Array.isArray(x) !== Array.isArray(y)) return false;
    if (Object.getPrototypeOf(y) !== (Array.isArray(y) ? Array.prototype : Object.prototype)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pairs.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/** Where a case puts its value: raw JSON (rawInput/rawOutput share one decoder) or `_meta` (the record decoder). */
type Field = "rawInput" | "rawOutput" | "_meta";

/** A tool-call update message carrying `raw` in `field` (under a key when `_meta`). */
function message(raw: unknown, field: Field): Record<string, unknown> {
  return { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", [field]: field === "_meta" ? { deep: raw } : raw } };
}

function notificationType(surface: (typeof SURFACES)[number]): string {
  return surface === "v1" ? "SessionNotification" : "UpdateSessionNotification";
}

/** parse, validate and build one message; each must succeed and keep every level. */
function roundTrip(surface: (typeof SURFACES)[number], field: Field, raw: unknown, twin: unknown): void {
  const entry = ENTRIES[surface] as unknown as {
    parse: Record<string, (v: unknown) => { ok: boolean; value?: unknown }>;
    parseOwned: Record<string, (v: unknown) => { ok: boolean; value?: unknown }>;
    validate: Record<string, (v: unknown) => { ok: boolean; value?: unknown }>;
    build: Record<string, (id: string) => Record<string, (v: unknown) => unknown> & { build(): unknown }>;
  };
  const type = notificationType(surface);
  const input = message(raw, field);

  const validated = entry.validate[type]!(input);
  expect(validated.ok).toBe(true);
  expect(validated.value).toBe(input);

  const parsed = entry.parse[type]!(input);
  expect(parsed.ok).toBe(true);
  expect(equalFreshCopy(input, parsed.value)).toBe(true);

  const builder = entry.build.SessionUpdateToolCallUpdate!("t1") as any;
  const built = builder[field](field === "_meta" ? { deep: raw } : raw).build();
  expect(entry.validate.SessionUpdate!(built).ok).toBe(true);
  expect(entry.parse.SessionUpdate!(built).ok).toBe(true);

  // The input is untouched: it still equals an identical value made apart from it.
  expect(equalFreshCopy(twin, raw)).toBe(true);

  // The owned-tree path takes the twin (now ours to give) and returns it as it is.
  const owned = message(twin, field);
  const result = entry.parseOwned[type]!(owned);
  expect(result.ok && result.value).toBe(owned);
  expect(Object.keys(Object.prototype)).toEqual([]);
}

describe("deep and large untyped JSON (issue 9.3)", () => {
  for (const depth of [1e4, 1e5, 1e6]) {
    for (const surface of SURFACES) {
      for (const field of ["rawInput", "_meta"] as const) {
        it(`${surface}: ${field} nesting ${depth} levels deep, __proto__ keys on the way`, () => {
          roundTrip(surface, field, deepJson(depth), deepJson(depth));
        });
      }
    }
  }

  for (const surface of SURFACES) {
    it(`${surface}: a 100 MB string`, () => {
      const big = "x".repeat(100 * 1024 * 1024);
      roundTrip(surface, "rawOutput", { text: big }, { text: big });
    });

    it(`${surface}: a 10^6-item array`, () => {
      const items = (): unknown[] => Array.from({ length: 1e6 }, (_, i) => i);
      roundTrip(surface, "rawOutput", items(), items());
    });
  }
});
