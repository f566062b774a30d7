import { checkTraffic, formatText, type CheckerBindings } from "./checker.js";

/*
 * The command line of `npx acp-bindings check`. The package is built without
 * Node.js typings (its tsconfig has `types: []`), so the few Node.js APIs used
 * here are typed by the small interfaces below and reached at run time.
 */

interface NodeProcess {
  readonly argv: readonly string[];
  exitCode?: number;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

interface NodeFs {
  readFileSync(path: string | number, encoding: "utf8"): string;
}

export const USAGE = `usage: acp-bindings check <file.ndjson | -> [--surface S] [--format text|json]

Checks a captured ACP session, one JSON-RPC message per line ("-" reads stdin):
strict violations with JSON pointers, what a tolerant peer silently drops,
protocol errors, and a summary of the reduced session state.

  --surface S   v1, v1/unstable, v2 or v2/unstable (default: from the initialize
                request's protocolVersion, unstable; v1/unstable without one)
  --format F    text (default) or json

Exit codes: 0 clean, 1 violations or protocol errors, 2 bad usage or unreadable input.
`;

/** Runs `acp-bindings <argv>` with the given surfaces (entry modules by name); sets the exit code. */
export async function main(surfaces: Readonly<Record<string, CheckerBindings>>): Promise<void> {
  const proc = (globalThis as unknown as { process: NodeProcess }).process;
  const fsModule: string = "node:fs";
  const fs = (await import(fsModule)) as NodeFs;
  const outcome = run(proc.argv.slice(2), surfaces, (path) => fs.readFileSync(path === "-" ? 0 : path, "utf8"));
  (outcome.code === 2 ? proc.stderr : proc.stdout).write(outcome.output);
  proc.exitCode = outcome.code;
}

/** The command, without Node.js: arguments in, output text and exit code out. */
export function run(args: readonly string[], surfaces: Readonly<Record<string, CheckerBindings>>, read: (path: string) => string): { output: string; code: number } {
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
  let text: string;
  try {
    text = read(file);
  } catch (error) {
    return usage(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lines = text.split(/\r?\n/);
  const chosen = surface ?? detectSurface(lines, Object.keys(surfaces));
  const bindings = Object.hasOwn(surfaces, chosen) ? surfaces[chosen] : undefined;
  if (!bindings) return usage(`unknown surface ${JSON.stringify(chosen)} (this package has ${Object.keys(surfaces).join(", ")})`);
  const report = checkTraffic(lines, bindings, chosen);
  return { output: format === "json" ? `${JSON.stringify(report, null, 2)}\n` : formatText(report), code: report.errors ? 1 : 0 };
}

/** `v<N>/unstable` from the first `initialize` request's `protocolVersion`, when the package has it. */
function detectSurface(lines: readonly string[], available: readonly string[]): string {
  let version = 1;
  for (const line of lines) {
    if (!line.includes('"initialize"')) continue;
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
  return available.includes(wanted) ? wanted : (available[0] ?? wanted);
}
