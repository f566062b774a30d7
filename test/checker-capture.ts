/**
 * A real ACP session between the official SDK's agent and client
 * (`@agentclientprotocol/sdk` 2.4.0, ACP v1 and v2), driven over in-memory byte streams;
 * every newline-delimited message is captured in the order it was written.
 * The traffic is produced here, by the test, not copied from anywhere.
 */
import * as acp from "@agentclientprotocol/sdk";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2";

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

/**
 * The same over ACP v2 (`@agentclientprotocol/sdk/experimental/v2`): `session/prompt` answers
 * `{ messageId }` once the prompt is taken, and the turn ends with an idle `state_update`.
 */
export async function captureSdkSessionV2(): Promise<string[]> {
  const lines: string[] = [];
  const toClient = tappedPipe(lines);
  const toAgent = tappedPipe(lines);
  const text = (t: string) => ({ type: "text" as const, text: t });
  const info = (name: string) => ({ name, version: "1.0.0" });
  const agent = acp2
    .agent({ name: "capture-agent" })
    .onRequest(acp2.methods.agent.initialize, () => ({ protocolVersion: acp2.PROTOCOL_VERSION, info: info("capture-agent") }))
    .onRequest(acp2.methods.agent.session.new, () => ({ sessionId: "sess-2" }))
    .onRequest(acp2.methods.agent.session.prompt, ({ params, client }) => {
      const sessionId = params.sessionId;
      const update = (u: acp2.SessionUpdate) => client.notify(acp2.methods.client.session.update, { sessionId, update: u });
      // The turn runs after the prompt is answered, as v2 prescribes.
      setTimeout(async () => {
        await update({ sessionUpdate: "state_update", state: "running" });
        await update({ sessionUpdate: "agent_thought_chunk", messageId: "m1", content: text("Reading the file first.") });
        await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", title: "Read main.rs", kind: "read", status: "pending" });
        await client.request(acp2.methods.client.session.requestPermission, {
          sessionId,
          title: "Read main.rs?",
          subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } },
          options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
        });
        await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "completed" });
        await update({ sessionUpdate: "agent_message_chunk", messageId: "m2", content: text("main.rs is empty.") });
        await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      });
      return { messageId: "u1" };
    });
  const connection = agent.connect(acp2.ndJsonStream(toClient.writable, toAgent.readable));
  let turnEnded: () => void = () => {};
  const idle = new Promise<void>((resolve) => (turnEnded = resolve));
  const client = acp2
    .client({ name: "capture-client" })
    .onRequest(acp2.methods.client.session.requestPermission, () => ({ outcome: { outcome: "selected" as const, optionId: "allow" } }))
    .onNotification(acp2.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") turnEnded();
    });
  await client.connectWith(acp2.ndJsonStream(toAgent.writable, toClient.readable), async (agentSide) => {
    await agentSide.request(acp2.methods.agent.initialize, { protocolVersion: acp2.PROTOCOL_VERSION, info: info("capture-client") });
    const { sessionId } = await agentSide.request(acp2.methods.agent.session.new, { cwd: "/work" });
    await agentSide.request(acp2.methods.agent.session.prompt, { sessionId, prompt: [text("What is in main.rs?")] });
    await idle;
  });
  connection.close();
  return lines;
}
