/**
 * One turn of the SDK's client against an agent command in a child process
 * (test/record.test.ts, test/mock-agent.test.ts): initialize, session/new,
 * one prompt, wait for the turn's end (permission requests are allowed).
 * Returns what the client saw, every line it sent and received, the child's
 * exit code and stderr.
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client as sdkClient, ndJsonStream as sdkNdJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { PROTOCOL_VERSION } from "../../generated/src/v2/index.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The complete lines of a byte stream as text. */
export function linesOf(chunks: Buffer[]): string[] {
  return Buffer.concat(chunks).toString("utf8").split("\n").slice(0, -1);
}

/** A web byte stream that passes through `to`, keeping a copy of each chunk. */
function copying(to: WritableStream<Uint8Array>, into: Buffer[]): WritableStream<Uint8Array> {
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      into.push(Buffer.from(chunk));
      controller.enqueue(chunk);
    },
  });
  // The test ends the child's stdin itself once the turn is over; the pipe then stops quietly.
  tap.readable.pipeTo(to).catch(() => {});
  return tap.writable;
}

export interface SdkTurn {
  /** What the client saw, or `{ error }` when the connection failed before the turn ended. */
  readonly outcome: unknown;
  readonly sent: string[];
  readonly received: string[];
  readonly code: number | null;
  readonly stderr: string;
}

/** One SDK client turn against an agent command, prompting `prompt`. */
export async function sdkTurn(command: string[], prompt = "hello agent"): Promise<SdkTurn> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  const sent: Buffer[] = [];
  const received: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => received.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on("error", () => {});
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  let turnEnded: (stopReason: string) => void = () => {};
  const app = sdkClient({ name: "sdk-client" })
    .onRequest("session/request_permission", async () => ({ outcome: { outcome: "selected", optionId: "allow" } }))
    .onNotification("session/update", async ({ params }) => {
      const update = params.update;
      if (update.sessionUpdate === "state_update" && update.state === "idle" && "stopReason" in update && typeof update.stopReason === "string") turnEnded(update.stopReason);
    });
  const stream = sdkNdJsonStream(copying(Writable.toWeb(child.stdin), sent), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const turn = app.connectWith(stream, async (agent) => {
    const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "sdk-client", version: "2.4.0" } });
    const { sessionId } = await agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const ended = new Promise<string>((resolve) => (turnEnded = resolve));
    const accepted = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] });
    return { name: init.info?.name, sessionId, accepted, stopReason: await ended };
  });
  // An agent that exits mid-turn never ends it: the child's exit ends the wait.
  const outcome = await Promise.race([turn.catch((error: unknown) => ({ error: String(error) })), closed.then(() => ({ error: "the agent exited" }))]);
  child.stdin.end();
  const code = await closed;
  return { outcome, sent: linesOf(sent), received: linesOf(received), code, stderr: Buffer.concat(stderr).toString("utf8") };
}
