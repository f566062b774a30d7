/**
 * Stage 6 of the pipeline: put the emitted files on disk atomically, or
 * compare them with what is there (`--check`).
 *
 * Safety: files are written into a sibling staging directory that replaces
 * the output directory only once complete. A run killed while staging leaves
 * the output untouched (plus a stale staging directory); a run killed in the
 * instant between the two renames of the swap leaves the old output under a
 * sibling `previous` name. The next write first removes or restores what dead
 * runs left behind (`recoverInterruptedWrites`).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { PACKAGE_NAME } from "./emit/package-layout.js";
import { UsageError } from "./errors.js";
import type { Surface } from "./ir.js";
import { BUILD_DIR, type OutputFile } from "./output.js";
import { SURFACES } from "./surfaces.js";

// Re-exported for the callers of the writer; emitters import them from output.ts.
export { BUILD_DIR, type OutputFile } from "./output.js";

type SiblingKind = "staging" | "previous";

/** `<outDir>.staging-<pid>` / `<outDir>.previous-<pid>`: beside the output, so renames stay on one file system. */
function siblingPath(outDir: string, kind: SiblingKind, pid: number): string {
  return `${outDir}.${kind}-${pid}`;
}

/** Where `writeTree` and `recoverInterruptedWrites` say what they could not clean up (the run itself succeeded). */
export type Warn = (message: string) => void;

/**
 * Replaces `outDir` with exactly `files`. Everything is first written into a
 * sibling staging directory, which is swapped in only once complete, so an
 * error at any point leaves `outDir` as it was. `outDir` must be absent, an
 * empty directory, or what a run wrote before (`assertReplaceable`): it is
 * replaced whole, and the new one holds `OUTPUT_MARKER`. Removing the old output after the swap is not part
 * of the write: if that fails, the new output stays and `warn` says so.
 */
export function writeTree(outDir: string, files: readonly OutputFile[], warn: Warn = () => {}): void {
  for (const file of files) {
    assertInside(file.path);
    if (file.path === OUTPUT_MARKER) throw new Error(`${OUTPUT_MARKER} is the writer's own file: no emitter may write it`);
  }
  recoverInterruptedWrites(outDir, warn);
  assertReplaceable(outDir);
  const staging = siblingPath(outDir, "staging", process.pid);
  const previous = siblingPath(outDir, "previous", process.pid);
  try {
    for (const file of files) {
      const target = join(staging, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, OUTPUT_MARKER), MARKER_TEXT);
    if (existsSync(outDir)) renameSync(outDir, previous);
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(outDir) && existsSync(previous)) renameSync(previous, outDir);
    // A write that fails for want of space names no path: the output directory is the place to name.
    if (typeof (error as NodeJS.ErrnoException).code === "string" && (error as NodeJS.ErrnoException).path === undefined) (error as NodeJS.ErrnoException).path = outDir;
    throw error;
  }
  removeLeftover(previous, warn);
}

/**
 * The file every output directory holds, written by `writeTree` itself (not an
 * emitter's file: `diffTree` and the surfaces' trees leave it out, and the
 * package's `files` list does not ship it). Only a directory that holds it is
 * ever replaced.
 */
export const OUTPUT_MARKER = ".acp-codegen-output";

const MARKER_TEXT = "Written by acp-codegen: `acp-codegen generate` replaces this whole directory on every run. Keep nothing else here.\n";

/**
 * Refuses to replace what is not a previous output: a file, a symbolic link
 * (renaming it would leave its target as it was), or a directory that is not
 * empty and holds no `OUTPUT_MARKER` (nor, written before the marker existed,
 * the package.json of acp-bindings without a `.git`). A wrong `--out` (`.`,
 * `schema`) would otherwise be deleted. The CLI asks before it reads anything
 * under `outDir` (what `--surface` keeps, what `--check` compares).
 */
export function assertReplaceable(outDir: string): void {
  const found = lstatSync(outDir, { throwIfNoEntry: false });
  if (found === undefined) return;
  const refuse = (why: string): never => {
    throw new UsageError(`refusing to replace ${outDir}: ${why}; --out names the directory acp-codegen writes and replaces whole (new, empty, or written by it before)`, "generate");
  };
  if (found.isSymbolicLink()) refuse("it is a symbolic link (give the directory it points to)");
  if (!found.isDirectory()) refuse("it is not a directory");
  if (readdirSync(outDir).length === 0 || existsSync(join(outDir, OUTPUT_MARKER))) return;
  const existing = packageName(existsSync(join(outDir, "package.json")) ? readFileSync(join(outDir, "package.json"), "utf8") : undefined);
  // An output from before the marker: the package.json of acp-bindings, and no repository (a fork of the package is a project).
  if (existing !== PACKAGE_NAME || existsSync(join(outDir, ".git"))) refuse(`it is not empty and holds no ${OUTPUT_MARKER}`);
}

/** The `name` in package.json text, if it has one. */
function packageName(text: string | undefined): string | undefined {
  try {
    const name: unknown = text === undefined ? undefined : (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Removes a directory a write no longer needs; a failure is told to `warn`, not thrown. */
function removeLeftover(path: string, warn: Warn): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (error) {
    warn(`could not remove ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the output is complete: remove it by hand`);
  }
}

/**
 * Cleans up after runs that were killed while writing `outDir`: a dead run's
 * staging directory is removed; its `previous` directory is renamed back when
 * `outDir` is missing (killed mid-swap) and removed otherwise (killed after
 * the swap). Directories of runs still alive are left alone; one that cannot
 * be removed is told to `warn`. Runs before `outDir` is read or written.
 */
export function recoverInterruptedWrites(outDir: string, warn: Warn = () => {}): void {
  const parent = dirname(outDir);
  if (!existsSync(parent)) return;
  const pattern = new RegExp(`^${escapeRegExp(basename(outDir))}\\.(staging|previous)-(\\d+)$`);
  for (const name of readdirSync(parent)) {
    const match = pattern.exec(name);
    if (!match || isAlive(Number(match[2]))) continue;
    const leftover = join(parent, name);
    if (match[1] === "previous" && !existsSync(outDir)) renameSync(leftover, outDir);
    else removeLeftover(leftover, warn);
  }
}

/** Paths (relative to `outDir`) that differ from `files`: changed, missing or extra. */
export function diffTree(outDir: string, files: readonly OutputFile[]): string[] {
  const expected = new Map(files.map((f) => [f.path, f.content]));
  const differences: string[] = [];
  for (const [path, content] of expected) {
    const target = join(outDir, path);
    if (!existsSync(target) || readFileSync(target, "utf8") !== content) differences.push(path);
  }
  for (const path of listFiles(outDir)) if (!expected.has(path)) differences.push(path);
  return differences.sort();
}

/**
 * The complete tree a run restricted to `surfaces` should leave: the fresh
 * files, plus every file already in `outDir` that belongs to another surface
 * (or to no surface) and that the run did not produce. Writing or checking
 * this tree touches only the selected surfaces.
 */
export function treeWithOtherSurfaces(outDir: string, fresh: readonly OutputFile[], surfaces: readonly Surface[]): OutputFile[] {
  const produced = new Set(fresh.map((f) => f.path));
  const kept = listFiles(outDir)
    .filter((path) => !produced.has(path))
    .filter((path) => {
      const owner = surfaceOfOutputPath(path);
      return owner === undefined || !surfaces.includes(owner);
    })
    .map((path) => ({ path, content: readFileSync(join(outDir, path), "utf8") }));
  return [...fresh, ...kept];
}

/** The surface whose directory holds an output path (`src/v2/unstable/x.ts` -> `v2/unstable`), if any. */
export function surfaceOfOutputPath(path: string): Surface | undefined {
  const owners = SURFACES.filter((s) => path.startsWith(`src/${s.surface}/`));
  return owners.sort((a, b) => b.surface.length - a.surface.length)[0]?.surface;
}

function listFiles(dir: string): string[] {
  // Not there, or not a directory (a wrong --out, which the write then refuses): nothing in it to keep or compare.
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((path) => !path.startsWith(`${BUILD_DIR}/`) && path !== OUTPUT_MARKER)
    .sort();
}

/** An output path must stay inside the output directory. */
function assertInside(path: string): void {
  if (isAbsolute(path) || path.split("/").some((segment) => segment === ".." || segment === "")) {
    throw new Error(`output path escapes the output directory: ${JSON.stringify(path)}`);
  }
}

/** True when a process with this id exists (EPERM: it exists but belongs to someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
