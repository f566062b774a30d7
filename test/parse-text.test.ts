/**
 * Issue 11.1, text input: `parseOwned.fromText(text, parseOwned.X)` must give
 * the same result as `parse.X(JSON.parse(text))` (ok, value as JSON, issues)
 * on every corpus line (the whole JSON-RPC envelope, decoded by its method,
 * and the routed payload) and on every rulebook case; never throw, not even on
 * text that is not JSON; keep `__proto__` read by JSON.parse as plain data (S34).
 * `parseOwned.fromLines(lines, decode)`, the batch form, must give result `i`
 * equal to that of line `i` alone, with every `JSON.parse` before the first
 * decode.
 */
import { describe, expect, it, vi } from "vitest";
import type { Surface } from "../generator/ir.js";
import { envelopeOf, routedCorpus } from "./support/envelopes.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { ENTRIES, ownedParserOf, parserOf } from "./support/surfaces.js";

type Result = { ok: boolean; value?: unknown; issues?: { path: string; message: string }[] };
type Decoder = (value: unknown) => Result;
interface Owned {
  readonly fromText: (text: string, decode: Decoder) => Result;
  readonly fromLines: (texts: readonly string[], decode: (value: unknown, index: number) => Result) => Result[];
  readonly [type: string]: unknown;
}

function owned(surface: Surface): Owned {
  return (ENTRIES[surface] as unknown as { parseOwned: Owned }).parseOwned;
}

/** `fromText(text, parseOwned.type)` against `parse.type(JSON.parse(text))`. */
function compare(surface: Surface, type: string, text: string): Result {
  const fromText = owned(surface).fromText(text, ownedParserOf(surface, type));
  expect(canonicalJson(fromText)).toBe(canonicalJson(parserOf(surface, type)(JSON.parse(text))));
  return fromText;
}

describe("parseOwned.fromText equals parse of JSON.parse (differential)", () => {
  it("on every line of the 20,000-message corpus (v2/unstable): envelope by method, and payload", () => {
    const { lines } = routedCorpus();
    let envelopes = 0;
    let kept = 0;
    for (const { line, route: routed } of lines) {
      const route = routed!;
      const envelope = envelopeOf(route);
      if (envelope !== undefined) {
        envelopes++;
        compare("v2/unstable", envelope, line);
      }
      const payload = JSON.stringify(route.value);
      if (payload !== undefined && compare("v2/unstable", route.def, payload).ok) kept++;
    }
    expect(envelopes).toBeGreaterThan(lines.length * 0.9);
    expect(kept).toBeGreaterThan(lines.length * 0.9);
  }, 120_000);

  for (const fixture of loadFixtures<{ type: string; input: unknown }>("parse")) {
    it(`on the ${fixture.rule} rulebook cases, every surface`, () => {
      for (const c of fixture.cases) for (const surface of c.surfaces) compare(surface, c.type, JSON.stringify(c.input));
    });
  }
});

describe("parseOwned.fromText on hostile text", () => {
  it("returns the tree JSON.parse made, __proto__ an own data property (S34)", () => {
    const text = '{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","rawInput":{"__proto__":{"polluted":1}}}}';
    const result = compare("v2/unstable", "UpdateSessionNotification", text) as { ok: true; value: { update: { rawInput: object } } };
    expect(Object.hasOwn(result.value.update.rawInput, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result.value.update.rawInput)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("drops an unknown __proto__ key of a known type, as parse does (S29, S34)", () => {
    const text = '{"sessionId":"s","__proto__":{"x":1},"update":{"sessionUpdate":"state_update","state":"idle","stopReason":null}}';
    const result = compare("v2/unstable", "UpdateSessionNotification", text) as { ok: true; value: object };
    expect(Object.keys(result.value)).toEqual(["sessionId", "update"]);
  });

  it("rebuilds an envelope's top object without its unknown keys (`jsonrpc`, `__proto__`), members in field order as parse stores them (S29, S34)", () => {
    const params = '{"sessionId":"s","update":{"sessionUpdate":"agent_thought","messageId":"m"}}';
    const text = `{"params":${params},"__proto__":{"polluted":1},"jsonrpc":"2.0","method":"session/update"}`;
    for (const surface of ["v2", "v2/unstable"] as const) {
      const result = compare(surface, "AgentNotification", text) as { ok: true; value: { params: object } };
      expect(Object.keys(result.value)).toEqual(["method", "params"]);
      expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
      expect(result.value.params).toEqual(JSON.parse(params));
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    }
    const response = compare("v2/unstable", "ClientResponse", '{"result":null,"jsonrpc":"2.0","id":7}') as { ok: true; value: object };
    expect(Object.keys(response.value)).toEqual(["id", "result"]);
  });

  it("gives an issue at the root, and never throws, for text that is not JSON", () => {
    for (const text of ["", "{", '{"a":1}x', "\u0000", "[".repeat(200_000)]) {
      const result = owned("v2/unstable").fromText(text, ownedParserOf("v2/unstable", "UpdateSessionNotification"));
      expect(result.ok).toBe(false);
      expect(result.issues?.[0]?.path).toBe("");
      expect(result.issues?.[0]?.message).toMatch(/^not JSON: /);
    }
  });

  it("takes text nested 10^5 levels deep in a raw value", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const text = `{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","rawInput":${deep}}}`;
    const result = owned("v2/unstable").fromText(text, ownedParserOf("v2/unstable", "UpdateSessionNotification"));
    expect(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(text)).ok).toBe(true);
    let depth = 0;
    for (let v = (result as { value: { update: { rawInput: unknown } } }).value.update.rawInput; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(100_000);
  });
});

describe("parseOwned.fromLines: result i is that of line i alone", () => {
  /** `fromLines` of `texts` (line `i` decoded as `types[i]`) against `parse` of `JSON.parse` of each, line by line. */
  function compareBatch(surface: Surface, types: readonly string[], texts: readonly string[]): Result[] {
    const results = owned(surface).fromLines(texts, (value, index) => ownedParserOf(surface, types[index]!)(value));
    expect(results).toHaveLength(texts.length);
    texts.forEach((text, i) => expect(canonicalJson(results[i])).toBe(canonicalJson(parserOf(surface, types[i]!)(JSON.parse(text)))));
    return results;
  }

  it("on the 20,000-message corpus (v2/unstable) cut into batches of 1, 7 and 250 lines, and in one batch", () => {
    const { lines } = routedCorpus();
    const decodable = lines.flatMap(({ line, route }) => {
      const envelope = envelopeOf(route!);
      return envelope === undefined ? [] : [{ line, envelope }];
    });
    for (const size of [1, 7, 250, decodable.length]) {
      let ok = 0;
      for (let start = 0; start < decodable.length; start += size) {
        const batch = decodable.slice(start, start + size);
        ok += compareBatch("v2/unstable", batch.map((b) => b.envelope), batch.map((b) => b.line)).filter((r) => r.ok).length;
      }
      expect(ok).toBeGreaterThan(lines.length * 0.9);
    }
  }, 240_000);

  it("on the rulebook cases of each surface, all in one batch", () => {
    const cases = loadFixtures<{ type: string; input: unknown }>("parse").flatMap((f) => f.cases);
    for (const surface of ["v1", "v1/unstable", "v2", "v2/unstable"] as const) {
      const mine = cases.filter((c) => c.surfaces.includes(surface));
      expect(mine.length).toBeGreaterThan(0);
      compareBatch(surface, mine.map((c) => c.type), mine.map((c) => JSON.stringify(c.input)));
    }
  });

  it("gives text that is not JSON its issue at its own index, and decodes the lines around it", () => {
    const good = '{"sessionId":"s","update":{"sessionUpdate":"agent_thought","messageId":"m"}}';
    const texts = [good, "{", good, "[".repeat(200_000), good];
    const results = owned("v2/unstable").fromLines(texts, ownedParserOf("v2/unstable", "UpdateSessionNotification"));
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, true]);
    const alone = canonicalJson(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(good)));
    for (const i of [0, 2, 4]) expect(canonicalJson(results[i])).toBe(alone);
    for (const i of [1, 3]) expect(results[i]!.issues?.[0]).toMatchObject({ path: "", message: expect.stringMatching(/^not JSON: /) });
  });

  it("parses every line before it decodes the first, and passes each decode its line's index", () => {
    const texts = ["1", "2", "3"];
    const parse = vi.spyOn(JSON, "parse");
    const seen: [unknown, number, number][] = [];
    try {
      owned("v2").fromLines(texts, (value, index) => {
        seen.push([value, index, parse.mock.calls.length]);
        return { ok: true, value };
      });
    } finally {
      parse.mockRestore();
    }
    expect(seen).toEqual([[1, 0, 3], [2, 1, 3], [3, 2, 3]]);
  });

  it("parses ahead about 64 KiB of text at a time, not the whole batch", () => {
    const texts = [0, 1, 2].map(() => JSON.stringify("a".repeat(70_000)));
    const parse = vi.spyOn(JSON, "parse");
    const parsedBefore: number[] = [];
    try {
      owned("v2").fromLines(texts, (value) => (parsedBefore.push(parse.mock.calls.length), { ok: true, value }));
    } finally {
      parse.mockRestore();
    }
    expect(parsedBefore).toEqual([1, 2, 3]);
  });

  it("returns no results for no lines", () => {
    expect(owned("v2").fromLines([], () => ({ ok: true, value: 1 }))).toEqual([]);
  });
});
