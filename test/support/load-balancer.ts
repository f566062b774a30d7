/**
 * The processes of test/load-balancer.test.ts: servers running
 * examples/remote-server.ts, and a real HAProxy in front of them (Debian's
 * package, installed by the test when missing), with cookie affinity,
 * redispatch and health checks. Every child is kept in a list (a server's
 * whole process group) and killed by `stopAll`; nothing here waits on the
 * wall clock except HAProxy's own checks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const children: ChildProcess[] = [];

/** The command that runs the server example, as README.md gives it; the tests run it exactly so. */
export const REMOTE_SERVER_COMMAND = "npx tsx examples/remote-server.ts";

/** A running examples/remote-server.ts. */
export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Sends `signal` to the server's process group: the shell, `npx`, `tsx` and the server itself. */
  signal(signal: "SIGTERM" | "SIGKILL"): void;
  /** Settles once the command's process exited. */
  readonly exited: Promise<void>;
}

/** The process groups of the servers started (each led by its shell), to kill in `stopAll`. */
const groups: number[] = [];

/** Settles once `child` exited (at once if it already has). */
function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Sends `signal` to process group `group`; a group already gone is no error. */
function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Runs `REMOTE_SERVER_COMMAND` through the shell (`SERVER_NAME=name`,
 * `SESSION_DIR=dir`, `PORT=port`) in a process group of its own, and reads
 * the server's base URL from its first line of output. Signals go to the
 * whole group, so that they reach the server behind `npx` and `tsx`.
 */
export function startServer(name: string, dir: string, port = 0): Promise<ServerProcess> {
  const child = spawn(REMOTE_SERVER_COMMAND, {
    cwd: ROOT,
    shell: true,
    detached: true,
    env: { ...process.env, SERVER_NAME: name, SESSION_DIR: dir, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const group = child.pid;
  if (group === undefined) return Promise.reject(new Error(`could not start ${REMOTE_SERVER_COMMAND}`));
  groups.push(group);
  children.push(child);
  const exited = exitOf(child);
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    child.stdout?.on("data", function first(chunk: Buffer) {
      stdout += chunk.toString();
      const newline = stdout.indexOf("\n");
      if (newline < 0) return;
      child.stdout?.off("data", first);
      child.stdout?.resume(); // later output is not read
      const url = stdout.slice(0, newline).trim();
      const found = /^http:\/\/127\.0\.0\.1:(\d+)\/acp$/.exec(url);
      if (!found) return reject(new Error(`server ${name} printed ${JSON.stringify(url)} first, not its URL; stderr: ${stderr}`));
      resolve({ name, port: Number(found[1]), url, signal: (signal) => signalGroup(group, signal), exited });
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`server ${name} exited (${code ?? signal}) before printing its URL; stderr: ${stderr}`)));
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = address !== null && typeof address === "object" ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** HAProxy running in front of servers. */
export interface Balancer {
  /** The ACP endpoint through HAProxy. */
  readonly url: string;
  /** HAProxy's statistics as CSV, `/lb-stats;csv` on the same port. */
  readonly statsUrl: string;
  readonly child: ChildProcess;
}

/**
 * The HAProxy configuration: HTTP mode, round robin, an inserted affinity
 * cookie `ACPSRV` (`indirect`: the servers never see it; `nocache`), a
 * connection refused by a dead server redispatched to a live one, TCP
 * health checks every 200 ms, generous timeouts, and `timeout tunnel` for
 * WebSockets (SSE streams are long responses under `timeout server`).
 */
export function haproxyConfig(port: number, servers: readonly { name: string; port: number }[]): string {
  return [
    "global",
    "  maxconn 256", // HAProxy needs about two descriptors per connection: 256 fit within an open-files limit of 1,024
    "defaults",
    "  mode http",
    "  option redispatch",
    "  retries 3",
    "  timeout connect 5s",
    "  timeout client 300s",
    "  timeout server 300s",
    "  timeout http-request 60s",
    "  timeout tunnel 1h",
    "  timeout check 5s",
    "frontend acp",
    `  bind 127.0.0.1:${port}`,
    "  stats enable",
    "  stats uri /lb-stats",
    "  default_backend agents",
    "backend agents",
    "  balance roundrobin",
    "  cookie ACPSRV insert indirect nocache",
    ...servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} cookie ${server.name} check inter 200ms fall 1 rise 1`),
    "",
  ].join("\n");
}

/** Writes the configuration to `dir` and runs `haproxy -f cfg -db` (foreground) on a free port; settles once its statistics answer. */
export async function startHaproxy(binary: string, dir: string, servers: readonly { name: string; port: number }[]): Promise<Balancer> {
  const port = await freePort();
  const config = join(dir, "haproxy.cfg");
  writeFileSync(config, haproxyConfig(port, servers));
  const child = spawn(binary, ["-f", config, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const balancer = { url: `http://127.0.0.1:${port}/acp`, statsUrl: `http://127.0.0.1:${port}/lb-stats;csv`, child };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited (${child.exitCode ?? child.signalCode}): ${stderr}`);
    if ((await serverStates(balancer).catch(() => undefined)) !== undefined) return balancer;
    await sleep(20);
  }
}

/** HAProxy's view of each backend server: `UP`, `DOWN`, ... by server name. */
export async function serverStates(balancer: Balancer): Promise<Map<string, string>> {
  const response = await fetch(balancer.statsUrl);
  if (!response.ok) throw new Error(`haproxy statistics: HTTP ${response.status}`);
  const [header = "", ...rows] = (await response.text()).trim().split("\n");
  const columns = header.replace(/^# /, "").split(",");
  const proxy = columns.indexOf("pxname");
  const server = columns.indexOf("svname");
  const status = columns.indexOf("status");
  const states = new Map<string, string>();
  for (const row of rows.map((line) => line.split(","))) {
    const name = row[server] ?? "";
    if (row[proxy] === "agents" && name !== "BACKEND") states.set(name, (row[status] ?? "").split(" ")[0] ?? "");
  }
  return states;
}

/** Resolves once HAProxy reports server `name` in `state` (`UP` or `DOWN`), asking every 20 ms; the test's timeout is the only limit. */
export async function untilServer(balancer: Balancer, name: string, state: "UP" | "DOWN"): Promise<void> {
  while ((await serverStates(balancer).catch(() => new Map<string, string>())).get(name) !== state) await sleep(20);
}

/** Kills every server's process group and every other child still running (SIGKILL), and waits for the children to exit. */
export async function stopAll(): Promise<void> {
  for (const group of groups.splice(0)) signalGroup(group, "SIGKILL");
  await Promise.all(
    children.splice(0).map((child) => {
      const exited = exitOf(child);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      return exited;
    }),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
