/**
 * subagentStatus (S16, S35): our documented, non-normative projection of a
 * child's mirrored `state`, on the surfaces that have subagents. A null or
 * absent state is never read as idle; `unknown` is unconfirmed; a custom
 * state is busy; idle splits into finished and failed by its stop reason.
 */
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { ENTRIES } from "./support/surfaces.js";

type Status = { status: string; [key: string]: unknown };
type Project = (entry: { state?: unknown }) => Status;

const SURFACES_WITH_SUBAGENTS: readonly Surface[] = ["v1/unstable", "v2/unstable"];

const CASES: readonly [string, { state?: unknown }, Status][] = [
  ["absent state: unconfirmed (never idle)", {}, { status: "unconfirmed" }],
  ["null state: unconfirmed (never idle)", { state: null }, { status: "unconfirmed" }],
  ["unknown: unconfirmed", { state: { state: "unknown" } }, { status: "unconfirmed" }],
  ["running", { state: { state: "running", background: [] } }, { status: "running" }],
  ["a custom state is busy: running", { state: { state: "_compiling", progress: 0.5 } }, { status: "running" }],
  ["requires_action: suspended, no interrupt ids in ACP 2.4.0", { state: { state: "requires_action" } }, { status: "suspended", interruptIds: [] }],
  ["idle without a stop reason: finished with no result", { state: { state: "idle" } }, { status: "finished" }],
  ["idle end_turn: finished with the stop reason", { state: { state: "idle", stopReason: "end_turn" } }, { status: "finished", result: "end_turn" }],
  ["idle cancelled: finished with the stop reason", { state: { state: "idle", stopReason: "cancelled" } }, { status: "finished", result: "cancelled" }],
  [
    "idle error: failed with the error's message and code",
    { state: { state: "idle", stopReason: "error", error: { code: -32603, message: "Internal error" } } },
    { status: "failed", message: "Internal error", code: -32603 },
  ],
  ["idle error without details: failed", { state: { state: "idle", stopReason: "error", error: null } }, { status: "failed" }],
];

for (const surface of SURFACES_WITH_SUBAGENTS) {
  describe(`S16 subagentStatus on ${surface}`, () => {
    const { subagentStatus, emptySessionState, reduceSession } = ENTRIES[surface] as unknown as {
      subagentStatus: Project;
      emptySessionState(): { subagents: ReadonlyMap<string, { state?: unknown }> };
      reduceSession<S>(state: S, update: unknown): S;
    };
    for (const [name, entry, expected] of CASES) {
      it(`S16 ${surface}: ${name}`, () => expect(subagentStatus(entry)).toEqual(expected));
    }

    it(`S35 ${surface}: a state cleared by null projects as unconfirmed, not idle`, () => {
      let state = emptySessionState();
      state = reduceSession(state, { sessionUpdate: "subagent_update", sessionId: "c1", state: { state: "idle", stopReason: "end_turn" } });
      expect(subagentStatus(state.subagents.get("c1")!)).toEqual({ status: "finished", result: "end_turn" });
      state = reduceSession(state, { sessionUpdate: "subagent_update", sessionId: "c1", state: null });
      expect(subagentStatus(state.subagents.get("c1")!)).toEqual({ status: "unconfirmed" });
    });
  });
}

describe("S16 the projection is ours, not a schema type", () => {
  it("S16 only surfaces with subagents export subagentStatus; no SubagentStatus value or type name is emitted", () => {
    for (const [surface, entry] of Object.entries(ENTRIES)) {
      expect("subagentStatus" in entry, surface).toBe(SURFACES_WITH_SUBAGENTS.includes(surface as Surface));
      expect("SubagentStatus" in entry, surface).toBe(false);
    }
  });
});
