/**
 * `copyJson` (runtime/decode.ts), the copy the session reducer and the
 * copying parsers make of untyped values: a deep copy that shares no
 * container with its source, keeps every key as an own data property
 * (`__proto__` included, S34) at every depth (recursive part and explicit
 * stack alike), and never turns an inherited key into an own one.
 */
import { describe, expect, it } from "vitest";
import { copyJson } from "../generated/src/runtime/decode.js";

/** `{ __proto__: inner }` with `__proto__` as an own data key, as JSON.parse makes it. */
function protoKeyed(inner: unknown): Record<string, unknown> {
  return JSON.parse(`{"__proto__": ${JSON.stringify(inner)}, "x": 1}`) as Record<string, unknown>;
}

/** Every container of `value` (no recursion). */
function containers(value: unknown): object[] {
  const out: object[] = [];
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== "object" || next === null) continue;
    out.push(next);
    for (const member of Object.values(next)) stack.push(member);
  }
  return out;
}

/** A value nested `depth` levels deep, each level `{ __proto__: { list: [next] } }`. */
function deepProtoChain(depth: number): Record<string, unknown> {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = protoKeyed({ list: [value] });
  return value as Record<string, unknown>;
}

describe("copyJson", () => {
  it("copies deep: equal value, no container shared, source untouched", () => {
    const source = JSON.parse('{"a":[1,{"b":[[2],{"c":null}]}],"d":"s","e":{"f":true}}') as unknown;
    const text = JSON.stringify(source);
    const copy = copyJson(source);
    expect(copy).toEqual(source);
    const copied = new Set(containers(copy));
    for (const container of containers(source)) expect(copied.has(container)).toBe(false);
    expect(JSON.stringify(source)).toBe(text);
  });

  it("keeps primitives as they are", () => {
    for (const value of [null, 0, -1.5, "", "x", true, false]) expect(copyJson(value)).toBe(value);
  });

  it("S34: an own __proto__ key stays an own data property at every level, prototypes untouched", () => {
    for (const depth of [1, 3, 63, 64, 65, 200]) {
      const copy = copyJson(deepProtoChain(depth));
      let level = copy as Record<string, unknown>;
      for (let i = 0; i < depth; i++) {
        expect(Object.getPrototypeOf(level)).toBe(Object.prototype);
        expect(Object.keys(level)).toEqual(["__proto__", "x"]);
        const inner = Object.getOwnPropertyDescriptor(level, "__proto__")!.value as { list: unknown[] };
        expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
        level = inner.list[0] as Record<string, unknown>;
      }
      expect(level).toBe("bottom");
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it("never copies an enumerable key inherited from a polluted Object.prototype as an own key", () => {
    const polluted = Object.prototype as Record<string, unknown>;
    polluted["injected"] = { evil: true };
    try {
      const copy = copyJson(JSON.parse('{"a":{"b":[{"c":1}]}}')) as Record<string, Record<string, unknown>>;
      expect(Object.hasOwn(copy, "injected")).toBe(false);
      expect(Object.hasOwn(copy["a"]!, "injected")).toBe(false);
      expect(Object.keys(copy)).toEqual(["a"]);
    } finally {
      delete polluted["injected"];
    }
  });

  it("an array's own `constructor` key is data: the copy is a plain array, whatever its `Symbol.species` says (S34)", () => {
    for (const species of [5, () => ({})]) {
      const list: unknown[] & { constructor?: unknown } = [1, { a: 2 }];
      list.constructor = { [Symbol.species]: species };
      const copy = copyJson({ rawInput: list }) as { rawInput: unknown[] };
      expect(Array.isArray(copy.rawInput)).toBe(true);
      expect(Object.getPrototypeOf(copy.rawInput)).toBe(Array.prototype);
      expect([...copy.rawInput]).toEqual([1, { a: 2 }]);
    }
  });
});
