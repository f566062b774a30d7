/**
 * `describeJson`, the one bounded printer of wire values in messages (issue 36):
 * our own cases of what it must print, and that depth, size and hostile objects
 * neither throw nor cost more than the length asked for.
 */
import { describe, expect, it } from "vitest";
import { describeJson } from "../generated/src/runtime/describe.js";

describe("describeJson", () => {
  it.each([
    [null, "null"],
    [42, "42"],
    ["id-1", '"id-1"'],
    [[1, "a", null], '[1,"a",null]'],
    [{ a: [true, { b: {} }] }, '{"a":[true,{"b":{}}]}'],
    [{ __proto__: null, x: 1 }, '{"x":1}'],
    [undefined, "(undefined)"],
    [10n, "10n"],
  ])("prints case %# as JSON text", (value, text) => {
    expect(describeJson(value)).toBe(text);
  });

  it("cuts at the length asked for, ending in …", () => {
    expect(describeJson("x".repeat(1000), 10)).toBe('"xxxxxxxx…');
    expect(describeJson(Array.from({ length: 1000 }, (_, i) => i), 12)).toBe("[0,1,2,3,4,…");
    expect(describeJson({ a: 1, b: 2 }, 100)).toBe('{"a":1,"b":2}');
  });

  it("prints containers below depth 8 as […] and {…}", () => {
    expect(describeJson([[[[[[[[[[0]]]]]]]]]])).toBe("[[[[[[[[[…]]]]]]]]]");
    expect(describeJson({ a: { a: { a: { a: { a: { a: { a: { a: { a: 1 } } } } } } } } })).toBe('{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{…}}}}}}}}}');
  });

  it("takes a value nested 1,000,000 levels deep, a 100 MB string and a 10^6-member array or object", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(describeJson(deep, 40)).toBe("[[[[[[[[[…]]]]]]]]]");
    expect(describeJson("y".repeat(100_000_000), 20)).toHaveLength(20);
    expect(describeJson(new Array(1_000_000).fill(7), 20)).toHaveLength(20);
    const wide: Record<string, number> = {};
    for (let i = 0; i < 1_000_000; i++) wide[`k${i}`] = i;
    expect(describeJson(wide, 20)).toHaveLength(20);
  });

  it("never throws: a getter or a Proxy that throws is described as unreadable", () => {
    const getter = Object.defineProperty({}, "x", { enumerable: true, get: () => { throw new Error("no"); } });
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error("no"); } });
    expect(describeJson(getter)).toBe("(a value that cannot be read)");
    expect(describeJson(proxy)).toBe("(a value that cannot be read)");
  });
});
