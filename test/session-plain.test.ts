/**
 * Entities are plain objects whatever builds them (issue 11, memory): the
 * patch functions make their results with a constructor of plain objects
 * (runtime `plainObjects`, for compact objects), and a chunk append copies
 * the stored entity through its patch function. Both must give what `{}`
 * gives: prototype `Object.prototype`, own enumerable data properties only,
 * a `__proto__` key kept as data (S34), and no field lost by the copy.
 */
import { describe, expect, it } from "vitest";
import * as v2u from "../generated/src/v2/unstable/index.js";

type Json = Record<string, unknown>;

function expectPlain(value: unknown): void {
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  expect((value as Json).constructor).toBe(Object);
  for (const key of Reflect.ownKeys(value as object)) {
    const property = Object.getOwnPropertyDescriptor(value, key)!;
    expect(typeof key, String(key)).toBe("string");
    expect(property.enumerable && "value" in property, String(key)).toBe(true);
  }
}

const thought = (messageId: string, text: string) => ({ sessionUpdate: "agent_thought_chunk", messageId, content: { type: "text", text } }) as v2u.SessionUpdate;

describe("entities built by the reducer and apply.X are plain objects", () => {
  it("apply.X results", () => {
    const meta = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}');
    const entity = v2u.apply.ToolCallUpdate(undefined, { toolCallId: "t1", title: "x", _meta: meta });
    expectPlain(entity);
    expect(Object.keys(entity)).toEqual(["toolCallId", "title", "kind", "status", "content", "locations", "_meta"]);
    expect(({} as Json)["polluted"]).toBeUndefined();
  });

  it("chunk appends keep every field of the stored entity, in order, and stay plain", () => {
    let state = v2u.emptySessionState();
    state = v2u.reduceSession(state, { sessionUpdate: "agent_thought", messageId: "m1", content: [], _meta: { a: 1 } } as v2u.SessionUpdate);
    state = v2u.reduceSession(state, thought("m1", "one"));
    state = v2u.reduceSessionOwned(state, thought("m1", "two"));
    const entity = state.agentThoughts.get("m1")!;
    expectPlain(entity);
    expect(entity).toEqual({ messageId: "m1", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }], _meta: { a: 1 } });
    expect(Object.keys(entity)).toEqual(["messageId", "content", "_meta"]);
    expect(Object.isFrozen(entity) && Object.isFrozen(entity.content)).toBe(true);
  });
});
