/**
 * The ACP v1 turn both v1 agents of the interop tests stream (ours in
 * v1-agent.ts, the SDK's in sdk-agent-v1.ts): a thought, a plan, a tool call
 * that needs permission, its update, and a reply. The prompt response then
 * ends the turn (v1 has no state updates).
 */
import type { RequestPermissionRequest, SessionUpdate } from "../../generated/src/v1/index.js";

/** The updates before the permission request. */
export const BEFORE_PERMISSION: readonly SessionUpdate[] = [
  { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Planning the answer." } },
  { sessionUpdate: "plan", entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] },
  { sessionUpdate: "tool_call", toolCallId: "tool-1", title: "Read the prompt", kind: "read", status: "pending" },
];

/** The permission request of a turn in `sessionId`. */
export function permissionRequest(sessionId: string): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: { toolCallId: "tool-1", title: "Read the prompt" },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  };
}

/** The updates after the permission was answered. */
export function afterPermission(allowed: boolean, text: string): SessionUpdate[] {
  const reply = allowed ? `You said: ${text}` : "I was not allowed to read the prompt.";
  return [
    { sessionUpdate: "tool_call_update", toolCallId: "tool-1", status: allowed ? "completed" : "failed" },
    { sessionUpdate: "plan", entries: [{ content: "Read the prompt", priority: "high", status: "completed" }] },
    ...reply.split(/(?<= )/).map((word): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } })),
  ];
}

/** A short wait between updates, so a turn can be cancelled; rejects once `signal` aborts. */
export function pause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("cancelled"));
    const timer = setTimeout(resolve, 5);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("cancelled"))), { once: true });
  });
}
