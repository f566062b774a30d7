/**
 * Applies patches and reduces a short v2/unstable session: a tool call that
 * starts, streams content and completes, interleaved with a streamed agent
 * message (S1, S4, S9-S11).
 */
import { apply, emptySessionState, parse, reduceSession, type SessionState, type SessionUpdate } from "acp-bindings/v2/unstable";
import { expectEqual, report } from "./check.js";

const stream: readonly unknown[] = [
  { sessionUpdate: "tool_call_update", toolCallId: "call-1", title: "Read README.md", kind: "read", status: "in_progress" },
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Reading" } },
  { sessionUpdate: "tool_call_content_chunk", toolCallId: "call-1", content: { type: "content", content: { type: "text", text: "# acp" } } },
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: " the file." } },
  { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "completed", title: null },
];

let state: SessionState = emptySessionState();
for (const wire of stream) {
  const update = parse.SessionUpdate(wire);
  if (!update.ok) throw new Error(JSON.stringify(update.issues));
  const value: SessionUpdate = update.value;
  state = reduceSession(state, value);
}

expectEqual(
  state.toolCalls.get("call-1"),
  { toolCallId: "call-1", kind: "read", status: "completed", content: [{ type: "content", content: { type: "text", text: "# acp" } }], locations: [] },
  "tool call after the session",
);
expectEqual(state.agentMessages.get("m1")?.content?.length, 2, "chunks of message m1");
report(`v2/unstable reduceSession: ${stream.length} updates, ${state.toolCalls.size} tool call completed, message m1 has 2 chunks`);

const created = apply.ToolCallUpdate(undefined, { toolCallId: "call-2", title: "Run tests" });
const cleared = apply.ToolCallUpdate(created, { toolCallId: "call-2", title: null, status: "failed" });
expectEqual(cleared, { toolCallId: "call-2", kind: "other", status: "failed", content: [], locations: [] }, "apply.ToolCallUpdate");
report("v2/unstable apply: defaults on first sight, null clears the title");
