/// <reference lib="dom" />
/**
 * An ACP client (protocol v2) in a web page, on acp-bindings' browser-safe
 * network transports. Bundle it for the browser next to
 * examples/browser-client.html, serve both, and open the page:
 *
 *   npx esbuild examples/browser-client.ts --bundle --platform=browser --format=esm --outfile=<dir>/browser-client.js
 *   cp examples/browser-client.html <dir>/
 *
 * The page's query parameters:
 *
 *   ?agent=ws://host:port/acp   the agent's endpoint (default: /acp on the page's own origin)
 *   ?transport=http             Streamable HTTP (POSTs and server-sent events) instead of a WebSocket
 *
 * An agent on another origin must list the page's origin in its server's
 * `allowedOrigins` (`createAcpServer`); it refuses any other page (403).
 *
 * The page initializes, opens a session, sends one prompt, allows the
 * permission the agent asks for, and renders the session's transcript from
 * its live state (`createSessionStore`) as updates stream in. When the turn
 * ends (an idle `state_update` with a stop reason) it closes the connection
 * and sets `<body data-state="done">`; a failure shows its error and sets
 * `data-state="failed"`.
 */
import { connectClient, createSessionStore, httpTransport, PROTOCOL_VERSION, type SessionState, webSocketTransport } from "acp-bindings/v2";

const PROMPT = "hello from the browser";
const query = new URLSearchParams(location.search);
const overHttp = query.get("transport") === "http";

// The agent's endpoint, with the scheme of the chosen transport (http:/ws:, https:/wss:).
const endpoint = new URL(query.get("agent") ?? "/acp", location.href);
const secure = endpoint.protocol === "https:" || endpoint.protocol === "wss:";
endpoint.protocol = overHttp ? (secure ? "https:" : "http:") : secure ? "wss:" : "ws:";

const status = element("status");
const transcript = element("transcript");

// The connection: the store folds every session/update into a state per
// session; the permission handler allows what the agent asks (a real client
// would ask its user); `onError` keeps the last problem reported (why the
// transport ended, say) for the error shown on failure.
const sessions = createSessionStore();
let lastProblem = "";
const agent = connectClient(
  overHttp ? httpTransport(endpoint.href) : webSocketTransport(endpoint.href),
  {
    "session/update": sessions.update,
    "session/request_permission": (params) => {
      const allow = params.options.find((option) => option.kind === "allow_once");
      show(`Permission asked: “${params.title}” → ${allow?.name ?? "cancelled"}`);
      return { outcome: allow === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: allow.optionId } };
    },
  },
  { onError: (error) => void (lastProblem = error.message) },
);
// A connection that ends mid-turn (the agent went away) is a failure too.
void agent.closed.then(() => {
  if (document.body.dataset.state === "running") fail(new Error("the connection closed before the turn ended"));
});

try {
  document.body.dataset.state = "running";
  show(`Connecting to ${endpoint.href} over ${overHttp ? "HTTP" : "WebSocket"}…`);
  const { info } = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "browser-client", version: "1.0.0" } });
  const { sessionId } = await agent.request("session/new", { cwd: "/" });
  show(`Connected to ${info.name} ${info.version} over ${overHttp ? "HTTP" : "WebSocket"}; session ${sessionId}.`);
  // Each update of our session re-renders its transcript from the new state.
  sessions.subscribe((id, state) => {
    if (id === sessionId) render(state);
  });
  await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: PROMPT }] });
} catch (error) {
  fail(error);
}

/**
 * Renders the transcript: the session's entities in order of first appearance (the store records
 * the prompt we sent as a user message, S36); marks the page done when the turn ended.
 */
function render(state: SessionState): void {
  const items: HTMLElement[] = [];
  for (const { kind, id } of state.timeline) {
    if (kind === "userMessages") items.push(item("user", textOf(state.userMessages.get(id)?.content)));
    if (kind === "agentThoughts") items.push(item("thought", textOf(state.agentThoughts.get(id)?.content)));
    if (kind === "agentMessages") items.push(item("agent", textOf(state.agentMessages.get(id)?.content)));
    const call = kind === "toolCalls" ? state.toolCalls.get(id) : undefined;
    if (call !== undefined) items.push(item("tool", `${call.title ?? call.toolCallId} — ${call.status ?? "pending"}`, call.status ?? "pending"));
    const plan = kind === "plans" ? state.plans.get(id) : undefined;
    if (plan?.type === "items") items.push(item("plan", plan.entries.map((entry) => item("", `${entry.content} — ${entry.status}`, entry.status))));
  }
  transcript.replaceChildren(...items);
  if (state.state.state === "idle" && "stopReason" in state.state && typeof state.state.stopReason === "string") {
    show(`Turn ended: ${state.state.stopReason}.`);
    document.body.dataset.state = "done";
    agent.close();
  }
}

/** A list item of class `kind` holding text (given to `textContent`, never parsed as markup: it comes from the agent) or nested items; `status` becomes `data-status`. */
function item(kind: string, content: string | HTMLElement[], status?: string): HTMLElement {
  const li = document.createElement("li");
  if (kind !== "") li.className = kind;
  if (status !== undefined) li.dataset.status = status;
  if (typeof content === "string") {
    li.textContent = content;
  } else {
    const nested = document.createElement("ul");
    nested.append(...content);
    li.append(nested);
  }
  return li;
}

/** The text of a message's content blocks (other blocks are left out). */
function textOf(content: readonly { type: string; text?: unknown }[] | null | undefined): string {
  return (content ?? []).map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

function show(message: string): void {
  status.textContent = message;
}

function fail(error: unknown): void {
  status.className = "failed";
  show(`Failed: ${error instanceof Error ? error.message : String(error)}${lastProblem === "" ? "" : ` (${lastProblem})`}`);
  document.body.dataset.state = "failed";
}

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
}
