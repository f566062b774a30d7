/**
 * The release workflow's diff and changelog, run the way a user runs them by
 * hand (`acp-codegen update` does the same in its changelog step, see
 * test/update.test.ts), in a scratch git project whose committed schema is the
 * 2.0.0 fixture and whose working schema is 2.4.0; and the README's
 * stable-only command. Then the changelog again (in process): a rerun replaces its section.
 */
import { REPOSITORY_FILES } from "../generator/emit/package-layout.js";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { prependSection, runChangelog } from "../generator/changelog.js";
import { documentation } from "./support/documentation.js";
import { ROOT } from "./support/ir.js";
import { tempDir } from "./support/run-cli.js";

const FIXTURES = join(ROOT, "test/fixtures/schemas");
const README = documentation();
const REVIEWED = readFileSync(join(ROOT, "test/fixtures/diff-reports/2.0.0-to-2.4.0.md"), "utf8");

/**
 * The release's diff and changelog commands, by hand (what `acp-codegen update` does in its changelog
 * step): the pinned schemas of git's HEAD against the working ones.
 */
const CHANGELOG_SCRIPT = [
  'old=$(mktemp -d) && git archive HEAD schema | tar -x -C "$old"',
  'npm run changelog -- "$old/schema" && npm run generate',
  'npx acp-codegen diff "$old/schema" schema --fail-on never',
  'npx acp-codegen diff "$old/schema" schema --ignore-unstable',
].join("\n");

/** Runs a shell script, stopping at the first failing command; its `mktemp` makes its directories in a temp dir of ours. */
function bash(script: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync("bash", ["-e", "-c", script], { cwd, encoding: "utf8", env: { ...process.env, TMPDIR: tempDir("release-tmp") } });
}

/** A scratch copy of the project (generator, package.json, LICENSE, rulebook, node_modules linked) with `version`'s schemas committed. */
function scratchProject(version: string): string {
  const project = tempDir("release");
  cpSync(join(ROOT, "generator"), join(project, "generator"), { recursive: true });
  for (const file of ["package.json", ...REPOSITORY_FILES]) cpSync(join(ROOT, file), join(project, file)); // generate ships the repository's files
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
  cpSync(join(FIXTURES, version), join(project, "schema"), { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.email=test@example.com", "-c", "user.name=test", ...args], { cwd: project });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", `ACP schema ${version}`);
  return project;
}

describe("the changelog commands by hand on the 2.0.0 -> 2.4.0 fixture pair", () => {
  // Built before the tests, not while the file is collected: a `-t` filter that selects none of them builds nothing.
  let project = "";
  let step = "";
  let run: ReturnType<typeof bash>;
  let changelog = "";
  beforeAll(() => {
    project = scratchProject("2.0.0");
    rmSync(join(project, "schema"), { recursive: true });
    cpSync(join(FIXTURES, "2.4.0"), join(project, "schema"), { recursive: true });
    step = CHANGELOG_SCRIPT;
    run = bash(step, project);
    changelog = readFileSync(join(project, "schema/CHANGELOG.md"), "utf8");
  });

  it("runs: changelog, generate, the report, and the stable-only check (exit 0: nothing stable breaks)", () => {
    expect(step).toContain('npm run changelog -- "$old/schema" && npm run generate');
    expect(run.stderr).not.toContain("Error");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Breaking (24)");
    expect(run.stdout).toContain("Surfaces: v1; stable protocol only");
  });

  it("schema/CHANGELOG.md starts with the reviewed diff Markdown, rule ids linked to their explanation", () => {
    expect(changelog.startsWith("# Changelog\n\n")).toBe(true);
    expect(changelog.slice(changelog.indexOf("## "))).toBe(REVIEWED);
    expect(changelog).toContain("[accepts less](#acp-2-4-0-constraint-tightened)");
    expect(changelog).toContain('<a id="acp-2-4-0-constraint-tightened"></a>');
  });

  it("generate ships it as the package's CHANGELOG.md, listed in its files", () => {
    expect(readFileSync(join(project, "generated/CHANGELOG.md"), "utf8")).toBe(changelog);
    expect((JSON.parse(readFileSync(join(project, "generated/package.json"), "utf8")) as { files: string[] }).files).toContain("CHANGELOG.md");
  });

  it("a rerun for the same versions replaces its section; older sections stay below", () => {
    const older = "## ACP schema 1.0.0 → 2.0.0 (@agentclientprotocol/sdk)\n\nolder notes\n";
    const stale = "## ACP schema 2.0.0 → 2.4.0 (@agentclientprotocol/sdk)\n\nstale\n";
    writeFileSync(join(project, "schema/CHANGELOG.md"), prependSection(prependSection(undefined, older), stale));
    expect(runChangelog([join(FIXTURES, "2.0.0"), "--schema-dir", join(project, "schema")], () => {})).toBe(0);
    const rerun = readFileSync(join(project, "schema/CHANGELOG.md"), "utf8");
    expect(rerun.split("\n").filter((l) => l.startsWith("## "))).toEqual([REVIEWED.split("\n")[0], older.split("\n")[0]]);
    expect(rerun).not.toContain("stale");
    expect(rerun.endsWith("older notes\n")).toBe(true);
  });

  it("a missing OLD directory is bad input: exit 2, one line", () => {
    let stderr = "";
    expect(runChangelog([join(project, "no-such-dir"), "--schema-dir", join(project, "schema")], (t) => void (stderr += t))).toBe(2);
    expect(stderr).toBe(`changelog: ${join(project, "no-such-dir")}: no such schema directory\n`);
  });
});

describe("the README's stable-only diff command", () => {
  it("exits 0 on 2.0.0 -> 2.4.0 and says nothing stable breaks", () => {
    const command = README.split("\n").find((l) => l.startsWith("npx acp-codegen diff test/fixtures/schemas/2.0.0 test/fixtures/schemas/2.4.0 --ignore-unstable"));
    expect(command).toBeDefined();
    const run = bash(command!, ROOT);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Breaking: 0 changes");
  });
});
