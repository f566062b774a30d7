/**
 * `npm run release [-- <npm publish options>]`: publishes acp-bindings as
 * exactly the tarball the tests install. In order:
 *
 * 1. `generate --check`: generated/ must be what `npm run generate` writes
 *    from schema/ (a stale or hand-edited package is not released);
 * 2. `npm run pack`: build dist/, pack generated/ into packed/, remove dist/
 *    (the same command test/package.test.ts installs the consumer from);
 * 3. `npm publish packed/acp-bindings-<version>.tgz <options>`, e.g.
 *    `--dry-run`, `--tag next`, `--otp 123456`. npm publishes a .tgz as it
 *    is and runs no lifecycle script for it, so the bytes published are the
 *    bytes packed (the sha512 printed before publishing is npm's integrity).
 *
 * Exits with the first failing step's exit code.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "./cli.js";
import { PACKAGE_NAME } from "./emit/package-layout.js";

/** Where `npm run pack` writes the tarball, relative to the repository root. */
export const PACKED_DIR = "packed";

/** The tarball `npm run pack` writes for a package version, relative to the repository root. */
export function tarballPath(version: string): string {
  return join(PACKED_DIR, `${PACKAGE_NAME}-${version}.tgz`);
}

/** npm's integrity string of a file: `sha512-` and the base64 digest. */
export function integrityOf(path: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(path)).digest("base64")}`;
}

/** Runs the release from the repository root; returns the exit code. */
function release(publishOptions: readonly string[]): number {
  const out = { stdout: (text: string) => void process.stdout.write(text), stderr: (text: string) => void process.stderr.write(text) };
  if (runCli(["generate", "--check", "--quiet"], out) !== 0) {
    process.stderr.write("release: generated/ is not what `npm run generate` writes from schema/: run it, test, commit, then release\n");
    return 1;
  }
  const pack = spawnSync("npm", ["run", "--silent", "pack"], { stdio: "inherit" });
  if (pack.status !== 0) return pack.status ?? 1;
  const { version } = JSON.parse(readFileSync(join("generated", "package.json"), "utf8")) as { version: string };
  const tarball = tarballPath(version);
  process.stdout.write(`release: publishing ${tarball} (${integrityOf(tarball)})\n`);
  // `./`: without it npm reads `packed/acp-bindings-<v>.tgz` as a GitHub repository shorthand.
  const publish = spawnSync("npm", ["publish", `./${tarball}`, ...publishOptions], { stdio: "inherit" });
  return publish.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = release(process.argv.slice(2));
