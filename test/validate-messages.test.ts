/**
 * Issue 13.2 (messages): a failure names what was expected and what was
 * received, for `validate` and `parse` alike, with the JSON pointer of the
 * value. Long strings are cut; objects and arrays are named, not printed.
 */
import { describe, expect, it } from "vitest";
import { ENTRIES, parserOf, validatorOf } from "./support/surfaces.js";

const CASES = [
  { type: "ToolCallUpdate", input: { toolCallId: 5 }, path: "/toolCallId", message: "expected a string, got number 5" },
  { type: "UpdateSessionNotification", input: { sessionId: "s", update: [] }, path: "/update", message: "expected an object, got an array" },
  { type: "ToolCallLocation", input: { path: "/a", line: -1 }, path: "/line", message: "expected an integer (uint32) in [1, 4294967295] or null, got number -1" },
  { type: "ContentBlock", input: { type: "text", text: null }, path: "/text", message: "expected a string, got null" },
  { type: "PromptRequest", input: { sessionId: true, prompt: [] }, path: "/sessionId", message: "expected a string, got boolean true" },
  { type: "PlanEntry", input: { content: "c", priority: "high", status: { x: 1 } }, path: "/status", message: "expected a string, got an object" },
  { type: "ToolCallUpdate", input: { toolCallId: "t", kind: "x".repeat(100) }, path: "/kind", message: `expected one of "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other", got string "${"x".repeat(40)}..."`, surfaces: ["v1"] },
] as const;

describe("issues name the expected and the received value", () => {
  for (const c of CASES) {
    const surfaces = "surfaces" in c ? c.surfaces : (["v2/unstable"] as const);
    for (const surface of surfaces) {
      it(`${surface} validate.${c.type} at ${c.path}`, () => {
        expect(validatorOf(surface, c.type)(c.input)).toEqual({ ok: false, issues: [{ path: c.path, message: c.message }] });
      });
    }
  }

  it("a union no alternative matches reports the alternative that got deepest into the value", () => {
    expect(validatorOf("v2/unstable", "AgentResponse")({ id: 1 }).issues).toEqual([{ path: "/result", message: "missing required property" }]);
    const response = { id: 1, result: { stopReason: 5 } };
    const parse = (ENTRIES["v1"].parse as unknown as Record<string, (m: string, v: unknown) => { issues?: unknown }>).AgentResponseFor!;
    expect(parse("session/prompt", response).issues).toEqual([{ path: "/result/stopReason", message: expect.stringMatching(/^expected one of .*, got number 5$/) }]);
    expect(validatorOf("v2/unstable", "RequestId")(1.5).issues).toEqual([{ path: "", message: "matches no alternative, got number 1.5" }]);
  });

  it("parse reports the same where the failure is not forgiven", () => {
    expect(parserOf("v2/unstable", "PromptRequest")({ sessionId: true, prompt: [] }).issues).toEqual([{ path: "/sessionId", message: "expected a string, got boolean true" }]);
  });
});
