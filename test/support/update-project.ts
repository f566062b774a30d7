/**
 * Scratch acp-codegen checkouts for the tests of `acp-codegen update`: the
 * generator, package files, license and rulebook copied, node_modules linked,
 * a published schema fixture pinned in schema/ with its generated/, all
 * committed in a git repository of their own. Also releases made from the
 * fixtures (a description edited, a variant added), and the stand-ins for the
 * update's install and test commands, so no test installs into the linked
 * node_modules or runs the whole suite from inside itself.
 */
import { REPOSITORY_FILES } from "../../generator/emit/package-layout.js";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { sha256File } from "../../generator/schema-sync.js";
import { SURFACES } from "../../generator/surfaces.js";
import { INSTALL_COMMAND_ENV, TEST_COMMAND_ENV } from "../../generator/update/update.js";
import { TOUCHED_PATHS } from "../../generator/update/transaction.js";
import { ROOT } from "./ir.js";
import { tempDir } from "./temp-dirs.js";

export const FIXTURES = join(ROOT, "test/fixtures/schemas");

/** Runs git in `cwd` as a test user. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=test@example.com", "-c", "user.name=test", ...args], { cwd, encoding: "utf8" });
}

/** Writes `json` as npm and the fixtures do: two-space JSON and a newline. */
function writeJson(file: string, json: unknown): void {
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

/**
 * A checkout pinned at the fixture `schemaVersion` (its tables too), its package at `packageVersion` with the
 * SDK dev dependency `sdkVersion`, generated/ written from it, committed. `withFixtures` copies the fixtures
 * to test/fixtures/schemas, for the README's command as written.
 */
export function pinnedProject(schemaVersion: string, packageVersion: string, sdkVersion: string, withFixtures = false): string {
  const project = tempDir(`update-${schemaVersion}`);
  cpSync(join(ROOT, "generator"), join(project, "generator"), { recursive: true });
  for (const file of ["package.json", "package-lock.json", ...REPOSITORY_FILES]) cpSync(join(ROOT, file), join(project, file));
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
  cpSync(join(FIXTURES, schemaVersion), join(project, "schema"), { recursive: true });
  if (withFixtures) cpSync(FIXTURES, join(project, "test/fixtures/schemas"), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };
  writeJson(join(project, "package.json"), { ...pkg, version: packageVersion, devDependencies: { ...pkg.devDependencies, "@agentclientprotocol/sdk": sdkVersion } });
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as { version: string; packages: Record<string, { version?: string }> };
  lock.version = packageVersion;
  lock.packages[""]!.version = packageVersion;
  writeJson(join(project, "package-lock.json"), lock);
  const generated = spawnSync(process.execPath, ["generator/acp-codegen.js", "generate", "--quiet"], { cwd: project, encoding: "utf8" });
  if (generated.status !== 0) throw new Error(`generate in the scratch project failed: ${generated.stderr}`);
  git(project, "init", "-q");
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", `ACP schema ${schemaVersion}`);
  return project;
}

/** Copies the current reviewed tables into a project's schema/ (a person's uncommitted edits for a new release). */
export function editTablesFor(project: string, version: string): void {
  for (const table of ["variant-names.json", "semantics.json"]) cpSync(join(FIXTURES, version, table), join(project, "schema", table));
}

/**
 * A release made from the fixture `base`: its four schema files, each passed through `edit` (file, parsed
 * schema), and a lock naming `version` with their sha256.
 */
export function madeRelease(base: string, version: string, edit: (file: string, schema: Record<string, any>) => void): string {
  const dir = tempDir(`release-${version}`);
  const files: Record<string, string> = {};
  for (const { file } of SURFACES) {
    cpSync(join(FIXTURES, base, file), join(dir, file));
    const schema = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, any>;
    edit(file, schema);
    writeJson(join(dir, file), schema);
    files[file] = sha256File(join(dir, file));
  }
  writeJson(join(dir, "lock.json"), { package: "@agentclientprotocol/sdk", version, files });
  return dir;
}

/** The environment of an update run: the install command sets package.json's dev dependency, the test command is `test`. */
export function updateEnv(test = "node -e 0"): NodeJS.ProcessEnv {
  const dir = tempDir("install-stand-in");
  const script = join(dir, "set-sdk.mjs");
  writeFileSync(
    script,
    [
      'import { readFileSync, writeFileSync } from "node:fs";',
      'const pkg = JSON.parse(readFileSync("package.json", "utf8"));',
      'pkg.devDependencies["@agentclientprotocol/sdk"] = process.argv[2];',
      'writeFileSync("package.json", `${JSON.stringify(pkg, null, 2)}\\n`);',
    ].join("\n"),
  );
  return { ...process.env, [INSTALL_COMMAND_ENV]: `node ${script} {version}`, [TEST_COMMAND_ENV]: test };
}

/** What one update run printed and returned. */
export interface UpdateRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` through bash in `project`, as a user types it. */
export function shellIn(project: string, command: string, env: NodeJS.ProcessEnv = updateEnv()): UpdateRun {
  const run = spawnSync("bash", ["-c", command], { cwd: project, encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every file under the paths the update may touch, with its bytes. */
export function touchedBytes(project: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const path of TOUCHED_PATHS) {
    const full = join(project, path);
    if (!existsSync(full)) continue;
    if (statSync(full).isFile()) {
      files.set(path, readFileSync(full));
      continue;
    }
    for (const e of readdirSync(full, { recursive: true, withFileTypes: true }).filter((x) => x.isFile())) files.set(relative(project, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name)));
  }
  return files;
}
