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
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
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

/**
 * Replaces `outDir` with exactly `files`. Everything is first written into a
 * sibling staging directory, which is swapped in only once complete, so an
 * error at any point leaves `outDir` as it was.
 */
export function writeTree(outDir: string, files: readonly OutputFile[]): void {
  for (const file of files) assertInside(file.path);
  recoverInterruptedWrites(outDir);
  const staging = siblingPath(outDir, "staging", process.pid);
  const previous = siblingPath(outDir, "previous", process.pid);
  try {
    for (const file of files) {
      const target = join(staging, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
    mkdirSync(staging, { recursive: true });
    if (existsSync(outDir)) renameSync(outDir, previous);
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(outDir) && existsSync(previous)) renameSync(previous, outDir);
    throw error;
  }
  rmSync(previous, { recursive: true, force: true });
}

/**
 * Cleans up after runs that were killed while writing `outDir`: a dead run's
 * staging directory is removed; its `previous` directory is renamed back when
 * `outDir` is missing (killed mid-swap) and removed otherwise (killed after
 * the swap). Directories of runs still alive are left alone.
 */
export function recoverInterruptedWrites(outDir: string): void {
  const parent = dirname(outDir);
  if (!existsSync(parent)) return;
  const pattern = new RegExp(`^${escapeRegExp(basename(outDir))}\\.(staging|previous)-(\\d+)$`);
  for (const name of readdirSync(parent)) {
    const match = pattern.exec(name);
    if (!match || isAlive(Number(match[2]))) continue;
    const leftover = join(parent, name);
    if (match[1] === "previous" && !existsSync(outDir)) renameSync(leftover, outDir);
    else rmSync(leftover, { recursive: true, force: true });
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
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((path) => !path.startsWith(`${BUILD_DIR}/`))
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
