/**
 * Stage 6 of the pipeline: put the emitted files on disk atomically, or
 * compare them with what is there (`--check`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** One output file, path relative to the output directory (always `/`-separated). */
export interface OutputFile {
  readonly path: string;
  readonly content: string;
}

/**
 * Replaces `outDir` with exactly `files`. Everything is first written into a
 * sibling temporary directory, which is swapped in only once complete, so an
 * error at any point leaves `outDir` as it was.
 */
export function writeTree(outDir: string, files: readonly OutputFile[]): void {
  const staging = `${outDir}.staging-${process.pid}`;
  const previous = `${outDir}.previous-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const file of files) {
      const target = join(staging, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
    if (existsSync(outDir)) renameSync(outDir, previous);
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(outDir) && existsSync(previous)) renameSync(previous, outDir);
    throw error;
  }
  rmSync(previous, { recursive: true, force: true });
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

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"));
}
