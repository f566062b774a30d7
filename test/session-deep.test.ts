/**
 * Issue 9.3 for the reducer: apply.X, applyMeta, reduceSession (and
 * reduceSessionOwned, sessionStateToJSON/FromJSON) take any value JSON.parse
 * can produce in their untyped parts (rawInput, rawOutput, `_meta`, custom
 * payloads) without throwing: nesting 10^4, 10^5 and 10^6 deep, a 100 MB
 * string, a 10^6-item array. What the state stores is a frozen copy of the
 * same depth, and the update is left as it was.
 */
import { describe, expect, it } from "vitest";
import * as v1 from "../generated/src/v1/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";

type Json = Record<string, unknown>;

/** `{ "a": { "a": ... { "a": 1 } } }`, `depth` objects deep, built without recursion. */
function nested(depth: number): Json {
  let value: Json = { a: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

/** How many objects deep `value` goes along `a`, and whether every level is frozen (no recursion). */
function walk(value: unknown): { depth: number; frozen: boolean } {
  let depth = 0;
  let frozen = true;
  for (let v = value; typeof v === "object" && v !== null; v = (v as Json)["a"]) {
    depth++;
    frozen &&= Object.isFrozen(v);
  }
  return { depth, frozen };
}

const DEPTHS = [1e4, 1e5, 1e6];

describe("9.3 reduceSession on deep untyped JSON", () => {
  for (const depth of DEPTHS) {
    it(`v2/unstable: rawInput and _meta ${depth} deep are stored as frozen copies of that depth; the update is untouched`, () => {
      const update = { sessionUpdate: "tool_call_update" as const, toolCallId: "t1", rawInput: nested(depth), _meta: { deep: nested(depth) } };
      const state = v2u.reduceSession(v2u.emptySessionState(), update);
      const stored = state.toolCalls.get("t1")!;
      expect(walk(stored.rawInput)).toEqual({ depth, frozen: true });
      expect(walk(stored._meta!["deep"])).toEqual({ depth, frozen: true });
      expect(stored.rawInput === update.rawInput).toBe(false); // not .not.toBe: its message would compare deeply
      expect(walk(update.rawInput)).toEqual({ depth, frozen: false });
    });
  }

  it("v2/unstable: a custom update 10^6 deep is kept raw and frozen; the owned path freezes the update itself", () => {
    const custom = { sessionUpdate: "_acme/deep" as const, payload: nested(1e6) };
    const state = v2u.reduceSession(v2u.emptySessionState(), custom);
    expect(walk((state.custom[0] as Json)["payload"])).toEqual({ depth: 1e6, frozen: true });
    expect(walk(custom.payload).frozen).toBe(false);
    const owned = v2u.reduceSessionOwned(v2u.emptySessionState(), custom);
    expect((owned.custom[0] as Json)["payload"] === custom.payload).toBe(true);
    expect(walk(custom.payload)).toEqual({ depth: 1e6, frozen: true });
  });

  it("v1: rawOutput 10^5 deep through tool_call and a plan entry's _meta", () => {
    const state = v1.reduceSession(v1.emptySessionState(), { sessionUpdate: "tool_call", toolCallId: "t1", title: "Run", rawOutput: nested(1e5) });
    expect(walk(state.toolCalls.get("t1")!.rawOutput)).toEqual({ depth: 1e5, frozen: true });
  });

  it("v2/unstable: a 100 MB string and a 10^6-item array", () => {
    const big = "x".repeat(100 * 1024 * 1024);
    const items = Array.from({ length: 1e6 }, (_, i) => ({ i }));
    const state = v2u.reduceSession(v2u.emptySessionState(), { sessionUpdate: "tool_call_update", toolCallId: "t1", rawOutput: big, rawInput: items });
    const stored = state.toolCalls.get("t1")!;
    expect((stored.rawOutput as string).length).toBe(big.length);
    const copy = stored.rawInput as Json[];
    expect(copy.length).toBe(1e6);
    expect(copy === items).toBe(false);
    expect(Object.isFrozen(copy) && Object.isFrozen(copy[999_999])).toBe(true);
    expect(copy[999_999]!["i"]).toBe(999_999);
  });

  it("v2/unstable: a state holding 10^6-deep values saves and restores (sessionStateToJSON / FromJSON)", () => {
    const state = v2u.reduceSession(v2u.emptySessionState(), { sessionUpdate: "tool_call_update", toolCallId: "t1", rawInput: nested(1e6) });
    const restored = v2u.sessionStateFromJSON(v2u.sessionStateToJSON(state));
    if (!restored.ok) throw new Error(JSON.stringify(restored.issues));
    expect(walk(restored.value.toolCalls.get("t1")!.rawInput)).toEqual({ depth: 1e6, frozen: true });
  });
});

describe("9.3 apply.X and applyMeta on deep untyped JSON", () => {
  for (const depth of DEPTHS) {
    it(`v2/unstable: ${depth} deep`, () => {
      const deep = nested(depth);
      const applied = v2u.apply.ToolCallUpdate(undefined, { toolCallId: "t1", rawInput: deep, _meta: { k: deep } });
      expect(applied.rawInput === deep).toBe(true);
      const meta = v2u.applyMeta({ k: 1 }, { deep })!;
      expect(Object.keys(meta)).toEqual(["k", "deep"]);
      expect(meta["deep"] === deep).toBe(true);
      expect(walk(deep)).toEqual({ depth, frozen: false });
    });
  }
});
