import { splitLines } from "./checker.js";
import { describeJson, errorMessage } from "./describe.js";
import { firstDifference, idKey, readWire, replaceId, scriptSteps, type Step, type Wire } from "./mock-script.js";
import { LineTap } from "./record.js";
import { readTrace, type Direction } from "./trace.js";

/*
 * `npx acp-bindings mock-agent --script FILE`: a deterministic agent that
 * plays the agent's side of a scripted session over stdio (mock-script.ts has
 * the script: a trace, e.g. one `record` wrote). The agent->client lines before
 * the script's first client->agent line are sent at once; then, for each
 * client->agent line of the script, the client's next line must match it, and
 * the agent->client lines that follow it in the script are sent, in order.
 * Ids are mapped: a client request may carry another id than the script's
 * (the response the mock sends carries the live one), and the mock's own
 * requests go out with the script's ids, which the client's responses must
 * carry. A mismatch is reported on stderr with both messages, and the mock
 * exits 1. `mock-client --script FILE -- AGENT_COMMAND...` plays the client's
 * side the same way (`MockPeer` with the other direction) to an agent it
 * starts. Node.js built-ins only.
 */

/** What the mock does next: lines to send, or the mismatch that ends it. */
export type Outcome = { readonly send: readonly (string | Uint8Array)[] } | { readonly mismatch: string };

/** Bounds the messages of a mismatch report. */
const SHOWN = 400;

/** One side of a script (`ours`: the direction it sends), played against one live peer; no I/O (the commands wire it). */
export class MockPeer {
  private next = 0;
  /** The script's ids of the peer's requests (by `idKey`) to the live ones. */
  private readonly peerIds = new Map<string, string | number | null>();
  /** The ids of the mock's requests (by the script's `idKey`): the ones they went out with. */
  private readonly ownIds = new Map<string, unknown>();

  private readonly peer: string;

  constructor(
    private readonly steps: readonly Step[],
    private readonly ours: Direction = "agent->client",
  ) {
    this.peer = ours === "agent->client" ? "client" : "agent";
  }

  /** The lines to send before the peer has said anything. */
  start(): Outcome {
    return { send: this.ownLines() };
  }

  /** A line from the peer: the lines that answer it, or how it differs from what the script expects. */
  receive(raw: string | Uint8Array): Outcome {
    const expected = this.steps[this.next];
    const received = readWire(raw);
    if (expected === undefined) return { mismatch: report(this.peer, "a message past the script's end", undefined, received) };
    const problem = this.match(expected, received);
    if (problem !== undefined) return { mismatch: report(this.peer, problem, expected, received) };
    this.next++;
    return { send: this.ownLines() };
  }

  /** The peer closed its side: fine once the script is played through. */
  end(): Outcome {
    const expected = this.steps[this.next];
    if (expected === undefined) return { send: [] };
    return { mismatch: report(this.peer, "nothing more (it closed its side before the script's end)", expected, undefined) };
  }

  /** Whether every line of the script has been played. */
  get done(): boolean {
    return this.next >= this.steps.length;
  }

  /** The script's lines in our direction from the current step on, ids rewritten; stops at the next line of the peer. */
  private ownLines(): (string | Uint8Array)[] {
    const lines: (string | Uint8Array)[] = [];
    for (let step = this.steps[this.next]; step?.dir === this.ours; step = this.steps[++this.next]) lines.push(this.outgoing(step));
    return lines;
  }

  private outgoing(step: Step): string | Uint8Array {
    if (step.kind === "request") this.ownIds.set(idKey(step.message!.id), step.message!.id);
    if (step.kind !== "response" || typeof step.raw !== "string") return step.raw;
    const key = idKey(step.message!.id);
    if (!this.peerIds.has(key)) return step.raw;
    const live = this.peerIds.get(key)!;
    return live === step.message!.id ? step.raw : replaceId(step.raw, live);
  }

  /** Why `received` does not match the script's peer line `expected`, or `undefined` when it does. */
  private match(expected: Step, received: Wire): string | undefined {
    if (expected.kind === "other" || received.kind === "other") return sameRaw(expected, received) ? undefined : "a different line";
    if (expected.kind !== received.kind) return `a ${received.kind} where the script has a ${expected.kind}`;
    const want = expected.message!;
    const got = received.message!;
    if (expected.kind === "notification") return difference(want, got, []);
    if (expected.kind === "request") return this.matchRequest(want, got);
    return this.matchResponse(want, got);
  }

  private matchRequest(want: Readonly<Record<string, unknown>>, got: Readonly<Record<string, unknown>>): string | undefined {
    if (want.method !== got.method) return "a different method";
    const problem = difference(want, got, ["id"]);
    if (problem !== undefined) return problem;
    if (typeof got.id !== "string" && typeof got.id !== "number" && got.id !== null) return "an id that is not a string or number";
    this.peerIds.set(idKey(want.id), got.id);
    return undefined;
  }

  private matchResponse(want: Readonly<Record<string, unknown>>, got: Readonly<Record<string, unknown>>): string | undefined {
    const key = idKey(want.id);
    const live = this.ownIds.has(key) ? this.ownIds.get(key) : want.id;
    if (got.id !== live) return `a response to another request (the script's answers id ${describeJson(live, 60)})`;
    return difference(want, got, ["id"]);
  }
}

function difference(want: unknown, got: unknown, skip: readonly string[]): string | undefined {
  const at = firstDifference(want, got, skip);
  return at === undefined ? undefined : `a message that differs at ${at === "" ? "the top" : describeJson(at, 120)}`;
}

function sameRaw(expected: Wire, received: Wire): boolean {
  if (typeof expected.raw === "string" || typeof received.raw === "string") return expected.raw === received.raw;
  return expected.raw.length === received.raw.length && expected.raw.every((byte, i) => byte === (received.raw as Uint8Array)[i]);
}

/** A mismatch report: what was wrong, the script's line (with its line number) and the peer's. */
function report(peer: string, problem: string, expected: Step | undefined, received: Wire | undefined): string {
  const lines = [`the ${peer} sent ${problem}`];
  lines.push(expected === undefined ? "  expected: nothing more (the script has ended)" : `  expected (script line ${expected.line}): ${shown(expected)}`);
  lines.push(received === undefined ? `  received: the end of the ${peer}'s output` : `  received: ${shown(received)}`);
  return `${lines.join("\n")}\n`;
}

function shown(wire: Wire): string {
  if (wire.message !== undefined) return describeJson(wire.message, SHOWN);
  return typeof wire.raw === "string" ? describeJson(wire.raw, SHOWN) : `${wire.raw.length} bytes that are not UTF-8`;
}

interface Readable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  destroy?(): unknown;
}

interface Writable {
  write(chunk: string | Uint8Array): boolean;
  end(): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

interface MockProcess {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: { write(text: string): unknown };
  exitCode?: number;
}

interface MockFs {
  readFileSync(path: string): Uint8Array;
}

interface Child {
  readonly stdin: Writable;
  readonly stdout: Readable;
  kill(signal: string): unknown;
  on(event: "error", listener: (error: { message?: unknown }) => void): unknown;
  on(event: "close", listener: (code: number | null) => void): unknown;
}

interface ChildProcessModule {
  spawn(command: string, args: readonly string[], options: { stdio: readonly string[] }): Child;
}

export const MOCK_AGENT_USAGE = `usage: acp-bindings mock-agent --script FILE
       acp-bindings mock-client --script FILE -- AGENT_COMMAND [ARGS...]

mock-agent plays the agent's side of a recorded session over stdio: FILE is a
trace (what \`acp-bindings record\` writes). For each client->agent line of the
script, the client's next line must match it (ids may differ); the agent->client
lines that follow it are then sent, ids rewritten. mock-client plays the
client's side the same way to the agent it starts. A mismatch is reported on
stderr with both messages; exit 1. Exit 0 once the script is played and the
peer closes its side.
`;

/** The options of `mock-agent` and `mock-client`: the script file and the agent's command, or what is wrong with them. */
export function parseMockArgs(args: readonly string[]): { script: string; command: string[] } | { problem: string } {
  const dashes = args.indexOf("--");
  const options = dashes === -1 ? args : args.slice(0, dashes);
  let script: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const option = options[i]!;
    if (option === "--script") script = options[++i];
    else if (option.startsWith("--script=")) script = option.slice("--script=".length);
    else return { problem: `unknown option ${JSON.stringify(option)}` };
  }
  if (script === undefined || script === "") return { problem: "--script FILE is required" };
  return { script, command: dashes === -1 ? [] : args.slice(dashes + 1) };
}

/** Reads a script file into a `MockPeer` that sends the `ours` lines, or says why it cannot. */
export function loadMock(bytes: Uint8Array, ours: Direction = "agent->client"): MockPeer | { problem: string } {
  const steps = scriptSteps(readTrace(splitLines(bytes)));
  return "problem" in steps ? steps : new MockPeer(steps, ours);
}

/** Runs `mock-agent` (`side` agent: plays to stdio) or `mock-client` (plays to the agent it starts); sets the exit code. */
export async function mock(side: "agent" | "client", args: readonly string[]): Promise<void> {
  const proc = (globalThis as unknown as { process: MockProcess }).process;
  const fail = (code: number, text: string) => {
    proc.stderr.write(`acp-bindings mock-${side}: ${text}`);
    proc.exitCode = code;
  };
  const parsed = parseMockArgs(args);
  if ("problem" in parsed) return fail(2, `${parsed.problem}\n\n${MOCK_AGENT_USAGE}`);
  if (side === "agent" && parsed.command.length > 0) return fail(2, `mock-agent takes no command\n\n${MOCK_AGENT_USAGE}`);
  if (side === "client" && parsed.command.length === 0) return fail(2, `which agent? put its command after \`--\`\n\n${MOCK_AGENT_USAGE}`);
  const fsName: string = "node:fs";
  const fs = (await import(fsName)) as MockFs;
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(parsed.script);
  } catch (error) {
    return fail(2, `cannot read ${JSON.stringify(parsed.script)}: ${errorMessage(error)}\n`);
  }
  const peer = loadMock(bytes, side === "agent" ? "agent->client" : "client->agent");
  if ("problem" in peer) return fail(2, `${parsed.script}: ${peer.problem}\n`);
  if (side === "agent") {
    proc.stdout.on("error", () => {});
    await play(peer, proc.stdin, proc.stdout, fail, () => {});
    return;
  }
  await playToAgent(peer, parsed.command, fail);
}

/** `mock-client`: starts the agent and plays to it; its stdin is closed once the script is played, and it is killed on a mismatch. */
async function playToAgent(peer: MockPeer, command: readonly string[], fail: (code: number, text: string) => void): Promise<void> {
  const childName: string = "node:child_process";
  const { spawn } = (await import(childName)) as ChildProcessModule;
  const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.on("error", () => {});
  const closed = new Promise<void>((resolve) => {
    child.on("close", () => resolve());
    child.on("error", (error) => {
      fail(127, `cannot start ${JSON.stringify(command[0])}: ${String(error.message)}\n`);
      resolve();
    });
  });
  const played = play(peer, child.stdout, child.stdin, fail, () => child.stdin.end());
  await Promise.race([played, closed]);
  if (!peer.done) child.kill("SIGTERM");
  await closed;
  await played;
}

/** Plays `peer` between `from` (the live peer's lines) and `to`: sends what it says, stops at the first mismatch; `played` once it has played the script. */
function play(peer: MockPeer, from: Readable, to: Writable, fail: (code: number, text: string) => void, played: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let over = false;
    const act = (outcome: Outcome) => {
      if (over) return;
      if ("send" in outcome) {
        for (const line of outcome.send) to.write(typeof line === "string" ? `${line}\n` : withNewline(line));
        if (peer.done) played();
        return;
      }
      over = true;
      fail(1, outcome.mismatch);
      from.destroy?.();
      resolve();
    };
    const lines = new LineTap((bytes) => {
      const line = withoutCr(bytes);
      if (line.length > 0) act(peer.receive(line));
    });
    act(peer.start());
    from.on("data", (chunk) => lines.push(chunk));
    from.on("end", () => {
      lines.end();
      act(peer.end());
      over = true;
      resolve();
    });
  });
}

function withNewline(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  out[bytes.length] = 0x0a;
  return out;
}

/** A line's bytes without the `\r` of a `\r\n` ending. */
function withoutCr(bytes: Uint8Array): Uint8Array {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, bytes.length - 1) : bytes;
}
