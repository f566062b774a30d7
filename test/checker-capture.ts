/**
 * A real ACP session between the official SDK's agent and client
 * (`@agentclientprotocol/sdk` 2.4.0, ACP v1), driven over in-memory byte streams;
 * every newline-delimited message is captured in the order it was written.
 * The traffic is produced here, by the test, not copied from anywhere.
 */
import * as acp from "@agentclientprotocol/sdk";

/** A byte pipe that records each complete line written through it into `lines`. */
function tappedPipe(lines: string[]): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let partial = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = parts.pop()!;
      lines.push(...parts.filter((line) => line.trim() !== ""));
      controller.enqueue(chunk);
    },
  });
}

/** Runs initialize, session/new and one prompt with a thought, a tool call, a permission request, a plan and a reply. */
export async function captureSdkSession(): Promise<string[]> {
  const lines: string[] = [];
  const toClient = tappedPipe(lines);
  const toAgent = tappedPipe(lines);
  const text = (t: string) => ({ type: "text" as const, text: t });
  const agent = acp
    .agent({ name: "capture-agent" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "sess-1" }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const sessionId = params.sessionId;
      const update = (u: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
      await update({ sessionUpdate: "agent_thought_chunk", content: text("Reading the file first.") });
      await update({ sessionUpdate: "plan", entries: [{ content: "Read main.rs", priority: "high", status: "in_progress" }, { content: "Answer", priority: "medium", status: "pending" }] });
      await update({ sessionUpdate: "tool_call", toolCallId: "call-1", title: "Read main.rs", kind: "read", status: "pending" });
      await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: "call-1" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      });
      await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "completed", content: [{ type: "content", content: text("fn main() {}") }] });
      await update({ sessionUpdate: "tool_call", toolCallId: "call-2", title: "Run tests", kind: "execute", status: "in_progress" });
      await update({ sessionUpdate: "agent_message_chunk", content: text("main.rs is empty.") });
      return { stopReason: "end_turn" as const };
    });
  const connection = agent.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const client = acp
    .client({ name: "capture-client" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "selected" as const, optionId: "allow" } }))
    .onNotification(acp.methods.client.session.update, () => {});
  await client.connectWith(acp.ndJsonStream(toAgent.writable, toClient.readable), async (agentSide) => {
    await agentSide.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agentSide.request(acp.methods.agent.session.new, { cwd: "/work", mcpServers: [] });
    await agentSide.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("What is in main.rs?")] });
  });
  connection.close();
  return lines;
}
