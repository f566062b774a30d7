import { traceEvent, traceLine, type Direction } from "./trace.js";
import { joinBytes } from "./transport.js";

/*
 * `npx acp-bindings record --out FILE -- AGENT_COMMAND [ARGS...]`: a
 * transparent stdio tap. An editor launches it in place of the agent; it
 * starts the agent, passes bytes through unchanged both ways, and appends each
 * line to FILE as it passes (trace.ts has the format), with a synchronous
 * write per line, so a crash loses nothing already passed. The agent's stderr
 * is the tap's stderr; its exit code or signal becomes the tap's; SIGINT,
 * SIGTERM and SIGHUP sent to the tap go to the agent. Node.js built-ins only,
 * typed by the small interfaces below (the package has no Node.js typings).
 */

interface Readable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy?(): unknown;
}

interface Writable {
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  once(event: "drain", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

interface Child {
  readonly stdin: Writable;
  readonly stdout: Readable;
  kill(signal: string): unknown;
  on(event: "error", listener: (error: { code?: unknown; message?: unknown }) => void): unknown;
  on(event: "close", listener: (code: number | null, signal: string | null) => void): unknown;
}

interface RecordProcess {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: { write(text: string): unknown };
  readonly pid: number;
  exitCode?: number;
  on(signal: string, listener: () => void): unknown;
  removeAllListeners(signal: string): unknown;
  kill(pid: number, signal: string): unknown;
}

interface RecordFs {
  openSync(path: string, flags: string): number;
  writeSync(fd: number, text: string): unknown;
  closeSync(fd: number): void;
}

interface ChildProcessModule {
  spawn(command: string, args: readonly string[], options: { stdio: readonly string[] }): Child;
}

export const RECORD_USAGE = `usage: acp-bindings record --out FILE -- AGENT_COMMAND [ARGS...]

Starts the agent and passes stdin/stdout through unchanged, appending each line
to FILE (ndjson: {"t": ms, "dir": "client->agent" | "agent->client", "line": ...}).
Configure your editor to run this command in place of the agent.
`;

const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The options of `record`: the trace file and the agent's command line, or what is wrong with them. */
export function parseRecordArgs(args: readonly string[]): { out: string; command: string; args: string[] } | { problem: string } {
  const dashes = args.indexOf("--");
  const options = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  let out: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const option = options[i]!;
    if (option === "--out" || option === "-o") out = options[++i];
    else if (option.startsWith("--out=")) out = option.slice("--out=".length);
    else return { problem: `unknown option ${JSON.stringify(option)} (the agent's command goes after \`--\`)` };
  }
  if (out === undefined || out === "") return { problem: "--out FILE is required" };
  if (command.length === 0) return { problem: "which agent? put its command after `--`" };
  return { out, command: command[0]!, args: command.slice(1) };
}

/** Splits a byte stream into lines as it passes; `line` is called with each complete line's bytes (no `\n`). */
export class LineTap {
  private pending: Uint8Array[] = [];

  constructor(private readonly line: (bytes: Uint8Array, partial: boolean) => void) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      this.pending.push(chunk.subarray(start, newline));
      this.emit(false);
      start = newline + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.slice(start));
  }

  /** The end of the stream: a last line without `\n` is recorded as partial. */
  end(): void {
    if (this.pending.some((part) => part.length > 0)) this.emit(true);
  }

  private emit(partial: boolean): void {
    const parts = this.pending;
    this.pending = [];
    const size = parts.reduce((n, part) => n + part.length, 0);
    this.line(joinBytes(parts, new Uint8Array(0), size), partial);
  }
}

/** Passes `from` to `to` chunk by chunk, each chunk through `tap` first, pausing while `to` is full. */
function forward(from: Readable, to: Writable, tap: LineTap, onEnd: () => void): void {
  from.on("data", (chunk) => {
    tap.push(chunk);
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.on("end", () => {
    tap.end();
    onEnd();
  });
}

/** Runs `record`: resolves when the agent has exited and the trace is closed; the tap then exits as the agent did. */
export async function record(args: readonly string[]): Promise<void> {
  const proc = (globalThis as unknown as { process: RecordProcess }).process;
  const parsed = parseRecordArgs(args);
  if ("problem" in parsed) {
    proc.stderr.write(`acp-bindings record: ${parsed.problem}\n\n${RECORD_USAGE}`);
    proc.exitCode = 2;
    return;
  }
  const fsName: string = "node:fs";
  const childName: string = "node:child_process";
  const fs = (await import(fsName)) as RecordFs;
  const { spawn } = (await import(childName)) as ChildProcessModule;
  const fd = fs.openSync(parsed.out, "a");
  const write = (text: string) => fs.writeSync(fd, text);
  write(traceEvent(Date.now(), "start", { command: [parsed.command, ...parsed.args] }));
  const child = spawn(parsed.command, parsed.args, { stdio: ["pipe", "pipe", "inherit"] });
  const tap = (dir: Direction) => new LineTap((bytes, partial) => write(traceLine(Date.now(), dir, bytes, partial)));
  let done = false;
  await new Promise<void>((resolve) => {
    // Writes to a peer that went away are dropped, as the pipe would drop them.
    child.stdin.on("error", () => {});
    proc.stdout.on("error", () => {});
    forward(proc.stdin, child.stdin, tap("client->agent"), () => child.stdin.end());
    forward(child.stdout, proc.stdout, tap("agent->client"), () => {});
    for (const signal of FORWARDED_SIGNALS) proc.on(signal, () => child.kill(signal));
    child.on("error", (error) => {
      if (done) return;
      done = true;
      proc.stderr.write(`acp-bindings record: cannot start ${JSON.stringify(parsed.command)}: ${String(error.message)}\n`);
      write(traceEvent(Date.now(), "exit", { code: 127, signal: null, error: String(error.message) }));
      fs.closeSync(fd);
      proc.stdin.destroy?.();
      proc.exitCode = 127;
      resolve();
    });
    child.on("close", (code, signal) => {
      if (done) return;
      done = true;
      // The client's side may stay open; the agent is gone, so the tap stops reading it.
      proc.stdin.destroy?.();
      write(traceEvent(Date.now(), "exit", { code, signal }));
      fs.closeSync(fd);
      exitAs(proc, code, signal);
      resolve();
    });
  });
}

/** Ends the tap as the agent ended: the same exit code, or the same signal (raised on itself once its handlers are gone). */
function exitAs(proc: RecordProcess, code: number | null, signal: string | null): void {
  if (signal === null) {
    proc.exitCode = code ?? 1;
    return;
  }
  for (const forwarded of FORWARDED_SIGNALS) proc.removeAllListeners(forwarded);
  proc.exitCode = 128;
  proc.kill(proc.pid, signal);
}
