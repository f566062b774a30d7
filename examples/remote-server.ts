/**
 * The example agent (examples/echo-agent.ts) served over the network: ACP
 * over HTTP with server-sent events, and over WebSocket, at `/acp`.
 *
 *   PORT=8080 npx tsx examples/remote-server.ts    # prints http://127.0.0.1:8080/acp
 *
 * `PORT` unset or 0 takes any free port; the first line printed is the base
 * URL. `SERVER_NAME=a` puts the name in the agent's `initialize` info (to
 * tell processes apart behind a load balancer). `SESSION_DIR=/shared/dir`
 * keeps every session's state in that directory (examples/session-files.ts),
 * so that any process sharing it can take over a session with
 * `session/resume` when the one running it is gone.
 */
import { createServer } from "node:http";
import { WebSocketServer } from "ws";
import { connectAgent, createAcpServer, nodeHttpHandler, nodeWebSocketUpgrade } from "acp-bindings/v2";
import { echoAgent } from "./echo-agent.js";
import { sessionFiles } from "./session-files.js";

const name = process.env.SERVER_NAME;
const sessions = process.env.SESSION_DIR ? sessionFiles(process.env.SESSION_DIR, name) : undefined;
const acp = createAcpServer({
  connect: (transport) => {
    const client = connectAgent(transport, echoAgent(() => client, { ...(name && { name: `example-agent (${name})` }), ...(sessions && { sessions }) }));
    return client;
  },
});

const serveAcp = nodeHttpHandler(acp);
const server = createServer((req, res) => (req.url?.split("?")[0] === "/acp" ? serveAcp(req, res) : res.writeHead(404).end()));
const acceptAcp = nodeWebSocketUpgrade(acp, new WebSocketServer({ noServer: true }));
server.on("upgrade", (req, socket, head) => (req.url?.split("?")[0] === "/acp" ? acceptAcp(req, socket, head) : socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")));

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  if (address !== null && typeof address === "object") console.log(`http://127.0.0.1:${address.port}/acp`);
});
// SIGTERM (also when repeated, as `npx` and `tsx` pass it on): end every connection, failing each client's pending requests, then exit.
process.on("SIGTERM", () => void acp.close().finally(() => process.exit(0)));
