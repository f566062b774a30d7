/**
 * SessionState beyond the rulebook fixtures (issue 9.4):
 * - reduceSession accepts every state its type admits: plain `Map`s and a
 *   timeline built by hand are adopted (copied, frozen, completed), and the
 *   caller's objects are left as they were;
 * - sessionStateToJSON / sessionStateFromJSON save and restore a state: the
 *   round trip (through JSON text) gives the same state and the same future,
 *   property-tested on streams drawn from the fixture updates on every
 *   surface; FromJSON validates what it reads and reports JSON pointers, and
 *   never throws, whatever it is given.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import * as v1 from "../generated/src/v1/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { plainState } from "./support/state.js";
import { ENTRIES, parserOf } from "./support/surfaces.js";

type Json = Record<string, unknown>;
type Result = { ok: true; value: object } | { ok: false; issues: { path: string; message: string }[] };

interface Persistence {
  emptySessionState(): object;
  reduceSession(state: object, update: unknown): object;
  reduceSessionOwned(state: object, update: unknown): object;
  sessionStateToJSON(state: object): unknown;
  sessionStateFromJSON(json: unknown): Result;
}

const api = (surface: Surface) => ENTRIES[surface] as unknown as Persistence;

/** The parsed wire updates of every session scenario of a surface. */
function seedUpdates(surface: Surface): Json[] {
  return loadFixtures<{ updates: unknown[] }>("session").flatMap((file) =>
    file.cases.filter((c) => c.surfaces.includes(surface)).flatMap((c) => c.updates.map((u) => parserOf(surface, "SessionUpdate")(u)).flatMap((r) => (r.ok ? [r.value as Json] : []))),
  );
}

const fold = (surface: Surface, updates: readonly unknown[], from = api(surface).emptySessionState()) => updates.reduce<object>((s, u) => api(surface).reduceSession(s, u), from);
const same = (a: object, b: object) => expect(canonicalJson(plainState(a))).toBe(canonicalJson(plainState(b)));
const throughText = (surface: Surface, state: object) => api(surface).sessionStateFromJSON(JSON.parse(JSON.stringify(api(surface).sessionStateToJSON(state))));

describe("9.4 reduceSession accepts any state its type admits", () => {
  const toolCall = { toolCallId: "t1", title: "Read", kind: "read" as const, status: "pending" as const, content: [], locations: [] };

  it("v2/unstable: a state holding plain Maps (the issue's example) reduces, the caller's Map and entity untouched", () => {
    const userMap = new Map([["t1", toolCall]]);
    const state: v2u.SessionState = { ...v2u.emptySessionState(), toolCalls: userMap };
    const next = v2u.reduceSession(state, { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
    const after = v2u.reduceSession(next, { sessionUpdate: "tool_call_update", toolCallId: "t2" });
    expect(after.toolCalls.get("t1")).toEqual({ ...toolCall, status: "completed" });
    expect([...after.toolCalls.keys()]).toEqual(["t1", "t2"]);
    expect(after.timeline).toEqual([
      { kind: "toolCalls", id: "t1" },
      { kind: "toolCalls", id: "t2" },
    ]);
    expect(userMap.get("t1")).toBe(toolCall);
    expect(Object.isFrozen(toolCall)).toBe(false);
    expect(userMap.size).toBe(1);
    expect(Object.isFrozen(after.toolCalls.get("t1"))).toBe(true);
  });

  it("v2/unstable: an update to another slot keeps the plain Map readable, and the timeline is completed from it", () => {
    const state: v2u.SessionState = { ...v2u.emptySessionState(), toolCalls: new Map([["t1", toolCall]]), timeline: [] };
    const next = v2u.reduceSession(state, { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } });
    expect(next.toolCalls.get("t1")).toEqual(toolCall);
    expect(next.timeline).toEqual([
      { kind: "toolCalls", id: "t1" },
      { kind: "agentMessages", id: "m1" },
    ]);
  });

  it("v2/unstable: a hand-made timeline keeps its order; entries naming no entity, or twice, are dropped", () => {
    const state: v2u.SessionState = {
      ...v2u.emptySessionState(),
      toolCalls: new Map([["t1", toolCall]]),
      agentMessages: new Map([["m1", { messageId: "m1", content: [] }]]),
      timeline: [
        { kind: "agentMessages", id: "m1" },
        { kind: "toolCalls", id: "nope" },
        { kind: "agentMessages", id: "m1" },
      ],
    };
    const next = v2u.reduceSession(state, { sessionUpdate: "usage_update", used: 1, size: 2 });
    expect(next.timeline).toEqual([
      { kind: "agentMessages", id: "m1" },
      { kind: "toolCalls", id: "t1" },
    ]);
  });

  it("v2/unstable: a list slot that is not an array (a state outside its type) is read as empty by an event, never a throw", () => {
    const notice = { sessionUpdate: "notice", severity: "info", title: "m" } as const;
    for (const bad of [null, undefined, 5, "x", {}]) {
      for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
        const state = reduce({ ...v2u.emptySessionState(), notices: bad } as unknown as v2u.SessionState, structuredClone(notice));
        expect(state.notices).toEqual([{ severity: "info", title: "m" }]);
        expect(Object.isFrozen(state.notices)).toBe(true);
      }
    }
  });

  describe("v2/unstable: a state changed by a spread is adopted whole by the next update, whichever slot it writes", () => {
    const msg = { messageId: "m1", content: [{ type: "text" as const, text: "hi" }] };
    const toolUpdate = { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" } as const;
    const usageUpdate = { sessionUpdate: "usage_update", used: 1, size: 2 } as const;
    const restored = (state: v2u.SessionState) => v2u.sessionStateFromJSON(JSON.parse(JSON.stringify(v2u.sessionStateToJSON(state))));
    const entities = (state: v2u.SessionState) => [...state.agentMessages.keys()].map((id) => ({ kind: "agentMessages", id }));

    for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
      it(`${reduce.name}: a plain Map put in a state the reducer made joins the timeline, frozen, and the result restores`, () => {
        const spread: v2u.SessionState = { ...v2u.emptySessionState(), agentMessages: new Map([["m1", msg]]) };
        for (const update of [toolUpdate, usageUpdate]) {
          const next = reduce(spread, structuredClone(update));
          expect(next.timeline.filter((e) => e.kind === "agentMessages")).toEqual([{ kind: "agentMessages", id: "m1" }]);
          expect(next.agentMessages).not.toBe(spread.agentMessages);
          expect(Object.isFrozen(next.agentMessages.get("m1"))).toBe(true);
          expect(Object.isFrozen(msg)).toBe(false);
          expect(restored(next).ok).toBe(true);
        }
      });

      it(`${reduce.name}: a map taken from another state, or emptied, leaves the timeline in step with the maps`, () => {
        const chunk = (id: string) => ({ sessionUpdate: "agent_message_chunk", messageId: id, content: { type: "text", text: id } }) as const;
        const a = reduce(v2u.emptySessionState(), chunk("m1"));
        const b = reduce(v2u.emptySessionState(), chunk("other"));
        for (const spread of [{ ...a, agentMessages: b.agentMessages }, { ...a, agentMessages: new Map() }] as v2u.SessionState[]) {
          const next = reduce(reduce(spread, structuredClone(toolUpdate)), chunk("m2"));
          expect(next.timeline).toEqual([...entities(spread), { kind: "toolCalls", id: "t1" }, { kind: "agentMessages", id: "m2" }]);
          expect(restored(next).ok).toBe(true);
        }
      });
    }

    it("singletons and lists the caller built are copied, never frozen nor shared", () => {
      const cost = { amount: 1, currency: "USD" };
      const meta = { note: "mine" };
      const notices = [{ severity: "info" as const, title: "n" }];
      const spread = { ...v2u.emptySessionState(), usage: { used: 0, size: 10, cost }, info: { title: "t", _meta: meta }, notices } as v2u.SessionState;
      for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
        for (const update of [usageUpdate, { sessionUpdate: "session_info_update", title: "u" } as const, toolUpdate]) {
          const next = reduce(spread, structuredClone(update));
          for (const mine of [cost, meta, notices, notices[0], spread.usage, spread.info]) expect(Object.isFrozen(mine)).toBe(false);
          expect(next.notices).not.toBe(notices);
          expect(next.notices).toEqual(notices);
          for (const value of [next.notices, next.usage, next.info, next.usage?.cost, next.info?._meta]) expect(Object.isFrozen(value)).toBe(true);
        }
      }
    });

    it("sessionStateToJSON of a state the caller built saves it as the reducer takes it on: its timeline completed", () => {
      const spread: v2u.SessionState = { ...v2u.emptySessionState(), agentMessages: new Map([["m1", msg]]) };
      const back = restored(spread);
      expect(back.ok && back.value.timeline).toEqual([{ kind: "agentMessages", id: "m1" }]);
    });
  });

  it("v2/unstable: a state's entity map hands out its values only published (frozen), whatever method a caller reaches", () => {
    // Stored entities are unfrozen until first read, their chunk lists views on a store later
    // states share: a method that showed them would let a caller change every such state.
    for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
      let state = v2u.emptySessionState();
      for (const text of ["a", "b"]) state = reduce(state, { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text } });
      const map = state.agentMessages as unknown as Record<string | symbol, unknown>;
      const methods = new Set<string | symbol>();
      for (let o: object | null = map; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) Reflect.ownKeys(o).forEach((k) => methods.add(k));
      expect([...methods].map(String).sort()).toEqual(
        ["Symbol(Symbol.iterator)", "constructor", "entries", "forEach", "get", "has", "keys", "size", "values", "with", "withHeld", "without"].sort(),
      );
      const fresh = reduce(state, { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "c" } });
      const values = [...fresh.agentMessages.values(), ...[...fresh.agentMessages].map(([, v]) => v), fresh.agentMessages.get("m1")];
      fresh.agentMessages.forEach((v) => values.push(v));
      for (const v of values) {
        expect(Object.isFrozen(v)).toBe(true);
        const content = v?.content ?? [];
        expect(Array.isArray(v?.content) && Object.isFrozen(content)).toBe(true);
        expect(content.map((c) => (c.type === "text" ? c.text : ""))).toEqual(["a", "b", "c"]);
      }
    }
  });

  it("v2/unstable: a null entity in a hand-made Map is met like a first sight by a chunk and an upsert, never a throw", () => {
    const chunk = { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } } as const;
    const update = { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" } as const;
    const held = { ...v2u.emptySessionState(), agentMessages: new Map([["m1", null]]), toolCalls: new Map([["t1", null]]) } as unknown as v2u.SessionState;
    const fresh = v2u.emptySessionState();
    for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
      same(reduce(held, structuredClone(chunk)).agentMessages, reduce(fresh, structuredClone(chunk)).agentMessages);
      // Adopted first (an update to a map slot adopts every map), then the fast paths meet the null entities.
      const adopted = reduce(held, { sessionUpdate: "agent_message", messageId: "m2" });
      same(reduce(adopted, structuredClone(chunk)).agentMessages, reduce(fresh, structuredClone(chunk)).agentMessages);
      same(reduce(adopted, structuredClone(update)).toolCalls, reduce(fresh, structuredClone(update)).toolCalls);
    }
  });

  it("v2/unstable: an entity held as undefined in a hand-made Map is listed once in the timeline after an upsert and a chunk", () => {
    const held = { ...v2u.emptySessionState(), agentMessages: new Map([["m1", undefined]]), toolCalls: new Map([["t1", undefined]]) } as unknown as v2u.SessionState;
    for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
      // Adopted first, so that both updates below take the fast paths (which join the timeline when the map grew).
      let state = reduce(held, { sessionUpdate: "agent_message", messageId: "m2" });
      state = reduce(state, { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" });
      state = reduce(state, { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } });
      expect(state.timeline).toEqual([
        { kind: "toolCalls", id: "t1" },
        { kind: "agentMessages", id: "m1" },
        { kind: "agentMessages", id: "m2" },
      ]);
      expect(state.toolCalls.get("t1")?.title).toBe("Read");
    }
  });

  it("v2/unstable: the reducer's own maps with a timeline the caller replaced or copied: the timeline is completed, on every path", () => {
    const built = [
      { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" },
      { sessionUpdate: "agent_thought_chunk", messageId: "a1", content: { type: "text", text: "hm" } },
    ] as const;
    const own = built.reduce<v2u.SessionState>((s, u) => v2u.reduceSession(s, structuredClone(u)), v2u.emptySessionState());
    const full = [
      { kind: "toolCalls", id: "t1" },
      { kind: "agentThoughts", id: "a1" },
    ];
    // One update per fast path (upsert of a known and a new entity, chunk into a stored one, chunk creating its entity) and one general route.
    const nextUpdates = [
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" },
      { sessionUpdate: "tool_call_update", toolCallId: "t2" },
      { sessionUpdate: "agent_thought_chunk", messageId: "a1", content: { type: "text", text: "!" } },
      { sessionUpdate: "agent_thought_chunk", messageId: "a2", content: { type: "text", text: "new" } },
      { sessionUpdate: "usage_update", used: 1, size: 2 },
    ] as const;
    for (const reduce of [v2u.reduceSession, v2u.reduceSessionOwned]) {
      for (const timeline of [[], Object.freeze([own.timeline[1]!]), Object.freeze([...own.timeline]), structuredClone(own.timeline)]) {
        for (const update of nextUpdates) {
          const next = reduce({ ...own, timeline }, structuredClone(update) as v2u.SessionUpdate);
          const joined =
            update.sessionUpdate === "tool_call_update" && update.toolCallId === "t2"
              ? [{ kind: "toolCalls", id: "t2" }]
              : update.sessionUpdate === "agent_thought_chunk" && update.messageId === "a2"
                ? [{ kind: "agentThoughts", id: "a2" }]
                : [];
          const expected = timeline.length === 1 ? [full[1], full[0], ...joined] : [...full, ...joined];
          expect(next.timeline).toEqual(expected);
        }
      }
    }
  });

  it("v1: plain Maps adopted the same way", () => {
    const state: v1.SessionState = { ...v1.emptySessionState(), toolCalls: new Map([["t1", { toolCallId: "t1", title: "Run" }]]) };
    const next = v1.reduceSession(state, { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
    expect(next.toolCalls.get("t1")).toEqual({ toolCallId: "t1", title: "Run", status: "completed" });
    expect(next.timeline).toEqual([{ kind: "toolCalls", id: "t1" }]);
  });
});

describe("sessionStateToJSON / sessionStateFromJSON", () => {
  for (const { surface } of SURFACES) {
    const seeds = seedUpdates(surface);
    const stream = fc.array(fc.constantFrom(...seeds), { maxLength: 30 });

    it(`${surface}: a saved state (through JSON text) restores to the same state, with the same future`, () => {
      fc.assert(
        fc.property(stream, stream, (past, future) => {
          const state = fold(surface, past);
          const restored = throughText(surface, state);
          if (!restored.ok) throw new Error(JSON.stringify(restored.issues));
          same(restored.value, state);
          same(fold(surface, future, restored.value), fold(surface, future, state));
        }),
        { numRuns: 100 },
      );
    });

    it(`${surface}: reduceSessionOwned builds the same states as reduceSession`, () => {
      fc.assert(
        fc.property(stream, (updates) => {
          const copies = JSON.parse(JSON.stringify(updates)) as unknown[];
          const owned = copies.reduce<object>((s, u) => api(surface).reduceSessionOwned(s, u), api(surface).emptySessionState());
          same(owned, fold(surface, updates));
        }),
        { numRuns: 50 },
      );
    });

    it(`${surface}: FromJSON never throws, whatever it is given`, () => {
      const saved = api(surface).sessionStateToJSON(fold(surface, seeds.slice(0, 40))) as Json;
      const slotValue = fc.record({ slot: fc.constantFrom(...Object.keys(saved)), value: fc.anything() });
      fc.assert(
        fc.property(fc.anything(), slotValue, (junk, { slot, value }) => {
          expect(() => api(surface).sessionStateFromJSON(junk)).not.toThrow();
          expect(() => api(surface).sessionStateFromJSON({ ...saved, [slot]: value })).not.toThrow();
        }),
        { numRuns: 200 },
      );
    });
  }

  describe("v2/unstable: what FromJSON refuses, with JSON pointers", () => {
    const state = fold("v2/unstable", [
      { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read" },
      { sessionUpdate: "agent_message_chunk", messageId: "m/1", content: { type: "text", text: "hi" } },
      { sessionUpdate: "plan_update", plan: { type: "markdown", planId: "p1", content: "# P" } },
      { sessionUpdate: "notice", severity: "info", title: "n" },
      { sessionUpdate: "_acme/x", pct: 5 },
    ]);
    const saved = () => JSON.parse(JSON.stringify(api("v2/unstable").sessionStateToJSON(state))) as Json & Record<string, any>;
    const issuesOf = (json: unknown) => {
      const result = api("v2/unstable").sessionStateFromJSON(json);
      if (result.ok) throw new Error("accepted");
      return result.issues.map((i) => i.path);
    };

    it("the saved form: maps as [id, entity] pairs, the timeline as { kind, id }", () => {
      const json = saved();
      expect(json["toolCalls"]).toEqual([["t1", { toolCallId: "t1", title: "Read", kind: "other", status: "pending", content: [], locations: [] }]]);
      expect(json["timeline"]).toEqual([
        { kind: "toolCalls", id: "t1" },
        { kind: "agentMessages", id: "m/1" },
        { kind: "plans", id: "p1" },
      ]);
      expect(api("v2/unstable").sessionStateFromJSON(json).ok).toBe(true);
    });

    it("not an object; an unknown slot; a missing one", () => {
      expect(issuesOf([])).toEqual([""]);
      const json = saved();
      json["extra"] = 1;
      delete json["notices"];
      expect(issuesOf(json)).toEqual(["/extra", "/notices"]);
    });

    it("restores what the reducer stored from parse's output, also an array parse keeps below minItems (a select with no options)", () => {
      const wire = {
        sessionUpdate: "config_option_update",
        configOptions: [
          { type: "select", configId: "model", name: "Model", currentValue: "x", options: [] },
          { type: "select", configId: "m2", name: "M2", currentValue: "x", options: [{ groupId: "g", name: "G", options: 7 }] },
        ],
      };
      for (const surface of ["v2", "v2/unstable"] as const) {
        const parsed = parserOf(surface, "SessionUpdate")(wire);
        if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
        const state = api(surface).reduceSession(api(surface).emptySessionState(), parsed.value);
        const back = throughText(surface, state);
        expect(back.ok).toBe(true);
        expect(back.ok && JSON.stringify(api(surface).sessionStateToJSON(back.value))).toBe(JSON.stringify(api(surface).sessionStateToJSON(state)));
        // The waiver is the restore's own: validate still refuses the short array.
        expect((ENTRIES[surface] as unknown as { validate: Record<string, (v: unknown) => { ok: boolean }> }).validate["SessionUpdate"]!(parsed.value).ok).toBe(false);
      }
    });

    it("a custom item of a known kind (S27: only unknown kinds are kept raw), located at its tag", () => {
      const json = saved();
      json["custom"].push({ sessionUpdate: "notice", severity: "info", title: "n" }, { sessionUpdate: "_acme/y" });
      expect(issuesOf(json)).toEqual(["/custom/1/sessionUpdate"]);
    });

    it("an entity that is not valid, located inside its pair", () => {
      const json = saved();
      json["toolCalls"][0][1].title = 5;
      json["agentMessages"][0][1].content[0].type = 7;
      expect(issuesOf(json)).toEqual(["/toolCalls/0/1/title", "/agentMessages/0/1/content/0/type"]);
    });

    it("a map id that is not the entity's id; a duplicate id; a pair that is not one", () => {
      const json = saved();
      json["toolCalls"][0][0] = "t2";
      json["plans"].push(json["plans"][0], ["p2"]);
      expect(issuesOf(json)).toEqual(["/toolCalls/0/1/toolCallId", "/plans/1/0", "/plans/2", "/timeline/0", "/timeline"]);
    });

    it("a singleton and list items that are not valid; a plan's issue under its own path", () => {
      const json = saved();
      json["state"] = { state: 5 };
      json["notices"][0].severity = 1;
      json["plans"][0][1].content = 3;
      expect(issuesOf(json)).toEqual(["/plans/0/1/content", "/notices/0/severity", "/state/state"]);
    });

    it("a timeline that misses an entity, lists one twice, or names none", () => {
      const json = saved();
      json["timeline"] = [json["timeline"][0], json["timeline"][0], { kind: "plans", id: "zz" }, { kind: "nope", id: "t1" }];
      expect(issuesOf(json)).toEqual(["/timeline/1", "/timeline/2", "/timeline/3", "/timeline", "/timeline"]);
    });
  });
});
