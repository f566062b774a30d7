/**
 * `acp-codegen update [VERSION | latest]`: from a new ACP release to a tested,
 * versioned, changelogged package, all or nothing. In order:
 *
 *  1. start      refuse a tree whose schema/, generated/, package.json or
 *                package-lock.json git does not hold (transaction.ts);
 *  2. resolve    the version (`latest` asks the registry: `npm view`);
 *  3. fetch      the SDK tarball (`npm pack` into a temp dir), or the schemas
 *                of --from-dir / --from-tarball (source.ts);
 *  4. sync       the four schema files and schema/lock.json;
 *  5. generate   (a new untitled variant or a semantics drift fails here,
 *                naming the table entry to edit);
 *  6. changelog  the diff of the old pinned schemas (git's HEAD) against the
 *                new ones, as a section on top of schema/CHANGELOG.md;
 *  7. version    the step policy.ts chooses from that diff, in package.json
 *                and package-lock.json, then generate again so the package
 *                carries the version and the changelog;
 *  8. dependency the SDK dev dependency of the interop tests, to the same
 *                version (`ACP_CODEGEN_UPDATE_INSTALL`, `{version}` replaced);
 *  9. test       `npm test` (`ACP_CODEGEN_UPDATE_TEST` replaces the command);
 * then a summary. Any failure puts every touched path back, byte for byte,
 * and exits 2 naming the step and what to edit.
 *
 * `--check` changes nothing: exit 1 when the release is newer than the pinned
 * one (with the diff summary and the bump it would make), 0 when not.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHANGELOG_FILE, prependSection } from "../changelog.js";
import { changesOf, inSection } from "../diff/changes.js";
import { diffSchemas, type DiffReport } from "../diff/diff.js";
import { formatReport } from "../diff/format.js";
import { LOCK_FILE, SDK_PACKAGE, syncSchemasFrom } from "../schema-sync.js";
import { chooseBump, compareVersions, nextVersion, type Bump } from "./policy.js";
import { fetchFromRegistry, fromDirectory, fromTarball, resolveVersion, type ReleaseSource } from "./source.js";
import { messageOf, UpdateStepError } from "../errors.js";
import { assertClean, restoreSnapshot, takeSnapshot, type Snapshot } from "./transaction.js";

/** Where the update prints: stdout for the summary, stderr for progress and errors. */
export interface UpdateOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** What `acp-codegen update` was asked. */
export interface UpdateOptions {
  /** The project root (the acp-codegen checkout): schema/, generated/, package.json. */
  readonly root: string;
  /** `latest` (default), a dist-tag or an exact version; with a source on disk, the version it must hold. */
  readonly spec?: string;
  readonly fromDir?: string;
  readonly fromTarball?: string;
  readonly check: boolean;
  /** The environment: `ACP_CODEGEN_UPDATE_TEST` and `ACP_CODEGEN_UPDATE_INSTALL`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The environment variable naming the test step's command (default `npm test`). */
export const TEST_COMMAND_ENV = "ACP_CODEGEN_UPDATE_TEST";
/** The environment variable naming the dependency step's command; `{version}` stands for the version. */
export const INSTALL_COMMAND_ENV = "ACP_CODEGEN_UPDATE_INSTALL";
export const DEFAULT_TEST_COMMAND = "npm test";
export const DEFAULT_INSTALL_COMMAND = `npm install --save-dev --save-exact --no-audit --no-fund ${SDK_PACKAGE}@{version}`;

const SCHEMA = "schema";

/** Runs the update (or the check); returns the exit code and never throws. */
export function runUpdate(options: UpdateOptions, out: UpdateOutput): number {
  const work = mkdtempSync(join(tmpdir(), "acp-codegen-update-"));
  let keepWork = false;
  try {
    return options.check ? check(options, work, out) : update(options, work, out, () => void (keepWork = true));
  } catch (error) {
    if (!(error instanceof UpdateStepError)) throw error;
    out.stderr(`acp-codegen update: step ${error.step} failed: ${error.message}\n  to do: ${error.fix}\n`);
    return 2;
  } finally {
    if (!keepWork) rmSync(work, { recursive: true, force: true });
  }
}

/** The release the options name, on disk under `work`. */
function obtainRelease(options: UpdateOptions, work: string, progress: (line: string) => void): ReleaseSource {
  const dir = join(work, "release");
  mkdirSync(dir);
  if (options.fromDir !== undefined || options.fromTarball !== undefined) {
    const source = options.fromDir !== undefined ? fromDirectory(options.fromDir) : fromTarball(options.fromTarball!, dir);
    const wanted = options.spec;
    if (wanted !== undefined && wanted !== "latest" && wanted !== source.version) {
      throw new UpdateStepError("resolve", `${source.origin} holds ${SDK_PACKAGE} ${source.version}, not ${wanted}`, `name the version it holds, or none`);
    }
    progress(`fetch: ${SDK_PACKAGE} ${source.version} from ${source.origin}`);
    return source;
  }
  const version = resolveVersion(options.spec ?? "latest");
  progress(`resolve: ${SDK_PACKAGE}@${options.spec ?? "latest"} is ${version}`);
  const source = fetchFromRegistry(version, dir);
  progress(`fetch: npm pack ${SDK_PACKAGE}@${version}`);
  return source;
}

/** The SDK version schema/lock.json pins. */
function pinnedVersion(root: string): string {
  const file = join(root, SCHEMA, LOCK_FILE);
  try {
    const { version } = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
    if (typeof version === "string") return version;
  } catch (error) {
    throw new UpdateStepError("resolve", `cannot read ${file}: ${messageOf(error)}`, `restore ${SCHEMA}/${LOCK_FILE} from git`);
  }
  throw new UpdateStepError("resolve", `${file} names no version`, `restore ${SCHEMA}/${LOCK_FILE} from git`);
}

function readPackageJson(root: string): { version: string; devDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; devDependencies?: Record<string, string> };
}

function check(options: UpdateOptions, work: string, out: UpdateOutput): number {
  const progress = (line: string) => out.stderr(`acp-codegen update --check: ${line}\n`);
  const source = obtainRelease(options, work, progress);
  const pinned = pinnedVersion(options.root);
  if (compareVersions(source.version, pinned) <= 0) {
    out.stdout(`acp-codegen update --check: up to date: schema/ pins ${SDK_PACKAGE} ${pinned}; ${source.origin} has ${source.version}\n`);
    return 0;
  }
  const report = diffSchemas(join(options.root, SCHEMA), source.schemaDir);
  const bump = chooseBump(report);
  const current = readPackageJson(options.root).version;
  const next = nextVersion(current, bump.level);
  const text = formatReport(report, "text").split("\n");
  const summaryEnd = text.indexOf("", text.indexOf("Summary"));
  out.stdout(
    [
      `acp-codegen update --check: ${SDK_PACKAGE} ${source.version} is newer than the pinned ${pinned}`,
      ...text.slice(0, summaryEnd === -1 ? undefined : summaryEnd).map((l) => `  ${l}`),
      `  bump: ${describeBump(bump, next.step)}: ${current} -> ${next.version}`,
      `Run \`npx acp-codegen update ${source.version}\` to take it.`,
      "",
    ].join("\n"),
  );
  return 1;
}

/** `minor (reason)`, saying so when a major takes the minor step under 1.0.0. */
function describeBump(bump: Bump, step: Bump["level"]): string {
  const under1 = step !== bump.level ? `; under 1.0.0 a ${bump.level} takes the ${step} step` : "";
  return `${step} (${bump.reason}${under1})`;
}

/** What a successful update did, for the summary. */
interface Done {
  readonly pinned: string;
  readonly source: ReleaseSource;
  readonly report: DiffReport;
  readonly bump: Bump;
  readonly versions: { readonly from: string; readonly to: string; readonly step: Bump["level"] };
  readonly section: string;
  readonly dependency: string;
  readonly testCommand: string;
}

function update(options: UpdateOptions, work: string, out: UpdateOutput, keepWork: () => void): number {
  const progress = (line: string) => out.stderr(`acp-codegen update: ${line}\n`);
  const { root } = options;
  assertClean(root);
  const source = obtainRelease(options, work, progress);
  const pinned = pinnedVersion(root);
  const order = compareVersions(source.version, pinned);
  if (order < 0) throw new UpdateStepError("resolve", `${source.version} is older than the pinned ${pinned}`, `name a release after ${pinned}`);
  if (order === 0) {
    out.stdout(`acp-codegen update: schema/ already pins ${SDK_PACKAGE} ${pinned}; nothing to do\n`);
    return 0;
  }
  const old = oldPinnedSchemas(root, join(work, "old"));
  const snapshot = takeSnapshot(root, join(work, "before"));
  const state = { installed: false, oldDependency: readPackageJson(root).devDependencies?.[SDK_PACKAGE] };
  try {
    const done = applyRelease(options, source, pinned, old, progress, state);
    out.stdout(summary(done));
    return 0;
  } catch (error) {
    const step = error instanceof UpdateStepError ? error : new UpdateStepError("internal", `a bug in acp-codegen: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, "report it");
    rollBack(snapshot, options, state, out, keepWork);
    throw step;
  }
}

/** The schema/ directory of git's HEAD (the pinned schemas and the reviewed tables they were generated with). */
function oldPinnedSchemas(root: string, dir: string): string {
  mkdirSync(dir);
  const archive = spawnSync("git", ["archive", "--format=tar", "HEAD", SCHEMA], { cwd: root, maxBuffer: 1024 * 1024 * 1024 });
  const untar = archive.status === 0 ? spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout }) : archive;
  if (archive.error || archive.status !== 0 || untar.status !== 0) {
    throw new UpdateStepError("start", `cannot read ${SCHEMA}/ at git's HEAD: ${String(archive.stderr ?? untar.stderr ?? "").trim()}`, "run the update in a git checkout with a commit");
  }
  return join(dir, SCHEMA);
}

/** Steps 4 to 9; throws the first step's failure. */
function applyRelease(options: UpdateOptions, source: ReleaseSource, pinned: string, old: string, progress: (line: string) => void, state: { installed: boolean }): Done {
  const { root } = options;
  syncSchemasFrom(source.schemaDir, source.version, join(root, SCHEMA));
  progress(`sync: ${SCHEMA}/ holds the four schema files of ${source.version} and ${SCHEMA}/${LOCK_FILE}`);
  runGenerate(root, "generate");
  progress("generate: the reviewed tables cover the new schemas");
  const report = diffSchemas(old, join(root, SCHEMA));
  const section = formatReport(report, "markdown");
  const changelog = join(root, SCHEMA, CHANGELOG_FILE);
  writeFileSync(changelog, prependSection(existsSync(changelog) ? readFileSync(changelog, "utf8") : undefined, section));
  progress(`changelog: ${SCHEMA}/${CHANGELOG_FILE} starts with "${section.slice(3, section.indexOf("\n"))}"`);
  const bump = chooseBump(report);
  const from = readPackageJson(root).version;
  const next = nextVersion(from, bump.level);
  setPackageVersion(root, next.version);
  runGenerate(root, "version");
  progress(`version: ${from} -> ${next.version} (${next.step}); generated/ regenerated with it and the changelog`);
  const dependency = updateDependency(options, source.version, state);
  progress(`dependency: ${dependency}`);
  const testCommand = options.env[TEST_COMMAND_ENV] ?? DEFAULT_TEST_COMMAND;
  runShell("test", testCommand, root, options.env, "the failing tests are named in the output above: fix the generator or a reviewed table, then run the update again");
  progress(`test: \`${testCommand}\` passed`);
  return { pinned, source, report, bump, versions: { from, to: next.version, step: next.step }, section, dependency, testCommand };
}

/** Runs `acp-codegen generate` of the project in `root` as its own process (the generator reads its version at start). */
function runGenerate(root: string, step: string): void {
  const bin = join(root, "generator", "acp-codegen.js");
  const run = spawnSync(process.execPath, [bin, "generate", "--quiet"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) {
    const said = (run.stderr || run.stdout || run.error?.message || "").trim();
    throw new UpdateStepError(step, `\`acp-codegen generate\` exited ${run.status ?? run.signal}:\n    ${said.split("\n").join("\n    ")}`, "edit the table entry the message names (schema/variant-names.json, schema/semantics.json), then run the update again");
  }
}

/** Writes `version` into package.json and package-lock.json (npm's own layout: two-space JSON and a newline). */
function setPackageVersion(root: string, version: string): void {
  const write = (file: string, edit: (json: Record<string, unknown>) => void) => {
    const path = join(root, file);
    if (!existsSync(path)) return;
    const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    edit(json);
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
  };
  write("package.json", (json) => void (json["version"] = version));
  write("package-lock.json", (json) => {
    json["version"] = version;
    const self = (json["packages"] as Record<string, Record<string, unknown>> | undefined)?.[""];
    if (self) self["version"] = version;
  });
}

/** Installs the SDK dev dependency at `version` unless package.json already names it; says what it did. */
function updateDependency(options: UpdateOptions, version: string, state: { installed: boolean }): string {
  const declared = readPackageJson(options.root).devDependencies?.[SDK_PACKAGE];
  if (declared === undefined) return `package.json has no ${SDK_PACKAGE} dev dependency; nothing installed`;
  if (declared === version) return `${SDK_PACKAGE} ${version} is the dev dependency already`;
  state.installed = true;
  runShell("dependency", installCommand(options.env, version), options.root, options.env, `install ${SDK_PACKAGE}@${version} by hand to see why (package.json devDependencies), then run the update again`);
  const now = readPackageJson(options.root).devDependencies?.[SDK_PACKAGE];
  if (now !== version) throw new UpdateStepError("dependency", `after the install, package.json names ${SDK_PACKAGE} ${now ?? "(none)"}, not ${version}`, `check the install command (${INSTALL_COMMAND_ENV})`);
  return `${SDK_PACKAGE} ${declared} -> ${version} (the interop tests' SDK)`;
}

function installCommand(env: UpdateOptions["env"], version: string): string {
  return (env[INSTALL_COMMAND_ENV] ?? DEFAULT_INSTALL_COMMAND).replaceAll("{version}", version);
}

/** Runs a shell command in `root`; a failure is an error of `step` with the output's last lines. */
function runShell(step: string, command: string, root: string, env: UpdateOptions["env"], fix: string): void {
  const run = spawnSync(command, { cwd: root, shell: true, encoding: "utf8", env: { ...env }, maxBuffer: 1024 * 1024 * 1024 });
  if (run.status !== 0) {
    const tail = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim().split("\n").slice(-30).join("\n    ");
    throw new UpdateStepError(step, `\`${command}\` exited ${run.status ?? run.signal ?? run.error?.message}${tail ? `; its last lines:\n    ${tail}` : ""}`, fix);
  }
}

/** Puts everything back: the SDK dependency first (its install rewrites package files), then every touched path. */
function rollBack(snapshot: Snapshot, options: UpdateOptions, state: { installed: boolean; oldDependency?: string | undefined }, out: UpdateOutput, keepWork: () => void): void {
  try {
    if (state.installed && state.oldDependency !== undefined) {
      const back = spawnSync(installCommand(options.env, state.oldDependency), { cwd: options.root, shell: true, encoding: "utf8", env: { ...options.env } });
      if (back.status !== 0) out.stderr(`acp-codegen update: warning: reinstalling ${SDK_PACKAGE}@${state.oldDependency} failed; after the restore, run \`npm ci\`\n`);
    }
    const restored = restoreSnapshot(snapshot);
    out.stderr(`acp-codegen update: restored ${restored.join(", ")} as they were; nothing changed\n`);
  } catch (error) {
    keepWork();
    out.stderr(`acp-codegen update: could not restore (${messageOf(error)}); the copies taken before the update are in ${snapshot.dir}\n`);
  }
}

/** The closing summary: versions, bump and why, counts, the changelog, what to review. */
function summary(done: Done): string {
  const changes = changesOf(done.report);
  const count = (section: "breaking" | "new" | "other") => inSection(changes, section).length;
  const title = done.section.slice(3, done.section.indexOf("\n"));
  return [
    `acp-codegen update: ${SDK_PACKAGE} ${done.pinned} -> ${done.source.version} (from ${done.source.origin})`,
    `  version:    ${done.versions.from} -> ${done.versions.to}, ${describeBump(done.bump, done.versions.step)}`,
    `  changes:    ${count("breaking")} breaking, ${count("new")} new, ${count("other")} other`,
    `  changelog:  ${SCHEMA}/${CHANGELOG_FILE} ("${title}"), shipped as generated/${CHANGELOG_FILE}`,
    `  dependency: ${done.dependency}`,
    `  tests:      \`${done.testCommand}\` passed`,
    "Review before committing:",
    `  - the Breaking section of ${SCHEMA}/${CHANGELOG_FILE}: each entry says who breaks (wire, API) and on which surface; the bump follows from it`,
    `  - git diff ${SCHEMA}/variant-names.json ${SCHEMA}/semantics.json: the names and rules you gave the new release`,
    "  - git diff --stat generated/ and generated/README.md: the new and changed types, the SDK differences, the versions",
    `Then: git add package.json package-lock.json ${SCHEMA} generated && git commit -m "ACP schema ${done.source.version}", and release (npm run release).`,
    "",
  ].join("\n");
}
