/**
 * Entities are plain objects whatever builds them (issue 11, memory): the
 * patch functions make their results with a constructor of plain objects
 * (runtime `plainObjects`, for compact objects), and a chunk append copies
 * the stored entity with a spread. Both must give what `{}` gives: prototype
 * `Object.prototype`, own enumerable data properties only, a `__proto__` key
 * kept as data (S34), and no field lost by the copy, also of an entity the
 * caller stored (a restored or hand-made state keeps keys no schema names).
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

  it("a chunk into a restored entity keeps its keys, as into a hand-made one (fast path and general path agree)", () => {
    const stored = JSON.parse('{"messageId":"m1","content":[],"extra":1,"__proto__":{"p":1}}') as Json;
    const handMade = { ...v2u.emptySessionState(), agentMessages: new Map([["m1", stored]]), timeline: [{ kind: "agentMessages", id: "m1" }] } as unknown as v2u.SessionState;
    const restored = v2u.sessionStateFromJSON(JSON.parse(JSON.stringify(v2u.sessionStateToJSON(handMade))));
    expect(restored.ok).toBe(true);
    const chunk = { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "a" } } as v2u.SessionUpdate;
    const general = v2u.reduceSession(handMade, chunk).agentMessages.get("m1")!;
    const fast = v2u.reduceSession((restored as { value: v2u.SessionState }).value, chunk).agentMessages.get("m1")!;
    expect(JSON.stringify(fast)).toBe('{"messageId":"m1","content":[{"type":"text","text":"a"}],"extra":1,"__proto__":{"p":1}}');
    expect(JSON.stringify(general)).toBe(JSON.stringify(fast));
    expectPlain(fast);
  });
});
