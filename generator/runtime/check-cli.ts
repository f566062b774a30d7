import { checkTraffic, decodeUtf8, formatText, splitLines, type CheckerBindings } from "./checker.js";
import { mock } from "./mock-agent.js";
import { record } from "./record.js";
import { readTrace, wireLines } from "./trace.js";
import { view } from "./view.js";

/*
 * The command line of `npx acp-bindings check`. The package is built without
 * Node.js typings (its tsconfig has `types: []`), so the few Node.js APIs used
 * here are typed by the small interfaces below and reached at run time.
 */

interface NodeProcess {
  readonly argv: readonly string[];
  exitCode?: number;
  exit(code: number): never;
  readonly stdout: { write(text: string): unknown; on(event: "error", listener: (error: { code?: unknown }) => void): unknown };
  readonly stderr: { write(text: string): unknown };
}

interface NodeFs {
  readFileSync(path: string | number): Uint8Array;
}

/** The exit code of a command whose reader went away (as if killed by SIGPIPE: 128 + 13). */
export const EXIT_BROKEN_PIPE = 141;

export const USAGE = `usage: acp-bindings check <file.ndjson | -> [--surface S] [--format text|json]
       acp-bindings record --out FILE -- AGENT_COMMAND [ARGS...]
       acp-bindings view FILE [-o report.html]
       acp-bindings mock-agent --script FILE
       acp-bindings mock-client --script FILE -- AGENT_COMMAND [ARGS...]

Checks a captured ACP session, one JSON-RPC message per line ("-" reads stdin):
strict violations with JSON pointers, messages a tolerant peer rejects, what a
tolerant peer silently drops, protocol errors, and a summary of the reduced
session state.

  --surface S   v1, v1/unstable, v2 or v2/unstable (default: from the initialize
                request's protocolVersion, unstable; v1/unstable without one,
                the newest unstable surface for a version this package lacks)
  --format F    text (default) or json

Exit codes: 0 clean (drops alone are not errors), 1 violations, rejections or
protocol errors (a line that is not UTF-8 is a violation), 2 bad usage or unreadable input, 141 when the reader of the
output goes away (\`| head\`).
`;

/** Runs `acp-bindings <argv>` with the given surfaces (entry modules by name); sets the exit code. */
export async function main(surfaces: Readonly<Record<string, CheckerBindings>>): Promise<void> {
  const proc = (globalThis as unknown as { process: NodeProcess }).process;
  const fsModule: string = "node:fs";
  const fs = (await import(fsModule)) as NodeFs;
  // A reader that goes away (`| head -1`) ends the command quietly, as SIGPIPE ends other commands.
  proc.stdout.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
    proc.exit(EXIT_BROKEN_PIPE);
  });
  const args = proc.argv.slice(2);
  if (args[0] === "record") return record(args.slice(1));
  if (args[0] === "view") return view(args.slice(1), surfaces);
  if (args[0] === "mock-agent") return mock("agent", args.slice(1));
  if (args[0] === "mock-client") return mock("client", args.slice(1));
  const outcome = run(args, surfaces, (path) => fs.readFileSync(path === "-" ? 0 : path));
  (outcome.code === 2 ? proc.stderr : proc.stdout).write(outcome.output);
  proc.exitCode = outcome.code;
}

/** The command, without Node.js: arguments in (`read` returns a file's bytes, `-` is stdin), output text and exit code out. */
export function run(args: readonly string[], surfaces: Readonly<Record<string, CheckerBindings>>, read: (path: string) => Uint8Array): { output: string; code: number } {
  const usage = (problem: string) => ({ output: `acp-bindings: ${problem}\n\n${USAGE}`, code: 2 });
  if (args[0] === "--help" || args[0] === "-h" || args.length === 0) return { output: USAGE, code: args.length === 0 ? 2 : 0 };
  if (args[0] !== "check") return usage(`unknown command ${JSON.stringify(args[0])}`);
  let file: string | undefined;
  let surface: string | undefined;
  let format = "text";
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--help" || arg === "-h") return { output: USAGE, code: 0 };
    if (arg === "--surface" || arg === "--format") {
      const value = args[++i];
      if (value === undefined) return usage(`${arg} needs a value`);
      if (arg === "--surface") surface = value;
      else format = value;
    } else if (arg.startsWith("--")) {
      return usage(`unknown option ${arg}`);
    } else if (file === undefined) {
      file = arg;
    } else {
      return usage(`one file at a time (got ${JSON.stringify(file)} and ${JSON.stringify(arg)})`);
    }
  }
  if (file === undefined) return usage("which file? (`-` reads stdin)");
  if (format !== "text" && format !== "json") return usage(`--format is text or json, not ${JSON.stringify(format)}`);
  let lines: (string | Uint8Array)[];
  let trace: ReturnType<typeof readTrace>;
  try {
    // Decoded once here; a line that is not UTF-8 stays bytes, which `checkTraffic` reports.
    lines = splitLines(read(file)).map((bytes) => decodeUtf8(bytes) ?? bytes);
    // A recorded or conductor trace: its wire lines, at the trace's line numbers, with direction and time.
    trace = readTrace(lines);
    lines = wireLines(trace);
  } catch (error) {
    return usage(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const chosen = surface ?? detectSurface(lines, Object.keys(surfaces));
  const bindings = Object.hasOwn(surfaces, chosen) ? surfaces[chosen] : undefined;
  if (!bindings) return usage(`unknown surface ${JSON.stringify(chosen)} (this package has ${Object.keys(surfaces).join(", ")})`);
  const report = checkTraffic(lines, bindings, chosen, trace.entries);
  return { output: format === "json" ? `${JSON.stringify(report, null, 2)}\n` : formatText(report), code: report.errors ? 1 : 0 };
}

/**
 * `v<N>/unstable` from the first `initialize` request's `protocolVersion` (1 without one); for a
 * version the package lacks, its newest unstable surface (`available` is oldest first).
 */
function detectSurface(lines: readonly (string | Uint8Array)[], available: readonly string[]): string {
  let version = 1;
  for (const line of lines) {
    if (typeof line !== "string" || !line.includes('"initialize"')) continue;
    try {
      const message = JSON.parse(line) as { method?: unknown; params?: { protocolVersion?: unknown } };
      if (message.method !== "initialize") continue;
      if (typeof message.params?.protocolVersion === "number") version = message.params.protocolVersion;
      break;
    } catch {
      continue;
    }
  }
  const wanted = `v${version}/unstable`;
  const newest = available.filter((s) => s.endsWith("/unstable")).at(-1) ?? available.at(-1);
  return available.includes(wanted) ? wanted : (newest ?? wanted);
}
