/**
 * An example proxy of a chain (copy it): it adds a line to every prompt on its
 * way to the agent, logs every tool call on its way to the client (to stderr:
 * stdout is the wire), and forwards everything else unchanged.
 *
 *   npx tsx examples/note-proxy.ts "Answer briefly."     # a proxy on stdio, for a conductor to spawn
 *
 * `noteProxy(line, log)` gives the hooks, for any transport (test/proxy-chain.test.ts
 * runs two of them in memory).
 */
import { pathToFileURL } from "node:url";
import { forwardingProxy, ndJsonStream, type ProxyHooks } from "acp-bindings/v2/unstable";

/** The hooks of the proxy: `line` is appended to each `session/prompt`, `log` told of each tool call. */
export function noteProxy(line: string, log: (entry: string) => void): ProxyHooks {
  return {
    toAgent: (method, params) => (method === "session/prompt" && isRecord(params) && Array.isArray(params.prompt) ? withLine(params, line) : undefined),
    toClient: (method, params) => {
      const toolCall = method === "session/update" ? toolCallOf(params) : undefined;
      if (toolCall !== undefined) log(`tool call ${toolCall.toolCallId}: ${toolCall.status ?? toolCall.title ?? "updated"}`);
      return undefined; // forwarded unchanged
    },
  };
}

/** The prompt request with one more text block; its other fields (`_meta` too) kept. */
function withLine(params: Record<string, unknown>, line: string): Record<string, unknown> {
  return { ...params, prompt: [...(params.prompt as unknown[]), { type: "text", text: line }] };
}

/** The tool call a `session/update` carries, if it is one. */
function toolCallOf(params: unknown): { toolCallId: string; status?: string; title?: string } | undefined {
  const update = isRecord(params) && isRecord(params.update) ? params.update : undefined;
  if (update?.sessionUpdate !== "tool_call_update" || typeof update.toolCallId !== "string") return undefined;
  return {
    toolCallId: update.toolCallId,
    ...(typeof update.status === "string" && { status: update.status }),
    ...(typeof update.title === "string" && { title: update.title }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const line = process.argv[2] ?? "(via note-proxy)";
  const proxy = forwardingProxy(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
    ...noteProxy(line, (entry) => process.stderr.write(`note-proxy: ${entry}\n`)),
    onError: (error) => process.stderr.write(`note-proxy: ${error.message}\n`),
  });
  await proxy.closed;
  process.exit(0);
}
