/** Throw-away directories for tests, removed when their test file ends (test/support/setup.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directories `tempDir` made in this test file and has not removed yet. */
const madeDirs: string[] = [];

/** A fresh empty directory under the OS temp dir, removed by `removeTempDirs` after the test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `acp-codegen-${prefix}-`));
  madeDirs.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made so far, with all it holds. */
export function removeTempDirs(): void {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
