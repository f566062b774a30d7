/**
 * Parses a `session/update` notification with two surfaces of acp-bindings,
 * v1 and v2/unstable, as a client reading an agent's JSON-RPC stream does.
 */
import * as v1 from "acp-bindings/v1";
import * as v2 from "acp-bindings/v2/unstable";
import * as v2parse from "acp-bindings/v2/unstable/parse";
import { expectEqual, report } from "./check.js";

const v1Line = JSON.stringify({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } } },
});

// A malformed `_meta` on a chunk: strict validation rejects it, tolerant parsing drops it (S23).
const v2Line = JSON.stringify({
  jsonrpc: "2.0",
  method: "session/update",
  params: {
    sessionId: "s1",
    update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Hello" }, _meta: "not an object" },
  },
});

/** The text of a v1 agent message chunk; narrowing on both tags must type-check. */
function v1Text(update: v1.SessionUpdate): string | undefined {
  if (update.sessionUpdate !== "agent_message_chunk") return undefined;
  return update.content.type === "text" ? update.content.text : undefined;
}

/** The message id and text of a v2 agent message chunk. */
function v2Chunk(update: v2.SessionUpdate): [v2.MessageId, string] | undefined {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return update.content.type === "text" ? [update.messageId, update.content.text] : undefined;
    default:
      return undefined;
  }
}

const first = v1.parse.SessionNotification((JSON.parse(v1Line) as { params: unknown }).params);
if (!first.ok) throw new Error(`v1: ${JSON.stringify(first.issues)}`);
expectEqual(v1Text(first.value.update), "Hello", "v1 chunk text");
report(`v1 parse: ${first.value.update.sessionUpdate} "${v1Text(first.value.update)}"`);

const params: unknown = (JSON.parse(v2Line) as { params: unknown }).params;
const strict: v2.Result<v2.UpdateSessionNotification> = v2.validate.UpdateSessionNotification(params);
expectEqual(strict.ok ? [] : strict.issues.map((i) => i.path), ["/update/_meta"], "v2 validate issues");
// The namespace's own entry point (for esbuild's tree shaking) holds the same functions.
expectEqual(v2parse.UpdateSessionNotification === v2.parse.UpdateSessionNotification, true, "v2/unstable/parse is v2/unstable's parse");
const second = v2parse.UpdateSessionNotification(params);
if (!second.ok) throw new Error(`v2: ${JSON.stringify(second.issues)}`);
expectEqual(v2Chunk(second.value.update), ["m1", "Hello"], "v2 chunk");
expectEqual("_meta" in second.value.update, false, "v2 malformed _meta dropped");
report(`v2/unstable parse: ${second.value.update.sessionUpdate} ${JSON.stringify(v2Chunk(second.value.update))}, malformed _meta dropped`);
