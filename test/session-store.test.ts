/**
 * `createSessionStore`'s listeners, called directly through `update` (the
 * connection's use is in connection.test.ts): who is called for which update,
 * in which order, and what a throwing listener does.
 */
import { describe, expect, it } from "vitest";
import * as v1 from "../generated/src/v1/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";

const chunk = (sessionId: string, text: string) =>
  ({ sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } } }) as const;

/** The texts of message `m` in a state. */
const texts = (state: v2u.SessionState) => (state.agentMessages.get("m")?.content ?? []).map((c) => (c.type === "text" ? c.text : ""));

describe("createSessionStore: listeners", () => {
  it("a listener subscribed while listeners are called is first called for the next update", () => {
    const store = v2u.createSessionStore();
    const calls: string[] = [];
    let added = false;
    store.subscribe(() => {
      calls.push("A");
      if (!added) (added = true), store.subscribe(() => calls.push("B"));
    });
    store.update(chunk("s", "1"));
    expect(calls).toEqual(["A"]);
    store.update(chunk("s", "2"));
    expect(calls).toEqual(["A", "A", "B"]);
  });

  it("a listener that ends its subscription and subscribes again is called once per update (no endless round)", () => {
    const store = v2u.createSessionStore();
    let calls = 0;
    const arm = (): void => {
      const stop = store.subscribe(() => {
        stop();
        if (++calls > 10) throw new Error("called again within one update");
        arm();
      });
    };
    arm();
    store.update(chunk("s", "1"));
    store.update(chunk("s", "2"));
    expect(calls).toBe(2);
  });

  it("a listener unsubscribed by an earlier one during a round is not called again", () => {
    const store = v2u.createSessionStore();
    const calls: string[] = [];
    let stopB = (): void => {};
    store.subscribe(() => (calls.push("A"), stopB()));
    stopB = store.subscribe(() => calls.push("B"));
    store.update(chunk("s", "1"));
    expect(calls).toEqual(["A"]);
  });

  it("an update made by a listener reaches every listener after the current one, so each sees the states in order", () => {
    const store = v2u.createSessionStore();
    const seen: Record<string, string[][]> = { A: [], B: [] };
    let nested = false;
    store.subscribe((_, state) => {
      seen.A!.push(texts(state));
      if (!nested) (nested = true), store.update(chunk("s", "2"));
    });
    store.subscribe((_, state) => seen.B!.push(texts(state)));
    store.update(chunk("s", "1"));
    expect(seen).toEqual({ A: [["1"], ["1", "2"]], B: [["1"], ["1", "2"]] });
    expect(texts(store.get("s")!)).toEqual(["1", "2"]);
  });

  it("a throwing listener does not stop the others; update throws its error once all were called, the state stored", () => {
    const store = v2u.createSessionStore();
    const calls: string[] = [];
    const boom = new Error("boom");
    store.subscribe(() => {
      throw boom;
    });
    store.subscribe(() => {
      throw new Error("second");
    });
    store.subscribe((id) => calls.push(id));
    expect(() => store.update(chunk("s", "1"))).toThrow(boom);
    expect(calls).toEqual(["s"]);
    expect(texts(store.get("s")!)).toEqual(["1"]);
    // The next update starts a fresh round.
    expect(() => store.update(chunk("t", "2"))).toThrow(boom);
    expect(calls).toEqual(["s", "t"]);
  });

  it("each subscription of the same function is its own", () => {
    const store = v2u.createSessionStore();
    let calls = 0;
    const listener = () => void calls++;
    const stop = store.subscribe(listener);
    store.subscribe(listener);
    store.update(chunk("s", "1"));
    expect(calls).toBe(2);
    stop();
    stop();
    store.update(chunk("s", "2"));
    expect(calls).toBe(3);
  });

  it("a notification outside the type (no object, no string sessionId) is ignored, never a throw", () => {
    const store = v2u.createSessionStore();
    let calls = 0;
    store.subscribe(() => void calls++);
    for (const bad of [null, undefined, 5, "x", {}, { sessionId: 5, update: {} }]) {
      expect(() => store.update(bad as unknown as Parameters<typeof store.update>[0])).not.toThrow();
    }
    expect(calls).toBe(0);
    expect(store.get("undefined")).toBeUndefined();
  });
});

describe("createSessionStore: permission requests (S4)", () => {
  const toolCall = { toolCallId: "t9", title: "Edit a.ts", kind: "edit" } as const;

  it("a permission request's tool call is applied like a tool_call_update (a first-seen id creates it), listeners told; the request untouched", () => {
    const store = v2u.createSessionStore();
    const told: string[] = [];
    store.subscribe((id) => told.push(id));
    store.update({ sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" } });
    const request = {
      sessionId: "s",
      title: "Allow?",
      options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
      subject: { type: "tool_call", toolCall: { ...toolCall } },
    } as const satisfies v2u.RequestPermissionRequest;
    store.permission(request);
    const expected = v2u.reduceSession(v2u.reduceSession(v2u.emptySessionState(), { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" }), {
      sessionUpdate: "tool_call_update",
      ...toolCall,
    });
    expect(v2u.sessionStateToJSON(store.get("s")!)).toEqual(v2u.sessionStateToJSON(expected));
    expect(store.get("s")!.toolCalls.get("t9")).toMatchObject({ toolCallId: "t9", title: "Edit a.ts", kind: "edit", status: "pending" });
    expect(told).toEqual(["s", "s"]);
    expect(Object.isFrozen(request.subject.toolCall)).toBe(false);
    // No subject, a null one, a command subject, a custom one with a toolCall: nothing changes, nobody is told.
    const others = [undefined, null, { type: "command", command: "ls" }, { type: "_x", toolCall: { ...toolCall, toolCallId: "t8" } }];
    for (const subject of others) store.permission({ sessionId: "s", title: "t", options: [], ...(subject === undefined ? {} : { subject }) } as v2u.RequestPermissionRequest);
    expect(told).toEqual(["s", "s"]);
    // A tool call the reducer cannot key creates no session either.
    store.permission({ sessionId: "new", title: "t", options: [], subject: { type: "tool_call", toolCall: { toolCallId: 5 } } } as unknown as v2u.RequestPermissionRequest);
    expect(store.get("new")).toBeUndefined();
    expect(told).toEqual(["s", "s"]);
  });

  it("v1: the request's toolCall is applied", () => {
    const store = v1.createSessionStore();
    store.permission({ sessionId: "s", toolCall: { toolCallId: "t9", title: "Edit" }, options: [] } as unknown as v1.RequestPermissionRequest);
    expect(store.get("s")!.toolCalls.get("t9")).toMatchObject({ toolCallId: "t9", title: "Edit" });
  });
});
