/**
 * Builds v2/unstable updates with the builders, checks them with the strict
 * validator, applies one and reduces a session made of built updates (S33).
 */
import { apply, build, emptySessionState, reduceSession, validate } from "acp-bindings/v2/unstable";
import { expectEqual, report } from "./check.js";

const started = build.SessionUpdateToolCallUpdate("call-1").title("Run tests").kind("execute").status("in_progress").build();
const finished = build.SessionUpdateToolCallUpdate("call-1").status("completed").title(null).build();
for (const update of [started, finished]) {
  const checked = validate.SessionUpdate(update);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
}
expectEqual(finished, { sessionUpdate: "tool_call_update", toolCallId: "call-1", title: null, status: "completed" }, "built update");

const state = reduceSession(reduceSession(emptySessionState(), started), finished);
expectEqual(
  state.toolCalls.get("call-1"),
  { toolCallId: "call-1", kind: "execute", status: "completed", content: [], locations: [] },
  "tool call built, applied and reduced",
);

const patched = apply.ToolCallUpdate(state.toolCalls.get("call-1"), build.ToolCallUpdate("call-1").rawOutput({ passed: 12 }).build());
expectEqual(patched.rawOutput, { passed: 12 }, "apply of a built patch");
report("v2/unstable build: built updates validate, apply and reduce");
