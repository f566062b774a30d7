/**
 * The agents and the server harness of the HTTP/WebSocket server tests: a
 * v2 agent streaming the turn of examples/v2-agent.ts, a v1 agent streaming the
 * turn of test/interop/v1-turn.ts (both with one session table shared by all
 * their connections, so a session outlives its connection), and a
 * `node:http` server on 127.0.0.1 serving an `AcpServer` through
 * `nodeHttpHandler` and `nodeWebSocketUpgrade`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import * as v1 from "../../generated/src/v1/index.js";
import { type AcpServer, type AcpServerOptions, connectAgent, createAcpServer, nodeHttpHandler, nodeWebSocketUpgrade, PROTOCOL_VERSION, type SessionUpdate } from "../../generated/src/v2/index.js";
import { afterPermission, BEFORE_PERMISSION, pause, permissionRequest } from "../interop/v1-turn.js";

/** What the agents record: the sessions they made, the permission requests that failed, the turns' ends. */
export interface AgentLog {
  readonly sessions: Set<string>;
  readonly permissionFailures: string[];
}

/** A v2 agent per connection over shared sessions: initialize, session/new, session/resume, session/prompt (the example turn), session/cancel. */
export function v2Agent(log: AgentLog = { sessions: new Set(), permissionFailures: [] }): AcpServerOptions["connect"] {
  const turns = new Map<string, AbortController>();
  let messages = 0;
  return (transport) => {
    const client = connectAgent(transport, {
      initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "http-agent", version: "1.0.0" } }),
      "session/new": () => {
        const sessionId = `session-${log.sessions.size + 1}`;
        log.sessions.add(sessionId);
        return { sessionId };
      },
      "session/resume": ({ sessionId }) => {
        if (!log.sessions.has(sessionId)) throw new Error(`no session ${sessionId}`);
        return {};
      },
      "session/prompt": (params) => {
        const turn = new AbortController();
        turns.get(params.sessionId)?.abort();
        turns.set(params.sessionId, turn);
        void runTurn(params.sessionId, params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" "), turn.signal);
        return { messageId: `user-${++messages}` };
      },
      "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
    });
    const say = (sessionId: string, update: SessionUpdate): Promise<void> => client.notify("session/update", { sessionId, update });
    async function runTurn(sessionId: string, text: string, signal: AbortSignal): Promise<void> {
      const step = async (update: SessionUpdate): Promise<void> => (await pause(signal), await say(sessionId, update));
      try {
        await say(sessionId, { sessionUpdate: "state_update", state: "running" });
        await step({ sessionUpdate: "agent_thought_chunk", messageId: "thought", content: { type: "text", text: "Planning the answer." } });
        await step({ sessionUpdate: "plan_update", plan: { type: "items", planId: "plan", entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] } });
        const toolCall = { toolCallId: "tool-1", title: "Read the prompt", kind: "read", status: "pending" } as const;
        await step({ sessionUpdate: "tool_call_update", ...toolCall });
        const options = [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ] as const;
        const permission = await client
          .request("session/request_permission", { sessionId, title: "Read the prompt?", subject: { type: "tool_call", toolCall }, options: [...options] }, { signal })
          .catch((error: unknown) => {
            if (!signal.aborted) log.permissionFailures.push(error instanceof Error ? error.message : String(error));
            throw error;
          });
        const allowed = permission.outcome.outcome === "selected" && "optionId" in permission.outcome && permission.outcome.optionId === "allow";
        await step({ sessionUpdate: "tool_call_update", toolCallId: "tool-1", status: allowed ? "completed" : "failed" });
        for (const word of `You said: ${text}`.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", messageId: "reply", content: { type: "text", text: word } });
        await say(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      } catch {
        await say(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: signal.aborted ? "cancelled" : "error" }).catch(() => {});
      }
    }
    return client;
  };
}

/** A v1 agent per connection: the turn of v1-turn.ts, the prompt response carrying the stop reason. */
export function v1Agent(): AcpServerOptions["connect"] {
  const turns = new Map<string, AbortController>();
  return (transport) => {
    const client = v1.connectAgent(transport, {
      initialize: () => ({ protocolVersion: v1.PROTOCOL_VERSION, agentInfo: { name: "http-v1-agent", version: "1.0.0" } }),
      "session/new": () => ({ sessionId: "v1-session" }),
      "session/prompt": async ({ sessionId, prompt }) => {
        const turn = new AbortController();
        turns.set(sessionId, turn);
        const say = async (update: v1.SessionUpdate): Promise<void> => (await pause(turn.signal), await client.notify("session/update", { sessionId, update }));
        try {
          for (const update of BEFORE_PERMISSION) await say(update);
          const answer = await client.request("session/request_permission", permissionRequest(sessionId), { signal: turn.signal });
          const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
          const text = prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
          for (const update of afterPermission(allowed, text)) await say(update);
          return { stopReason: "end_turn" };
        } catch (error) {
          if (turn.signal.aborted) return { stopReason: "cancelled" };
          throw error;
        }
      },
      "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
    });
    return client;
  };
}

/** An ACP server behind a `node:http` server on 127.0.0.1 (a free port), with WebSocket upgrades. */
export interface Served {
  readonly acp: AcpServer;
  readonly http: Server;
  readonly url: string;
  readonly wsUrl: string;
  /** Closes the ACP server, then the HTTP server. */
  stop(): Promise<void>;
}

/** Serves `options` on 127.0.0.1. */
export async function serve(options: AcpServerOptions): Promise<Served> {
  const acp = createAcpServer(options);
  const http = createServer(nodeHttpHandler(acp));
  const sockets = new WebSocketServer({ noServer: true });
  http.on("upgrade", nodeWebSocketUpgrade(acp, sockets));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    acp,
    http,
    url: `http://127.0.0.1:${port}/acp`,
    wsUrl: `ws://127.0.0.1:${port}/acp`,
    async stop() {
      await acp.close();
      sockets.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
