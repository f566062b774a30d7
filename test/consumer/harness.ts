/**
 * Builds and packs acp-bindings the way a release does, and installs the
 * tarball into a copy of this consumer project. Everything happens in a
 * scratch directory holding a clean checkout (what a release needs of the
 * working tree: package.json, LICENSE, docs/, schema/, generator/, and
 * generated/ without dist/) and a link to the root node_modules, so
 * `npm run pack` and `npm run release` run exactly as written and the real
 * generated/ (which must equal a fresh generate) is never built into.
 * Used by test/package.test.ts and bench/budgets.ts.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { PACKAGE_NAME } from "../../generator/emit/package-layout.js";
import { BUILD_DIR } from "../../generator/output.js";
import { tarballPath } from "../../generator/release.js";
import { afterAll, beforeAll } from "vitest";

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

/** Runs a command to completion (no shell) and returns what it printed; `env` is added to this process's environment. */
export function run(command: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): Run {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
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

/** What a release needs of the working tree, relative to the repository root. */
const CHECKOUT = ["package.json", "package-lock.json", "LICENSE", "docs", "examples", "schema", "generator", "generated"];

/**
 * A scratch copy of the files a release is made from (`CHECKOUT`, without
 * generated/dist/) with a link to the root node_modules. Remove it with
 * `rmSync(dir, { recursive: true })`.
 */
export function cleanCheckout(): string {
  const scratch = mkdtempSync(join(tmpdir(), `${PACKAGE_NAME}-`));
  const builtOutput = join(ROOT, "generated", BUILD_DIR);
  for (const path of CHECKOUT) cpSync(join(ROOT, path), join(scratch, path), { recursive: true, filter: (from) => from !== builtOutput });
  symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"), "dir");
  return scratch;
}

/** Runs `npm run pack` in a clean checkout, unpacks the tarball, and returns where everything is. */
export function packScratch(): Packed {
  const scratch = cleanCheckout();
  try {
    runOk("npm", ["run", "--silent", "pack"], scratch);
    const { version } = JSON.parse(readFileSync(join(scratch, "generated", "package.json"), "utf8")) as { version: string };
    const tarball = join(scratch, tarballPath(version));
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

/**
 * Links dev dependencies of this repository into a consumer (its `node_modules`, and `node_modules/.bin` for
 * their commands), as a user who installed them would have them: the consumer installs offline, from the tarball only.
 */
export function linkDevDependencies(consumer: string, packages: readonly string[]): void {
  for (const name of packages) {
    const target = join(ROOT, "node_modules", name);
    mkdirSync(dirname(join(consumer, "node_modules", name)), { recursive: true });
    symlinkSync(target, join(consumer, "node_modules", name), "dir");
    const manifest = JSON.parse(readFileSync(join(target, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
    const bins = typeof manifest.bin === "string" ? { [name]: manifest.bin } : (manifest.bin ?? {});
    for (const [command, file] of Object.entries(bins)) {
      mkdirSync(join(consumer, "node_modules", ".bin"), { recursive: true });
      symlinkSync(join(target, file), join(consumer, "node_modules", ".bin", command));
    }
  }
}

/**
 * A scratch consumer with the packed package installed, made before the calling file's tests and removed after
 * them: the returned function gives its directory (from the file's tests on).
 */
export function packedConsumer(): () => string {
  let packed: Packed | undefined;
  let consumer = "";
  beforeAll(() => {
    packed = packScratch();
    consumer = installConsumer(packed, []);
  }, 180_000);
  afterAll(() => {
    if (packed) rmSync(packed.scratch, { recursive: true, force: true });
  });
  return () => consumer;
}

/** The `tsc` of an installed TypeScript package (`typescript`, or an alias such as `typescript-7`). */
export function tscOf(typescriptPackage: string): string {
  return join(ROOT, "node_modules", typescriptPackage, "bin", "tsc");
}

/** The version of an installed TypeScript package. */
export function typescriptVersion(typescriptPackage: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", typescriptPackage, "package.json"), "utf8")) as { version: string }).version;
}
