/**
 * The `acp-codegen` command line: `generate`, `diff` and `update` (see `USAGE` and the
 * README's CLI reference). Exit codes: 0 ok, 1 findings (`generate --check`
 * found differing files, `diff` found changes at or above `--fail-on`), 2 bad
 * usage or bad input (a schema, reviewed table or lock that cannot be read or
 * recognised, a missing path: the errors of errors.ts), 3 an internal error
 * (a bug in the generator).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { AcpCodegenConfig, Emitter } from "./api.js";
import { diffSchemas } from "./diff/diff.js";
import { formatReport, REPORT_FORMATS, type ReportFormat } from "./diff/format.js";
import { exitCodeFor, FAIL_ON_LEVELS, type FailOn } from "./diff/findings.js";
import { isFileSystemError, SchemaError, UsageError } from "./errors.js";
import { generate } from "./generate.js";
import type { Surface } from "./ir.js";
import { SURFACES } from "./surfaces.js";
import { runUpdate } from "./update/update.js";
import { assertReplaceable, diffTree, recoverInterruptedWrites, treeWithOtherSurfaces, writeTree } from "./write.js";

/** Where the CLI prints: stdout for results, stderr for progress and errors. */
export interface CliOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const USAGE: Record<string, string> = {
  main: `Usage: acp-codegen <command> [options]

Commands:
  generate   generate the acp-bindings package from ACP schemas
  diff       report what changed between two schemas, and what it breaks
  update     take a new ACP release: sync, generate, changelog, version, test

Run \`acp-codegen <command> --help\` for a command's options.
Exit codes: 0 ok, 1 findings, 2 bad usage or bad input, 3 internal error.
`,
  generate: `Usage: acp-codegen generate [options]

Generates every surface the schema directory has into the output directory,
atomically: a failure leaves the output exactly as it was.

Options:
  --schema-dir DIR      schema directory (default: schema). Split layout
                        v1/schema.json ... v2/schema.unstable.json, or the
                        legacy single schema.json (read as v1/unstable)
  --out DIR             output directory (default: generated)
  --surface SURFACE     only this surface (v1, v1/unstable, v2, v2/unstable);
                        repeatable. Files of other surfaces are kept as they are
  --variant-names FILE  untitled-variant naming table
                        (default: DIR/variant-names.json)
  --check               write nothing; list the files that differ from a fresh
                        run on stdout and exit 1 if there are any
  --emitter FILE        also run the emitter FILE exports by default (see the
                        README, "Writing an emitter"); repeatable. Emitters of
                        ./acp-codegen.config.ts (\`export default
                        defineConfig({ emitters })\`) run as well
  --quiet               no progress or summary lines on stderr
  -h, --help            show this help

Exit codes: 0 written (or up to date), 1 --check found differences,
2 bad usage or bad input (schema, reviewed table, lock), 3 internal error.
`,
  diff: `Usage: acp-codegen diff OLD NEW [options]

Compares two schemas at the IR level. OLD and NEW are schema files or schema
directories (surfaces of two directories are paired by name; a legacy single
schema.json pairs with both v1 surfaces).

Options:
  --format FORMAT       text (default), json or markdown (a changelog section)
  --fail-on LEVEL       exit 1 when a finding is at least this severe:
                        error (default), warn or never
  --surface SURFACE     only this surface (v1, v1/unstable, v2, v2/unstable);
                        repeatable
  --ignore-unstable     the stable protocol only: leave out the draft surfaces
                        (v1/unstable and all of v2) and **UNSTABLE** items
  -h, --help            show this help

Exit codes: 0 no finding at --fail-on, 1 findings, 2 bad usage or bad schema,
3 internal error.
`,
  update: `Usage: acp-codegen update [VERSION | latest] [options]

Takes a release of @agentclientprotocol/sdk (default: latest, from the npm
registry) into this project, all or nothing: syncs schema/ and its lock,
generates, writes the changelog section of the diff against the pinned
schemas, bumps the version by the policy (stable v1 break: major; any other
change: minor; descriptions only: patch; under 1.0.0 a major takes the minor
step), updates the SDK dev dependency, runs the tests, prints a summary.
It refuses to start when schema/, generated/, package.json or
package-lock.json hold uncommitted changes (the reviewed tables may), and any
failing step puts every file back and names the step and what to edit.

Options:
  --check               change nothing: exit 1 when the release is newer than
                        the pinned schemas, printing the diff summary and the
                        bump; 0 when it is not
  --from-dir DIR        take the schemas from DIR (an unpacked SDK package, its
                        schema/, or a schema directory with a lock.json)
  --from-tarball FILE   take the schemas from an SDK tarball (npm pack output)
  -h, --help            show this help

Environment: ACP_CODEGEN_UPDATE_TEST replaces the test command (npm test);
ACP_CODEGEN_UPDATE_INSTALL the dependency command ({version} stands for the
version; default npm install --save-dev --save-exact ... @agentclientprotocol/sdk@{version}).

Exit codes: 0 updated (or nothing to do; --check: up to date), 1 --check: a
newer release, 2 bad usage or a failed step (everything restored), 3 internal
error.
`,
};

/** The project configuration file, read from the working directory when it exists. */
export const CONFIG_FILE = "acp-codegen.config.ts";

/**
 * Runs one command line after loading the emitters of `generate` (the
 * configuration file's and those named by `--emitter`), which needs a
 * dynamic import; returns the exit code and never throws.
 */
export async function runCliWithEmitters(argv: readonly string[], out: CliOutput): Promise<number> {
  let emitters: Emitter[];
  try {
    emitters = argv[0] === "generate" ? await loadEmitters(argv.slice(1)) : [];
  } catch (error) {
    return reportError(error, out);
  }
  return runCli(argv, out, emitters);
}

/** The config file's emitters, then each `--emitter FILE`'s default export. */
async function loadEmitters(args: readonly string[]): Promise<Emitter[]> {
  const files = parseArgs({ args: [...args], options: { emitter: { type: "string", multiple: true } }, strict: false }).values.emitter;
  const config = existsSync(CONFIG_FILE) ? ((await importDefault(CONFIG_FILE)) as AcpCodegenConfig | undefined) : undefined;
  if (config !== undefined && !Array.isArray(config.emitters)) throw new UsageError(`${CONFIG_FILE} must export default defineConfig({ emitters: [...] })`, "generate");
  const named = [];
  for (const file of Array.isArray(files) ? files : []) {
    if (typeof file !== "string") continue;
    const emitter = (await importDefault(file)) as Emitter | undefined;
    if (typeof emitter !== "object" || emitter === null || !Array.isArray(emitter.files)) throw new UsageError(`${file} must export an emitter as its default export`, "generate");
    named.push(emitter);
  }
  return [...(config?.emitters ?? []), ...named];
}

async function importDefault(file: string): Promise<unknown> {
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`, "generate");
  try {
    const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
    return module.default;
  } catch (error) {
    throw new UsageError(`cannot load ${file}: ${error instanceof Error ? error.message : String(error)}`, "generate");
  }
}

/** Runs one command line and returns its exit code; never throws. `emitters` run after the built-in ones in `generate`. */
export function runCli(argv: readonly string[], out: CliOutput, emitters: readonly Emitter[] = []): number {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case "generate":
        return generateCommand(args, out, emitters);
      case "diff":
        return diffCommand(args, out);
      case "update":
        return updateCommand(args, out);
      case "help":
      case "--help":
      case "-h":
        out.stdout(USAGE[args[0] ?? "main"] ?? USAGE["main"]!);
        return 0;
      case undefined:
        throw new UsageError("no command given");
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    return reportError(error, out);
  }
}

/** Prints an error the way its kind deserves and returns the exit code. */
function reportError(error: unknown, out: CliOutput): number {
  if (error instanceof UsageError) {
    const help = error.command ? `acp-codegen ${error.command} --help` : "acp-codegen --help";
    out.stderr(`acp-codegen: ${error.message}\nRun \`${help}\` for usage.\n`);
    return 2;
  }
  if (error instanceof SchemaError) {
    out.stderr(`acp-codegen: ${error.message}\n`);
    return 2;
  }
  if (isFileSystemError(error)) {
    out.stderr(`acp-codegen: cannot use ${error.path}: ${error.code}\n`);
    return 2;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  out.stderr(`acp-codegen: internal error (a bug in acp-codegen; nothing was written):\n${detail}\n`);
  return 3;
}

/** The `--help` option every command has. */
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** Runs `parseArgs`, turning its errors and a wrong argument count into usage errors of `command`. */
function parseCommandArgs<T extends { values: { help?: boolean | undefined }; positionals: string[] }>(command: string, positionals: number, parse: () => T): T {
  let parsed: T;
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    throw new UsageError(`expected ${positionals} argument(s), got ${parsed.positionals.length}`, command);
  }
  return parsed;
}

/** Checks a value against a fixed list of choices. */
function choice<T extends string>(command: string, option: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`--${option} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`, command);
  }
  return value as T;
}

function generateCommand(args: readonly string[], out: CliOutput, emitters: readonly Emitter[]): number {
  const { values } = parseCommandArgs("generate", 0, () =>
    parseArgs({
      args: [...args],
      options: {
        ...HELP_OPTION,
        "schema-dir": { type: "string", default: "schema" },
        out: { type: "string", default: "generated" },
        surface: { type: "string", multiple: true },
        "variant-names": { type: "string" },
        check: { type: "boolean", default: false },
        quiet: { type: "boolean", default: false },
        // Loaded by runCliWithEmitters before this runs.
        emitter: { type: "string", multiple: true },
      },
    }),
  );
  if (values.help) return printHelp("generate", out);
  const allSurfaces = SURFACES.map((s) => s.surface);
  const surfaces = values.surface?.map((s) => choice("generate", "surface", s, allSurfaces));
  const progress = values.quiet ? () => {} : out.stderr;
  const started = performance.now();
  const generated: Surface[] = [];
  const fresh = generate({
    schemaDir: values["schema-dir"],
    ...(surfaces ? { surfaces } : {}),
    ...(values["variant-names"] !== undefined ? { variantNames: values["variant-names"] } : {}),
    emitters,
    onSurface: (surface, millis) => {
      generated.push(surface);
      progress(`acp-codegen: ${surface.padEnd(11)} ${millis.toFixed(0).padStart(5)} ms\n`);
    },
  });
  const outDir = resolve(values.out);
  const warn = (message: string) => out.stderr(`acp-codegen: warning: ${message}\n`);
  // A run killed mid-swap left the output under a sibling name: put it back before reading what other surfaces keep
  // (not under --check, which writes nothing and compares what is there).
  if (!values.check) recoverInterruptedWrites(outDir, warn);
  // Before anything under --out is read: a wrong one (a home directory) is refused, not read whole.
  assertReplaceable(outDir);
  const tree = surfaces ? treeWithOtherSurfaces(outDir, fresh, surfaces) : fresh;
  const summary = () => `${generated.length} surface${generated.length === 1 ? "" : "s"}, ${(performance.now() - started).toFixed(0)} ms`;
  if (values.check) {
    const differences = diffTree(outDir, tree);
    for (const path of differences) out.stdout(`${path}\n`);
    progress(`acp-codegen: ${differences.length ? `${differences.length} file(s) in ${values.out} differ from a fresh run` : `${values.out} is up to date`} (${summary()})\n`);
    return differences.length ? 1 : 0;
  }
  writeTree(outDir, tree, warn);
  progress(`acp-codegen: wrote ${fresh.length} files to ${values.out} (${summary()})\n`);
  return 0;
}

function diffCommand(args: readonly string[], out: CliOutput): number {
  const { values, positionals } = parseCommandArgs("diff", 2, () =>
    parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        ...HELP_OPTION,
        format: { type: "string", default: "text" },
        "fail-on": { type: "string", default: "error" },
        "ignore-unstable": { type: "boolean", default: false },
        surface: { type: "string", multiple: true },
      },
    }),
  );
  if (values.help) return printHelp("diff", out);
  const format: ReportFormat = choice("diff", "format", values.format, REPORT_FORMATS);
  const failOn: FailOn = choice("diff", "fail-on", values["fail-on"], FAIL_ON_LEVELS);
  const surfaces = values.surface?.map((s) => choice("diff", "surface", s, SURFACES.map((x) => x.surface)));
  const report = diffSchemas(positionals[0]!, positionals[1]!, { ignoreUnstable: values["ignore-unstable"], ...(surfaces ? { surfaces } : {}) });
  out.stdout(formatReport(report, format));
  return exitCodeFor(report.findings, failOn);
}

function updateCommand(args: readonly string[], out: CliOutput): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { ...HELP_OPTION, check: { type: "boolean", default: false }, "from-dir": { type: "string" }, "from-tarball": { type: "string" } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message, "update");
  }
  const { values, positionals } = parsed;
  if (values.help) return printHelp("update", out);
  if (positionals.length > 1) throw new UsageError(`expected at most 1 argument (VERSION or latest), got ${positionals.length}`, "update");
  if (values["from-dir"] !== undefined && values["from-tarball"] !== undefined) throw new UsageError("give --from-dir or --from-tarball, not both", "update");
  return runUpdate(
    {
      root: process.cwd(),
      check: values.check,
      env: process.env,
      ...(positionals[0] !== undefined ? { spec: positionals[0] } : {}),
      ...(values["from-dir"] !== undefined ? { fromDir: values["from-dir"] } : {}),
      ...(values["from-tarball"] !== undefined ? { fromTarball: values["from-tarball"] } : {}),
    },
    out,
  );
}

function printHelp(command: string, out: CliOutput): number {
  out.stdout(USAGE[command]!);
  return 0;
}
