/**
 * Builds and packs acp-bindings the way a release does, and installs the
 * tarball into a copy of this consumer project. Everything happens in a
 * scratch directory: a copy of generated/ beside the root package.json and
 * a link to the root node_modules, so `npm run pack` runs exactly as written
 * and the real generated/ (which must equal a fresh generate) is never built into.
 * Used by test/package.test.ts and bench/budgets.ts.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { PACKAGE_NAME } from "../../generator/emit/package.js";
import { BUILD_DIR } from "../../generator/write.js";

/** The repository root. */
export const ROOT = new URL("../..", import.meta.url).pathname;

/** This consumer project. */
export const CONSUMER_DIR = join(ROOT, "test", "consumer");

/** The output of a finished process. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion (no shell) and returns what it printed. */
export function run(command: string, args: readonly string[], cwd: string): Run {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** Like `run`, but throws with the output when the command fails. */
export function runOk(command: string, args: readonly string[], cwd: string): Run {
  const result = run(command, args, cwd);
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A packed release in a scratch directory. */
export interface Packed {
  /** The scratch directory; remove it with `rmSync(scratch, { recursive: true })`. */
  readonly scratch: string;
  /** The `.tgz` that `npm run pack` wrote. */
  readonly tarball: string;
  /** The tarball's contents, unpacked. */
  readonly packageDir: string;
}

/** Runs `npm run pack` on a copy of generated/, unpacks the tarball, and returns where everything is. */
export function packScratch(): Packed {
  const scratch = mkdtempSync(join(tmpdir(), `${PACKAGE_NAME}-`));
  const builtOutput = join(ROOT, "generated", BUILD_DIR);
  try {
    cpSync(join(ROOT, "generated"), join(scratch, "generated"), { recursive: true, filter: (path) => path !== builtOutput });
    copyFileSync(join(ROOT, "package.json"), join(scratch, "package.json"));
    symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"), "dir");
    runOk("npm", ["run", "--silent", "pack"], scratch);
    const { version } = JSON.parse(readFileSync(join(scratch, "generated", "package.json"), "utf8")) as { version: string };
    const tarball = join(scratch, "packed", `${PACKAGE_NAME}-${version}.tgz`);
    runOk("tar", ["-xzf", tarball, "-C", join(scratch, "packed")], scratch);
    return { scratch, tarball, packageDir: join(scratch, "packed", "package") };
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** Every file in a tarball, relative to the package root, sorted. */
export function tarballFiles(tarball: string): string[] {
  const listing = runOk("tar", ["-tzf", tarball], ROOT).stdout;
  return listing
    .split("\n")
    .filter((line) => line !== "" && !line.endsWith("/"))
    .map((line) => line.replace(/^package\//, ""))
    .sort();
}

/**
 * Copies the consumer project into the scratch directory, with only the
 * program files in `sources` (file names in src/), and installs the tarball
 * into it with npm, offline: the package has no dependencies to fetch.
 */
export function installConsumer(packed: Packed, sources: readonly string[]): string {
  const dir = join(packed.scratch, "consumer");
  const keep = (path: string): boolean => {
    const [top, file] = relative(CONSUMER_DIR, path).split(sep);
    if (top === "node_modules" || top === "out" || top === "harness.ts") return false;
    return top !== "src" || file === undefined || sources.includes(file);
  };
  rmSync(dir, { recursive: true, force: true });
  cpSync(CONSUMER_DIR, dir, { recursive: true, filter: keep });
  runOk("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", packed.tarball], dir);
  return dir;
}

/** The `tsc` of an installed TypeScript package (`typescript`, or an alias such as `typescript-7`). */
export function tscOf(typescriptPackage: string): string {
  return join(ROOT, "node_modules", typescriptPackage, "bin", "tsc");
}

/** The version of an installed TypeScript package. */
export function typescriptVersion(typescriptPackage: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", typescriptPackage, "package.json"), "utf8")) as { version: string }).version;
}
