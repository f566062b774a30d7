import { splitLines } from "./checker.js";
import { describeJson, errorMessage } from "./describe.js";
import { firstDifference, idKey, readWire, replaceId, scriptSteps, type Step, type Wire } from "./mock-script.js";
import { LineTap } from "./record.js";
import { readTrace } from "./trace.js";

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
 * exits 1. Node.js built-ins only.
 */

/** What the mock does next: lines to send, or the mismatch that ends it. */
export type Outcome = { readonly send: readonly (string | Uint8Array)[] } | { readonly mismatch: string };

/** Bounds the messages of a mismatch report. */
const SHOWN = 400;

/** The agent's side of a script, played against one live client; no I/O (the command wires it to stdio). */
export class MockAgent {
  private next = 0;
  /** The script's client request ids (by `idKey`) to the live client's. */
  private readonly clientIds = new Map<string, string | number | null>();
  /** The ids of the mock's requests (by the script's `idKey`): the ones they went out with. */
  private readonly agentIds = new Map<string, unknown>();

  constructor(private readonly steps: readonly Step[]) {}

  /** The lines to send before the client has said anything. */
  start(): Outcome {
    return { send: this.agentLines() };
  }

  /** A line from the client: the agent lines that answer it, or how it differs from what the script expects. */
  receive(raw: string | Uint8Array): Outcome {
    const expected = this.steps[this.next];
    const received = readWire(raw);
    if (expected === undefined) return { mismatch: report("the script has no more client messages", undefined, received) };
    const problem = this.match(expected, received);
    if (problem !== undefined) return { mismatch: report(problem, expected, received) };
    this.next++;
    return { send: this.agentLines() };
  }

  /** The client closed its side: fine once the script is played through. */
  end(): Outcome {
    const expected = this.steps[this.next];
    if (expected === undefined) return { send: [] };
    return { mismatch: report("the client closed its side before the script's end", expected, undefined) };
  }

  /** Whether every line of the script has been played. */
  get done(): boolean {
    return this.next >= this.steps.length;
  }

  /** The script's agent->client lines from the current step on, ids rewritten; stops at the next client->agent line. */
  private agentLines(): (string | Uint8Array)[] {
    const lines: (string | Uint8Array)[] = [];
    for (let step = this.steps[this.next]; step?.dir === "agent->client"; step = this.steps[++this.next]) lines.push(this.outgoing(step));
    return lines;
  }

  private outgoing(step: Step): string | Uint8Array {
    if (step.kind === "request") this.agentIds.set(idKey(step.message!.id), step.message!.id);
    if (step.kind !== "response" || typeof step.raw !== "string") return step.raw;
    const key = idKey(step.message!.id);
    if (!this.clientIds.has(key)) return step.raw;
    const live = this.clientIds.get(key)!;
    return live === step.message!.id ? step.raw : replaceId(step.raw, live);
  }

  /** Why `received` does not match the script's client line `expected`, or `undefined` when it does. */
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
    this.clientIds.set(idKey(want.id), got.id);
    return undefined;
  }

  private matchResponse(want: Readonly<Record<string, unknown>>, got: Readonly<Record<string, unknown>>): string | undefined {
    const key = idKey(want.id);
    const live = this.agentIds.has(key) ? this.agentIds.get(key) : want.id;
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

/** A mismatch report: what was wrong, the script's line (with its line number) and the client's. */
function report(problem: string, expected: Step | undefined, received: Wire | undefined): string {
  const lines = [`the client sent ${problem}`];
  lines.push(expected === undefined ? "  expected: nothing more (the script has ended)" : `  expected (script line ${expected.line}): ${shown(expected)}`);
  lines.push(received === undefined ? "  received: the end of the client's input" : `  received: ${shown(received)}`);
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

interface MockProcess {
  readonly stdin: Readable;
  readonly stdout: { write(chunk: string | Uint8Array): boolean; on(event: "error", listener: (error: unknown) => void): unknown };
  readonly stderr: { write(text: string): unknown };
  exitCode?: number;
}

interface MockFs {
  readFileSync(path: string): Uint8Array;
}

export const MOCK_AGENT_USAGE = `usage: acp-bindings mock-agent --script FILE

Plays the agent's side of a recorded session over stdio: FILE is a trace (what
\`acp-bindings record\` writes). For each client->agent line of the script, the
client's next line must match it (ids may differ); the agent->client lines that
follow it are then sent, ids rewritten. A mismatch is reported on stderr with
both messages; exit 1. Exit 0 once the script is played and stdin ends.
`;

/** The options of `mock-agent`: the script file, or what is wrong with them. */
export function parseMockArgs(args: readonly string[]): { script: string } | { problem: string } {
  let script: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const option = args[i]!;
    if (option === "--script") script = args[++i];
    else if (option.startsWith("--script=")) script = option.slice("--script=".length);
    else return { problem: `unknown option ${JSON.stringify(option)}` };
  }
  if (script === undefined || script === "") return { problem: "--script FILE is required" };
  return { script };
}

/** Reads a script file into a `MockAgent`, or says why it cannot. */
export function loadMockAgent(bytes: Uint8Array): MockAgent | { problem: string } {
  const steps = scriptSteps(readTrace(splitLines(bytes)));
  return "problem" in steps ? steps : new MockAgent(steps);
}

/** Runs `mock-agent`: resolves when the client's input ends or a mismatch ends the play. */
export async function mockAgent(args: readonly string[]): Promise<void> {
  const proc = (globalThis as unknown as { process: MockProcess }).process;
  const fail = (code: number, text: string) => {
    proc.stderr.write(`acp-bindings mock-agent: ${text}`);
    proc.exitCode = code;
  };
  const parsed = parseMockArgs(args);
  if ("problem" in parsed) return fail(2, `${parsed.problem}\n\n${MOCK_AGENT_USAGE}`);
  const fsName: string = "node:fs";
  const fs = (await import(fsName)) as MockFs;
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(parsed.script);
  } catch (error) {
    return fail(2, `cannot read ${JSON.stringify(parsed.script)}: ${errorMessage(error)}\n`);
  }
  const agent = loadMockAgent(bytes);
  if ("problem" in agent) return fail(2, `${parsed.script}: ${agent.problem}\n`);
  proc.stdout.on("error", () => {});
  await play(agent, proc, fail);
}

/** Wires the mock to stdio: sends what it says, stops at the first mismatch. */
function play(agent: MockAgent, proc: MockProcess, fail: (code: number, text: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let over = false;
    const act = (outcome: Outcome) => {
      if (over) return;
      if ("send" in outcome) {
        for (const line of outcome.send) proc.stdout.write(typeof line === "string" ? `${line}\n` : withNewline(line));
        return;
      }
      over = true;
      fail(1, outcome.mismatch);
      proc.stdin.destroy?.();
      resolve();
    };
    const lines = new LineTap((bytes) => {
      const line = withoutCr(bytes);
      if (line.length > 0) act(agent.receive(line));
    });
    act(agent.start());
    proc.stdin.on("data", (chunk) => lines.push(chunk));
    proc.stdin.on("end", () => {
      lines.end();
      act(agent.end());
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
