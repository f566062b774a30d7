/**
 * All or nothing for `acp-codegen update`: it starts only on a clean tree
 * (git), copies every path it may write before its first write, and puts
 * each back, byte for byte, when a step fails.
 *
 * The reviewed tables (`schema/variant-names.json`, `schema/semantics.json`)
 * are the update's inputs, never written by it: they may hold a person's
 * uncommitted edits for the new release (a new schema's untitled variant or
 * drift fails generation until they do), so they do not count as dirty.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SEMANTICS_FILE } from "../overlay.js";
import { VARIANT_NAMES_FILE } from "../naming.js";
import { UpdateStepError } from "../errors.js";

/** Every path (relative to the project root) the update may write. */
export const TOUCHED_PATHS = ["schema", "generated", "package.json", "package-lock.json"] as const;

/** The reviewed tables: read by the update, never written, so they may differ from git. */
export const REVIEWED_TABLES: readonly string[] = [`schema/${VARIANT_NAMES_FILE}`, `schema/${SEMANTICS_FILE}`];

/** The paths under `TOUCHED_PATHS` that differ from git's HEAD or are untracked (not ignored), reviewed tables left out. */
export function dirtyPaths(root: string): string[] {
  const status = spawnSync("git", ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...TOUCHED_PATHS], { cwd: root, encoding: "utf8" });
  if (status.error || status.status !== 0) {
    throw new UpdateStepError("start", `cannot tell whether ${TOUCHED_PATHS.join(", ")} are committed: \`git status\` failed in ${root}: ${(status.stderr || status.error?.message || "").trim()}`, "run the update in a git checkout of the project");
  }
  const paths = status.stdout.split("\0").filter((entry) => entry.length > 3).map((entry) => entry.slice(3));
  return paths.filter((path) => !REVIEWED_TABLES.includes(path));
}

/** Refuses to start when a path the update writes has changes git does not hold. */
export function assertClean(root: string): void {
  const dirty = dirtyPaths(root);
  if (dirty.length) {
    const shown = dirty.slice(0, 10).join(", ") + (dirty.length > 10 ? `, and ${dirty.length - 10} more` : "");
    throw new UpdateStepError("start", `refusing to start: uncommitted changes in ${shown}`, "commit or discard them (git stash), then run the update again; only the reviewed tables may hold uncommitted edits");
  }
}

/** A copy of the touched paths as they were, to put back. */
export interface Snapshot {
  readonly root: string;
  readonly dir: string;
  /** The touched paths that existed (a path that did not is removed on restore). */
  readonly existed: readonly string[];
}

/** Copies every touched path of `root` into `dir`. */
export function takeSnapshot(root: string, dir: string): Snapshot {
  const existed = TOUCHED_PATHS.filter((path) => existsSync(join(root, path)));
  for (const path of existed) cpSync(join(root, path), join(dir, path), { recursive: true, verbatimSymlinks: true });
  return { root, dir, existed };
}

/** Puts every touched path back as the snapshot holds it; returns the paths restored. */
export function restoreSnapshot(snapshot: Snapshot): string[] {
  for (const path of TOUCHED_PATHS) {
    const target = join(snapshot.root, path);
    rmSync(target, { recursive: true, force: true });
    if (snapshot.existed.includes(path)) cpSync(join(snapshot.dir, path), target, { recursive: true, verbatimSymlinks: true });
  }
  return [...TOUCHED_PATHS];
}
