/**
 * examples/browser-client.ts in a real browser (issue 35): headless Chromium
 * from Debian's `chromium` package (installed by the set-up when missing),
 * driven with `puppeteer-core`. The example is bundled with esbuild for the
 * browser (no `node:` import may be left in it) and served with its page from
 * a `node:http` server; the agent (examples/echo-agent.ts behind
 * createAcpServer, nodeHttpHandler and nodeWebSocketUpgrade) listens on
 * another port, so the page is cross-origin: CORS and the server's Origin
 * check run for real. The page runs a prompt turn over WebSocket and over
 * HTTP with server-sent events and renders the transcript, read back from the
 * DOM; a screenshot per transport goes to test/output/ (git-ignored). A page
 * served from an origin the agent does not allow is refused (403) and shows
 * the error.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { type AcpServer, type ClientPeer, connectAgent, createAcpServer, nodeHttpHandler, nodeWebSocketUpgrade } from "../generated/src/v2/index.js";
import { echoAgent } from "../examples/echo-agent.js";
import { ensureDebianPackage } from "./support/system-packages.js";

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const EXAMPLE = path("../examples/browser-client.ts");
const PAGE = path("../examples/browser-client.html");
const OUTPUT = path("./output");
/** Waits in the browser: generous, a busy machine must pass; no test asserts on time. */
const WAIT_MS = 90_000;

/** What the agent's server answered one request: an HTTP request (OPTIONS is a CORS preflight) or a WebSocket upgrade (101 when accepted). */
interface Answered {
  readonly via: "http" | "websocket";
  readonly method: string;
  readonly origin: string | null;
  readonly status: number;
}

/** A `node:http` server on 127.0.0.1 (a free port). */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server | undefined): Promise<void> {
  if (server === undefined || !server.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Serves the example's page at `/` and its bundle at `/browser-client.js`. */
function pageServer(html: string, bundle: string): Server {
  return createServer((req, res) => {
    const route = new URL(req.url ?? "/", "http://page").pathname;
    if (route === "/" || route === "/browser-client.html") return void res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    if (route === "/browser-client.js") return void res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(bundle);
    res.writeHead(404).end();
  });
}

/** `acp` as it is, recording the status of every answer it gives (the `node:http` adapters use only `handle` and `prepareWebSocket`). */
function recording(acp: AcpServer, log: Answered[]): AcpServer {
  return {
    async handle(request) {
      const response = await acp.handle(request);
      log.push({ via: "http", method: request.method, origin: request.headers.get("origin"), status: response.status });
      return response;
    },
    async prepareWebSocket(request) {
      const upgrade = await acp.prepareWebSocket(request);
      log.push({ via: "websocket", method: request.method, origin: request.headers.get("origin"), status: "accept" in upgrade ? 101 : upgrade.status });
      return upgrade;
    },
    acceptWebSocket: (socket, request) => acp.acceptWebSocket(socket, request),
    close: () => acp.close(),
    get connectionCount() {
      return acp.connectionCount;
    },
  };
}

/** One rendered transcript item: its class, text and `data-status`. */
interface Item {
  readonly kind: string;
  readonly text: string;
  readonly status?: string;
}

/** What the page shows once it is done or failed (waiting for either). */
interface Rendered {
  readonly state: string | undefined;
  readonly status: string;
  readonly items: Item[];
}

async function rendered(page: Page): Promise<Rendered> {
  await page.waitForFunction(() => document.body.dataset.state === "done" || document.body.dataset.state === "failed", { timeout: WAIT_MS });
  return page.evaluate(() => ({
    state: document.body.dataset.state,
    status: document.getElementById("status")?.textContent ?? "",
    items: [...document.querySelectorAll<HTMLElement>("#transcript > li")].map((li) => ({
      kind: li.className,
      text: li.textContent ?? "",
      ...(li.dataset.status === undefined ? {} : { status: li.dataset.status }),
    })),
  }));
}

describe("examples/browser-client.ts in headless Chromium", () => {
  let chromium: string;
  let bundle: string;
  let browser: Browser | undefined;
  let agentHttp: Server | undefined;
  let allowedPages: Server | undefined;
  let refusedPages: Server | undefined;
  let acp: AcpServer | undefined;
  let sockets: WebSocketServer | undefined;
  let agentUrl = "";
  let allowedOrigin = "";
  let refusedOrigin = "";
  const answered: Answered[] = [];
  /** The origins of the connections the agent's server handed to `connect`. */
  const connected: (string | null)[] = [];

  beforeAll(async () => {
    // Throws, failing every test with the reason, when Chromium cannot be had.
    chromium = ensureDebianPackage("chromium", "chromium");

    const built = await build({ entryPoints: [EXAMPLE], bundle: true, platform: "browser", format: "esm", target: "es2022", write: false, logLevel: "silent" });
    bundle = built.outputFiles[0]!.text;

    const html = readFileSync(PAGE, "utf8");
    allowedPages = pageServer(html, bundle);
    refusedPages = pageServer(html, bundle);
    allowedOrigin = await listen(allowedPages);
    refusedOrigin = await listen(refusedPages);

    // The agent: echoAgent's handlers on every connection, only the allowed page's origin served.
    acp = createAcpServer({
      allowedOrigins: [allowedOrigin],
      connect: (transport, info) => {
        connected.push(info.headers.get("origin"));
        const client: ClientPeer = connectAgent(transport, echoAgent(() => client));
        return client;
      },
    });
    const served = recording(acp, answered);
    agentHttp = createServer(nodeHttpHandler(served));
    sockets = new WebSocketServer({ noServer: true });
    agentHttp.on("upgrade", nodeWebSocketUpgrade(served, sockets));
    agentUrl = `${await listen(agentHttp)}/acp`;

    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    mkdirSync(OUTPUT, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await acp?.close();
    sockets?.close();
    await stop(agentHttp);
    await stop(allowedPages);
    await stop(refusedPages);
  }, 120_000);

  /** Opens the page from `origin` with the agent's endpoint and the transport in its query; returns the page and what it printed. */
  async function open(origin: string, transport: "websocket" | "http"): Promise<{ page: Page; logged: string[] }> {
    const page = await browser!.newPage();
    await page.setViewport({ width: 900, height: 760 });
    const logged: string[] = [];
    page.on("console", (message) => void logged.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => void logged.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`));
    const agent = transport === "websocket" ? agentUrl.replace(/^http/, "ws") : agentUrl;
    const query = new URLSearchParams({ agent, ...(transport === "http" ? { transport: "http" } : {}) });
    await page.goto(`${origin}/?${query}`, { waitUntil: "load", timeout: WAIT_MS });
    return { page, logged };
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    const file = `${OUTPUT}/${name}.png`;
    await page.screenshot({ path: file, fullPage: true });
    process.stdout.write(`screenshot: ${file}\n`);
  }

  it("the bundle (esbuild, platform browser, format esm) imports no Node built-in", () => {
    expect(bundle.length).toBeGreaterThan(0);
    expect(bundle).not.toMatch(/\bfrom\s*["']node:|\bimport\s*\(\s*["']node:|\brequire\s*\(\s*["']node:/);
    expect(bundle).not.toMatch(/["']node:[a-z_/]+["']/);
  });

  it.each(["websocket", "http"] as const)(
    "runs a prompt turn over %s from another origin and renders the transcript",
    async (transport) => {
      const seen = answered.length;
      const { page, logged } = await open(allowedOrigin, transport);
      try {
        const result = await rendered(page);
        await screenshot(page, `browser-${transport}`);
        expect(result.state, `${result.status}\n${logged.join("\n")}`).toBe("done");
        expect(result.status).toBe("Turn ended: end_turn.");
        expect(result.items).toEqual([
          { kind: "user", text: "hello from the browser" },
          { kind: "thought", text: "Planning the answer." },
          { kind: "plan", text: "Read the prompt — completed" },
          { kind: "tool", text: "Read the prompt — completed", status: "completed" },
          { kind: "agent", text: "You said: hello from the browser" },
        ]);
        expect(await page.$eval(".plan li", (li) => li.getAttribute("data-status"))).toBe("completed");
      } finally {
        await page.close();
      }
      // The requests came cross-origin and were served: over HTTP with a CORS preflight first.
      const mine = answered.slice(seen).filter((answer) => answer.origin === allowedOrigin);
      if (transport === "websocket") {
        expect(mine).toContainEqual({ via: "websocket", method: "GET", origin: allowedOrigin, status: 101 });
      } else {
        expect(mine).toContainEqual({ via: "http", method: "OPTIONS", origin: allowedOrigin, status: 204 });
        expect(mine).toContainEqual({ via: "http", method: "POST", origin: allowedOrigin, status: 200 });
        expect(mine).toContainEqual({ via: "http", method: "GET", origin: allowedOrigin, status: 200 });
      }
      expect(mine.filter((answer) => answer.status >= 400)).toEqual([]);
      expect(connected).toContain(allowedOrigin);
    },
    180_000,
  );

  it.each(["websocket", "http"] as const)(
    "refuses the page over %s when its origin is not allowed (403), and the page shows the error",
    async (transport) => {
      const seen = answered.length;
      const { page } = await open(refusedOrigin, transport);
      try {
        const result = await rendered(page);
        await screenshot(page, `browser-refused-${transport}`);
        expect(result.state).toBe("failed");
        // The browser keeps the 403 from the page: all it learns is that the socket or the fetch failed.
        expect(result.status).toBe(`Failed: connection closed (${transport === "websocket" ? "WebSocket error" : "Failed to fetch"})`);
        expect(result.items).toEqual([]);
      } finally {
        await page.close();
      }
      const mine = answered.slice(seen).filter((answer) => answer.origin === refusedOrigin);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((answer) => answer.status === 403)).toBe(true);
      expect(mine[0]).toMatchObject({ via: transport, status: 403 });
      expect(connected).not.toContain(refusedOrigin);
    },
    180_000,
  );
});
