/**
 * Issue 11.1: the owned-tree decode path. `parseOwned.X(value)` must give the
 * same result as `parse.X(value)` (ok, value as JSON, issues) on every corpus
 * message and every rulebook case, never throw, keep `__proto__` read by
 * JSON.parse as plain data (S34), and return the input itself (no copy) when
 * the tolerant parser would change nothing. Each function gets its own
 * JSON.parse of the same text: the owned path may hand back its input.
 */
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { envelopeOf, routedCorpus } from "./support/envelopes.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { ownedParserOf, parserOf } from "./support/surfaces.js";

/** Every object keeps a plain prototype (S34); iterative, the values can be large. */
function prototypesArePlain(value: unknown): boolean {
  const pending = [value];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v !== "object" || v === null) continue;
    if (Object.getPrototypeOf(v) !== (Array.isArray(v) ? Array.prototype : Object.prototype)) return false;
    pending.push(...Object.values(v));
  }
  return true;
}

/**
 * Runs both on their own copy of `text`; returns whether the owned path kept its input: the input
 * itself, or (unknown keys of the top object, S29) a fresh top object holding the input's own members.
 */
function compare(surface: Surface, type: string, text: string, pick: (v: unknown) => unknown = (v) => v): boolean {
  const copying = parserOf(surface, type)(pick(JSON.parse(text)));
  const input = pick(JSON.parse(text));
  const owned = ownedParserOf(surface, type)(input);
  expect(canonicalJson(owned)).toBe(canonicalJson(copying));
  expect(prototypesArePlain(owned.value)).toBe(true);
  expect(Object.keys(Object.prototype)).toEqual([]);
  return owned.ok && (owned.value === input || holdsMembersOf(owned.value, input));
}

/** A fresh object whose every member is the very member of `input` (no copy below the top). */
function holdsMembersOf(value: unknown, input: unknown): boolean {
  if (typeof value !== "object" || value === null || typeof input !== "object" || input === null) return false;
  return Object.entries(value).every(([key, member]) => Object.hasOwn(input, key) && (input as Record<string, unknown>)[key] === member);
}

describe("parseOwned equals parse (differential)", () => {
  it("on every message of the 20,000-message corpus (v2/unstable), mostly without a copy", () => {
    const { lines, route: routeOf } = routedCorpus();
    let routed = 0;
    let kept = 0;
    for (const { line, route } of lines) {
      if (route === undefined) continue;
      routed++;
      if (compare("v2/unstable", route.def, line, (m) => routeOf(m)!.value)) kept++;
    }
    expect(routed).toBe(lines.length);
    // The corpus is ~95% regular messages; the owned path must not copy those, nor the ones
    // whose only change is a malformed optional value dropped (S23): 19,666 of 20,000 (was 19,158).
    expect(kept / routed).toBeGreaterThan(0.97);
  }, 120_000);

  it("on every request and notification line as a whole (envelope by method), mostly without a copy: a fresh top object without `jsonrpc`", () => {
    const { lines } = routedCorpus();
    let envelopes = 0;
    let kept = 0;
    for (const { line, route } of lines) {
      const envelope = envelopeOf(route!);
      if (envelope === undefined) continue;
      envelopes++;
      if (compare("v2/unstable", envelope, line)) kept++;
    }
    expect(envelopes).toBeGreaterThan(lines.length * 0.9);
    expect(kept / envelopes).toBeGreaterThan(0.97); // 19,397 of 19,731
  }, 120_000);

  for (const fixture of loadFixtures<{ type: string; input: unknown }>("parse")) {
    it(`on the ${fixture.rule} rulebook cases, every surface`, () => {
      for (const c of fixture.cases) for (const surface of c.surfaces) compare(surface, c.type, JSON.stringify(c.input));
    });
  }

  for (const fixture of loadFixtures<{ updates: unknown[] }>("session")) {
    it(`on the ${fixture.rule} session updates, every surface`, () => {
      for (const c of fixture.cases) for (const surface of c.surfaces) for (const u of c.updates) compare(surface, "SessionUpdate", JSON.stringify(u));
    });
  }
});

describe("parseOwned keeps the tree JSON.parse made", () => {
  const text =
    '{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","rawInput":{"__proto__":{"polluted":1}},"_meta":{"__proto__":[1]}}}';

  for (const surface of ["v1", "v1/unstable", "v2", "v2/unstable"] as const) {
    const type = surface.startsWith("v1") ? "SessionNotification" : "UpdateSessionNotification";
    it(`${surface}: returns it as is, __proto__ an own key, no prototype changed (S34)`, () => {
      const input = JSON.parse(text) as { update: { rawInput: object; _meta: object } };
      const result = ownedParserOf(surface, type)(input);
      expect(result.ok && result.value).toBe(input);
      expect(Object.getPrototypeOf(input.update.rawInput)).toBe(Object.prototype);
      expect(Object.hasOwn(input.update.rawInput, "__proto__")).toBe(true);
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    });

    it(`${surface}: unknown properties go without a copy, exactly what parse drops (S29, S34)`, () => {
      const withUnknown = text.replace('"toolCallId":"t"', '"toolCallId":"t","__proto__":{"x":1},"extra":1');
      expect(compare(surface, type, withUnknown)).toBe(true);
      // Below the top: deleted in place.
      const input = JSON.parse(withUnknown) as { update: object };
      expect(ownedParserOf(surface, type)(input)).toEqual({ ok: true, value: input });
      expect(Object.keys(input.update)).toEqual(["sessionUpdate", "toolCallId", "rawInput", "_meta"]);
      expect(Object.getPrototypeOf(input.update)).toBe(Object.prototype);
      // At the top (a line's `jsonrpc`): a fresh top object holding the same members.
      const line = JSON.parse(withUnknown.replace('{"sessionId"', '{"jsonrpc":"2.0","sessionId"')) as { sessionId: string; update: object };
      const result = ownedParserOf(surface, type)(line) as { ok: true; value: object };
      expect(result.value).not.toBe(line);
      expect(Object.keys(result.value)).toEqual(["sessionId", "update"]);
      expect(result.value).toEqual({ sessionId: line.sessionId, update: line.update });
      expect((result.value as { update: object }).update).toBe(line.update);
    });
  }

  // S23: a malformed optional value that the parser drops goes in place too; one the parser keeps changed is copied.
  const chunk = (content: string) => `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":${content}}}`;
  for (const [what, content, keys] of [
    ["a raw `_meta` that is not an object", '{"type":"text","text":"hi","_meta":5}', ["type", "text"]],
    ["a def that does not parse (annotations)", '{"type":"text","_meta":{},"annotations":"x","text":"hi"}', ["type", "_meta", "text"]],
    ["a malformed value inside a def (annotations.priority)", '{"type":"text","text":"hi","annotations":{"priority":"high","lastModified":"t"}}', ["type", "text", "annotations"]],
  ] as const) {
    it(`v2/unstable: ${what} goes in place, without a copy, as parse drops it (S23)`, () => {
      expect(compare("v2/unstable", "UpdateSessionNotification", chunk(content))).toBe(true);
      const input = JSON.parse(chunk(content)) as { update: { content: object } };
      expect(ownedParserOf("v2/unstable", "UpdateSessionNotification")(input)).toEqual({ ok: true, value: input });
      expect(Object.keys(input.update.content)).toEqual(keys);
    });
  }

  it("v2/unstable: a malformed def the parser keeps changed (an annotation audience item skipped, S24) is copied, the input untouched", () => {
    const text = chunk('{"type":"text","text":"hi","annotations":{"audience":[5,"user"]},"extra":1}');
    expect(compare("v2/unstable", "UpdateSessionNotification", text)).toBe(false);
    const input = JSON.parse(text) as object;
    ownedParserOf("v2/unstable", "UpdateSessionNotification")(input);
    expect(JSON.stringify(input)).toBe(text);
  });

  // Unknown keys met before the check fails (a bad value, or an item the parser skips, S24) stay: the copying parser reads the value as it was.
  for (const [what, bad] of [
    ["fails", '"sessionId":5'],
    ["changes more than unknown keys (S24: a bad item skipped)", '"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","extra":1,"locations":[5]}'],
  ] as const) {
    it(`a value whose check ${what} keeps its unknown keys, and gets parse's result`, () => {
      const line = `{"jsonrpc":"2.0",${bad}}`;
      const input = JSON.parse(line) as object;
      const result = ownedParserOf("v2/unstable", "UpdateSessionNotification")(input);
      expect(JSON.stringify(input)).toBe(line);
      expect(canonicalJson(result)).toBe(canonicalJson(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(line))));
      expect(result.ok && result.value === input).toBe(false);
    });
  }

  it("a value that does not parse gives parse's issue", () => {
    const result = ownedParserOf("v2/unstable", "UpdateSessionNotification")({ sessionId: 5 });
    expect(result).toEqual(parserOf("v2/unstable", "UpdateSessionNotification")({ sessionId: 5 }));
    expect(result.ok).toBe(false);
  });
});

describe("parseOwned: review cases (custom variants with a mixin, frozen input, a throwing check, many unknown keys)", () => {
  const surfaces: Surface[] = ["v1", "v1/unstable", "v2", "v2/unstable"];
  for (const surface of surfaces) {
    it(`${surface}: a custom-mode elicitation keeps every key, as parse does (the mixin's check must not note them)`, () => {
      const text = '{"message":"hi","mode":"x_custom","sessionId":"s","extra":{"a":1}}';
      const copying = parserOf(surface, "CreateElicitationRequest")(JSON.parse(text));
      const owned = ownedParserOf(surface, "CreateElicitationRequest")(JSON.parse(text));
      expect(canonicalJson(owned)).toBe(canonicalJson(copying));
    });
  }

  it("frozen input with an unknown key: parse's result, no throw, the input untouched", () => {
    const text = '{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","extra":1}}';
    const input = deepFreeze(JSON.parse(text) as object);
    const owned = ownedParserOf("v2/unstable", "UpdateSessionNotification")(input);
    expect(canonicalJson(owned)).toBe(canonicalJson(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(text))));
    expect(JSON.stringify(input)).toBe(text);
    // and the next call is not disturbed by what the frozen one noted
    const next = JSON.parse('{"sessionId":"s","update":{"sessionUpdate":"agent_thought","messageId":"m"}}') as object;
    expect(ownedParserOf("v2/unstable", "UpdateSessionNotification")(next)).toEqual({ ok: true, value: next });
  });

  it("a check that threw (a caller-built getter) leaves nothing that a later call deletes from that value", () => {
    const bad = { sessionId: "s", extra: 1, get update(): never { throw new Error("boom"); } };
    expect(() => ownedParserOf("v2/unstable", "UpdateSessionNotification")(bad)).toThrow("boom"); // as parse does: not JSON
    const next = JSON.parse('{"sessionId":"s","update":{"sessionUpdate":"agent_thought","messageId":"m"}}') as object;
    expect(ownedParserOf("v2/unstable", "UpdateSessionNotification")(next)).toEqual({ ok: true, value: next });
    expect(Object.hasOwn(bad, "extra")).toBe(true);
  });

  it("a part that cannot lose its key (frozen or sealed) leaves the whole input as it was, though other keys were deletable", () => {
    const parseUpdate = parserOf("v2/unstable", "UpdateSessionNotification");
    const ownedUpdate = ownedParserOf("v2/unstable", "UpdateSessionNotification");
    const seals: [string, (o: object) => void][] = [["frozen", (o) => Object.freeze(o)], ["sealed", (o) => Object.seal(o)]];
    for (const [what, seal] of seals) {
      // `kind: 5` is dropped by parse (S23), `zz` too (S29): the location's key cannot go, so neither may `kind`
      const text = '{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","kind":5,"locations":[{"path":"/a","zz":1}]}}';
      const input = JSON.parse(text) as { update: { locations: object[] } };
      seal(input.update.locations[0]!);
      expect(canonicalJson(ownedUpdate(input)), what).toBe(canonicalJson(parseUpdate(JSON.parse(text))));
      expect(JSON.stringify(input), what).toBe(text);
    }
  });

  it("a caller-built proxy whose delete trap throws gets parse's result, no throw", () => {
    const text = '{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","kind":5}}';
    const update = new Proxy(JSON.parse(text).update as object, { deleteProperty: () => { throw new Error("no delete"); } });
    const owned = ownedParserOf("v2/unstable", "UpdateSessionNotification")({ sessionId: "s", update });
    expect(canonicalJson(owned)).toBe(canonicalJson(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(text))));
  });

  it("a malformed part dropped whole (S23) is not pruned inside: keys its failed check noted stay", () => {
    // `error` fails (no code, no message) after its check noted `zz`: parse drops `error` whole
    const text = '{"error":{"zz":1}}';
    const input = JSON.parse(text) as object;
    const owned = ownedParserOf("v2/unstable", "ErrorStopReason")(input);
    expect(canonicalJson(owned)).toBe(canonicalJson(parserOf("v2/unstable", "ErrorStopReason")(JSON.parse(text))));
    expect(JSON.stringify(input)).toBe(text);
  });

  it("100,000 unknown keys on the top object are dropped in linear time (the result equals parse's)", () => {
    const params: Record<string, unknown> = { sessionId: "s", update: { sessionUpdate: "agent_thought", messageId: "m" } };
    for (let i = 0; i < 100_000; i++) params[`x${i}`] = i;
    const text = JSON.stringify(params);
    const owned = ownedParserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(text));
    expect(owned).toEqual(parserOf("v2/unstable", "UpdateSessionNotification")(JSON.parse(text)));
    expect(Object.keys((owned as { value: object }).value)).toEqual(["sessionId", "update"]);
  });
});

function deepFreeze<T extends object>(value: T): T {
  const pending: unknown[] = [value];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v !== "object" || v === null) continue;
    Object.freeze(v);
    pending.push(...Object.values(v));
  }
  return value;
}
