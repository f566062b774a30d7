/** Runs the CLI in-process and builds throw-away schema and output directories for CLI tests. */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { runCli } from "../../generator/cli.js";
import { OUTPUT_MARKER } from "../../generator/write.js";
import { SCHEMA_DIR } from "./ir.js";
import { tempDir } from "./temp-dirs.js";

/** What one CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `acp-codegen ...argv` in this process. */
export function cli(...argv: string[]): CliRun {
  let stdout = "";
  let stderr = "";
  const code = runCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

export { tempDir };

/** Writes `files` (path -> text) under `dir` and returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/**
 * A schema directory with only the v2 surface: the pinned `v2/schema.json`
 * with `extraDefs` added (or `text` as the whole file), and the pinned
 * reviewed tables, but no lock (the file is edited on purpose).
 */
export function pinnedV2With(extraDefs: Record<string, unknown>, text?: string): string {
  const dir = tempDir("schema");
  const pinned = JSON.parse(readFileSync(join(SCHEMA_DIR, "v2/schema.json"), "utf8")) as { $defs: Record<string, unknown> };
  const schema = { ...pinned, $defs: { ...pinned.$defs, ...extraDefs } };
  writeFiles(dir, { "v2/schema.json": text ?? JSON.stringify(schema, null, 2) });
  for (const table of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith(".json") && name !== "lock.json")) {
    copyFileSync(join(SCHEMA_DIR, table), join(dir, table));
  }
  return dir;
}

/** Every file under `dir` (path -> content), or an empty map when `dir` is missing. */
export function snapshotTree(dir: string): Map<string, string> {
  if (!existsSync(dir)) return new Map();
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(entries.map((e) => [relative(dir, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name), "utf8")]));
}

/**
 * An output directory that already holds a recognisable previous generation,
 * inside a temp dir of its own, so that the staging and previous directories
 * a run makes beside it go with that temp dir.
 */
export function previousOutput(): string {
  return writeFiles(join(tempDir("out"), "out"), { "src/v2/index.ts": "// previous generation\n", "README.md": "kept\n", [OUTPUT_MARKER]: "written by a previous run\n" });
}
