/**
 * `acp-codegen update` (issue 32), offline from the published schema
 * fixtures, in scratch checkouts (test/support/update-project.ts): a checkout
 * pinned at 2.0.0 updated to 2.4.0 ends with exactly the committed schema/,
 * generated/ and package.json, and a changelog section equal to the reviewed
 * diff report; the version policy on 1.0.0 -> 2.0.0, 2.0.0 -> 2.4.0 and a
 * descriptions-only release; every failure path puts the tree back byte for
 * byte; `--check` exit codes; the registry path once, skipped when the
 * registry cannot be reached. The update's test step runs a stand-in command
 * (ACP_CODEGEN_UPDATE_TEST), never `npm test`, which would run this file again.
 * Also the diff report titles of unpacked SDK packages (no machine paths).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { diffSchemas } from "../generator/diff/diff.js";
import { chooseBump, nextVersion } from "../generator/update/policy.js";
import { ROOT } from "./support/ir.js";
import { tempDir } from "./support/temp-dirs.js";
import { editTablesFor, FIXTURES, madeRelease, pinnedProject, shellIn, touchedBytes, updateEnv } from "./support/update-project.js";
import { parseYamlSubset } from "./support/yaml-subset.js";

const REVIEWED = readFileSync(join(ROOT, "test/fixtures/diff-reports/2.0.0-to-2.4.0.md"), "utf8");
/** The README's update from the 2.4.0 fixture, as written (run in a checkout holding the fixtures). */
const FROM_DIR_COMMAND = "npx acp-codegen update --from-dir test/fixtures/schemas/2.4.0";
const CHECK_COMMAND = "npx acp-codegen update --check latest";
const UPDATE = `node generator/acp-codegen.js update`;

/** Files of two trees (path -> bytes) that differ or exist on one side only. */
function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => !(a.get(k) && b.get(k) && a.get(k)!.equals(b.get(k)!))).sort();
}

describe("a checkout pinned at 2.0.0, updated to 2.4.0 with --from-dir", () => {
  let project = "";
  let before = new Map<string, Buffer>();
  let drift: ReturnType<typeof shellIn>;
  let run: ReturnType<typeof shellIn>;
  beforeAll(() => {
    // 0.0.1: the minor step the policy takes for 2.0.0 -> 2.4.0 leads to 0.1.0, the committed version.
    project = pinnedProject("2.0.0", "0.0.1", "2.0.0", true);
    before = touchedBytes(project);
    // First without the reviewed tables for 2.4.0: generation fails on the drift.
    drift = shellIn(project, FROM_DIR_COMMAND);
    editTablesFor(project, "2.4.0");
    run = shellIn(project, FROM_DIR_COMMAND);
  });

  it("without the tables edited for 2.4.0: fails at generate naming the table, and puts everything back", () => {
    expect(drift.code).toBe(2);
    expect(drift.stderr).toMatch(/step generate failed: .*semantics\.json|step generate failed: [^]*variant-names\.json/);
    expect(drift.stderr).toContain("to do: edit the table entry");
    expect(drift.stderr).toContain("restored schema, generated, package.json, package-lock.json as they were");
  });

  it("with them: exits 0 and prints the versions, the bump and why, the counts, the changelog and what to review", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("acp-codegen update: @agentclientprotocol/sdk 2.0.0 -> 2.4.0 (from test/fixtures/schemas/2.4.0)");
    expect(run.stdout).toContain("version:    0.0.1 -> 0.1.0, minor (nothing stable breaks; 24 breaks of the drafts");
    expect(run.stdout).toMatch(/changes: {4}24 breaking, \d+ new, \d+ other/);
    expect(run.stdout).toContain("changelog:  schema/CHANGELOG.md");
    expect(run.stdout).toContain("dependency: @agentclientprotocol/sdk 2.0.0 -> 2.4.0");
    expect(run.stdout).toContain("Review before committing:");
    expect(run.stderr.split("\n").filter((l) => l.startsWith("acp-codegen update: ")).map((l) => l.split(":")[1]!.trim())).toEqual(["fetch", "sync", "generate", "changelog", "version", "dependency", "test"]);
  });

  it("schema/, generated/ and package.json are exactly the committed ones, plus the changelog", () => {
    const after = touchedBytes(project);
    const committed = touchedBytes(ROOT);
    expect(differing(after, committed)).toEqual(["generated/CHANGELOG.md", "generated/package.json", "schema/CHANGELOG.md"]);
    // generated/package.json lists the changelog it ships; nothing else differs.
    const pkg = JSON.parse(after.get("generated/package.json")!.toString()) as { files: string[] };
    expect(pkg.files.at(-1)).toBe("CHANGELOG.md");
    expect({ ...pkg, files: pkg.files.slice(0, -1) }).toEqual(JSON.parse(committed.get("generated/package.json")!.toString()));
    // package.json and package-lock.json are the committed ones: version 0.1.0, the SDK dev dependency 2.4.0.
    expect(JSON.parse(after.get("package.json")!.toString())).toMatchObject({ version: "0.1.0", devDependencies: { "@agentclientprotocol/sdk": "2.4.0" } });
    expect(after.get("generated/CHANGELOG.md")!.equals(after.get("schema/CHANGELOG.md")!)).toBe(true);
    expect(before.size).toBeGreaterThan(0);
  });

  it("the changelog section is the reviewed diff report of 2.0.0 -> 2.4.0", () => {
    const changelog = readFileSync(join(project, "schema/CHANGELOG.md"), "utf8");
    expect(changelog.startsWith("# Changelog\n\n")).toBe(true);
    expect(changelog.slice(changelog.indexOf("## "))).toBe(REVIEWED);
  });
});

describe("the version policy", () => {
  const bumpOf = (a: string, b: string) => chooseBump(diffSchemas(join(FIXTURES, a), join(FIXTURES, b)));

  it("1.0.0 -> 2.0.0 breaks the stable protocol: major", () => {
    const bump = bumpOf("1.0.0", "2.0.0");
    expect(bump.level).toBe("major");
    expect(bump.reason).toMatch(/^74 breaks of the stable protocol \(v1\) on the wire or in the API, e\.g\. /);
  });

  it("2.0.0 -> 2.4.0 breaks only drafts and adds: minor", () => {
    const bump = bumpOf("2.0.0", "2.4.0");
    expect(bump.level).toBe("minor");
    expect(bump.reason).toMatch(/^nothing stable breaks; 24 breaks of the drafts/);
  });

  it("a release that changes descriptions only: patch", () => {
    const release = madeRelease("2.4.0", "2.4.1", describeAgentRequestAnew);
    expect(chooseBump(diffSchemas(join(FIXTURES, "2.4.0"), release))).toEqual({ level: "patch", reason: "no type, method or field changed (descriptions only)" });
  });

  it("an addition alone (a new type): minor", () => {
    const release = madeRelease("2.4.0", "2.5.0", (_file, schema) => void (schema["$defs"]["BrandNewThing"] = { type: "object", properties: { a: { type: "string" } } }));
    expect(chooseBump(diffSchemas(join(FIXTURES, "2.4.0"), release)).level).toBe("minor");
  });

  it("the step: a major takes the minor step under 1.0.0; from 1.0.0 on each level is its own step", () => {
    expect(nextVersion("0.1.0", "major")).toEqual({ version: "0.2.0", step: "minor" });
    expect(nextVersion("0.1.0", "minor")).toEqual({ version: "0.2.0", step: "minor" });
    expect(nextVersion("0.1.0", "patch")).toEqual({ version: "0.1.1", step: "patch" });
    expect(nextVersion("1.4.2", "major")).toEqual({ version: "2.0.0", step: "major" });
    expect(nextVersion("1.4.2", "minor")).toEqual({ version: "1.5.0", step: "minor" });
    expect(nextVersion("1.4.2", "patch")).toEqual({ version: "1.4.3", step: "patch" });
  });
});

/** A descriptions-only change: AgentRequest's description on every surface. */
function describeAgentRequestAnew(_file: string, schema: Record<string, any>): void {
  schema["$defs"]["AgentRequest"]["description"] = "A JSON-RPC request object, described anew.";
}

/** A new untitled variant: BackgroundWork (v2/unstable) gains a `watcher` branch with no title. */
function addUntitledVariant(file: string, schema: Record<string, any>): void {
  if (file !== "v2/schema.unstable.json") return;
  const union = schema["$defs"]["BackgroundWork"]["anyOf"] as Record<string, any>[];
  const watcher = structuredClone(union[0]!);
  watcher["properties"]["type"]["const"] = "watcher";
  union.splice(1, 0, watcher);
}

describe("a checkout pinned at 2.4.0", () => {
  let project = "";
  beforeAll(() => {
    project = pinnedProject("2.4.0", "1.2.3", "2.4.0");
  });

  /** Runs `update ...args`, expecting a failure that leaves the tree as it was; returns stderr. */
  const failsAndRestores = (args: string, env = updateEnv()) => {
    const before = touchedBytes(project);
    const run = shellIn(project, `${UPDATE} ${args}`, env);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(differing(touchedBytes(project), before)).toEqual([]);
    return run.stderr;
  };

  it("a new untitled variant: fails at generate naming the table entry to add; restored byte for byte", () => {
    const release = madeRelease("2.4.0", "2.5.0", addUntitledVariant);
    const stderr = failsAndRestores(`--from-dir ${release}`);
    expect(stderr).toContain("step generate failed");
    expect(stderr).toMatch(/untitled variant "watcher" of BackgroundWork has no name: add "BackgroundWork": \{ "watcher": "<TypeName>" \} to .*schema\/variant-names\.json/);
    expect(stderr).toContain("restored schema, generated, package.json, package-lock.json as they were; nothing changed");
  });

  it("a failing test step: fails at test with its output; the SDK dependency and every file are put back", () => {
    const release = madeRelease("2.4.0", "2.4.1", describeAgentRequestAnew);
    const stderr = failsAndRestores(`--from-dir ${release}`, updateEnv(`node -e "console.log('1 test failed: golden'); process.exit(3)"`));
    expect(stderr).toContain("step test failed");
    expect(stderr).toContain("exited 3; its last lines:\n    1 test failed: golden");
    // It had got that far: generated and versioned before the test failed.
    expect(stderr).toContain("version: 1.2.3 -> 1.2.4 (patch)");
    expect(stderr).toContain("dependency: @agentclientprotocol/sdk 2.4.0 -> 2.4.1");
  });

  it("an unreadable tarball: fails at fetch, nothing touched", () => {
    const file = join(tempDir("tarball"), "sdk.tgz");
    writeFileSync(file, "not a tarball");
    const stderr = failsAndRestores(`--from-tarball ${file}`);
    expect(stderr).toMatch(/step fetch failed: `tar -xzf .*sdk\.tgz -C .*` exited/);
    expect(stderr).toContain("must be an @agentclientprotocol/sdk tarball as `npm pack` writes it");
  });

  it.each([["generated/README.md"], ["package.json"], ["schema/v2/schema.json"]])("a dirty tree (%s): refuses to start, changes nothing", (path) => {
    const file = join(project, path);
    const original = readFileSync(file);
    writeFileSync(file, Buffer.concat([original, Buffer.from("\n")]));
    try {
      const stderr = failsAndRestores(`--from-dir ${madeRelease("2.4.0", "2.4.1", describeAgentRequestAnew)}`);
      expect(stderr).toContain(`step start failed: refusing to start: uncommitted changes in ${path}`);
      expect(stderr).not.toContain("restored");
    } finally {
      writeFileSync(file, original);
    }
  });

  it("a descriptions-only release (from a tarball): patch, 1.2.3 -> 1.2.4; a rerun has nothing to do", () => {
    const release = madeRelease("2.4.0", "2.4.1", describeAgentRequestAnew);
    const packed = tempDir("packed");
    mkdirSync(join(packed, "package"));
    cpSync(release, join(packed, "package/schema"), { recursive: true });
    writeFileSync(join(packed, "package/package.json"), JSON.stringify({ name: "@agentclientprotocol/sdk", version: "2.4.1" }));
    const tarball = join(packed, "sdk-2.4.1.tgz");
    expect(spawnSync("tar", ["-czf", tarball, "-C", packed, "package"]).status).toBe(0);
    const run = shellIn(project, `${UPDATE} 2.4.1 --from-tarball ${tarball}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("version:    1.2.3 -> 1.2.4, patch (no type, method or field changed (descriptions only))");
    expect(run.stdout).toContain("changes:    0 breaking, 0 new, 0 other");
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8"))).toMatchObject({ version: "1.2.4", devDependencies: { "@agentclientprotocol/sdk": "2.4.1" } });
    expect(readFileSync(join(project, "generated/src/v1/index.ts"), "utf8")).toMatch(/^\/\/ Generated by acp-codegen 1\.2\.4 /);
    const again = shellIn(project, `git add -A && git -c user.email=t@e -c user.name=t commit -qm 2.4.1 && ${UPDATE} --from-tarball ${tarball}`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("schema/ already pins @agentclientprotocol/sdk 2.4.1; nothing to do");
  });
});

describe("update --check", () => {
  let pinned200 = "";
  let pinned240 = "";
  beforeAll(() => {
    pinned200 = pinnedProject("2.0.0", "0.1.0", "2.0.0");
    pinned240 = pinnedProject("2.4.0", "0.1.0", "2.4.0");
  });

  it("exits 1 on a newer release, printing the diff summary and the bump; changes nothing", () => {
    const before = touchedBytes(pinned200);
    const run = shellIn(pinned200, `${UPDATE} --check --from-dir ${join(FIXTURES, "2.4.0")}`);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("@agentclientprotocol/sdk 2.4.0 is newer than the pinned 2.0.0");
    expect(run.stdout).toContain("  Summary\n    Breaking: 24 changes");
    expect(run.stdout).toContain("  bump: minor (nothing stable breaks; 24 breaks of the drafts");
    expect(run.stdout).toContain(": 0.1.0 -> 0.2.0\nRun `npx acp-codegen update 2.4.0` to take it.");
    expect(differing(touchedBytes(pinned200), before)).toEqual([]);
  });

  it("exits 0 when the release is not newer", () => {
    const run = shellIn(pinned240, `${UPDATE} --check --from-dir ${join(FIXTURES, "2.4.0")}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("up to date: schema/ pins @agentclientprotocol/sdk 2.4.0");
  });

  it("exits 2 when the release cannot be read", () => {
    const run = shellIn(pinned240, `${UPDATE} --check --from-dir ${join(tempDir("empty"), "nothing")}`);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("step fetch failed: no such directory");
  });

  it(`${CHECK_COMMAND}: the registry's newest release against 2.0.0 (skipped when the registry cannot be reached)`, (ctx) => {
    const view = spawnSync("npm", ["view", "@agentclientprotocol/sdk", "version"], { encoding: "utf8", timeout: 60_000 });
    if (view.status !== 0) {
      ctx.skip(`the npm registry cannot be reached (npm view exited ${view.status ?? view.signal}: ${(view.stderr || "").trim().split("\n").pop()})`);
      return;
    }
    const run = shellIn(pinned200, CHECK_COMMAND);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/resolve: @agentclientprotocol\/sdk@latest is \d+\.\d+\.\d+/);
    expect(run.stdout).toMatch(/@agentclientprotocol\/sdk \d+\.\d+\.\d+ is newer than the pinned 2\.0\.0/);
    expect(run.stdout).toMatch(/ bump: (major|minor|patch) \(/);
  }, 180_000);
});

describe("the scheduled workflow .github/workflows/schema-update.yml", () => {
  const workflow = parseYamlSubset(readFileSync(join(ROOT, ".github/workflows/schema-update.yml"), "utf8")) as Record<string, any>;

  it("runs weekly and on demand", () => {
    expect(workflow["on"]["schedule"][0]["cron"]).toMatch(/^\S+ \S+ \* \* [0-6]$/);
    expect(workflow["on"]).toHaveProperty("workflow_dispatch");
  });

  it("checks, updates only when --check exits 1, and opens a pull request whose body is the changelog section", () => {
    const steps = workflow["jobs"]["update"]["steps"] as Record<string, any>[];
    const runs = steps.map((s) => String(s["run"] ?? ""));
    const check = runs.findIndex((r) => r.includes(CHECK_COMMAND));
    const update = runs.findIndex((r) => r.includes("npx acp-codegen update latest"));
    expect(check).toBeGreaterThanOrEqual(0);
    expect(update).toBeGreaterThan(check);
    expect(String(steps[update]!["if"])).toContain("newer == '1'");
    const pr = steps.find((s) => String(s["uses"] ?? "").startsWith("peter-evans/create-pull-request@"))!;
    // The update step writes the changelog's first section to the file the pull request's body is read from.
    const bodyFile = String(pr["with"]["body-path"]).split("/").pop()!;
    expect(bodyFile).toBe("changelog-section.md");
    expect(runs[update]).toContain(`awk '/^## /{n++} n==1' schema/CHANGELOG.md > "$RUNNER_TEMP/${bodyFile}"`);
    expect(String(pr["with"]["body-path"])).toBe(`\${{ runner.temp }}/${bodyFile}`);
    for (const step of steps) expect(Object.keys(step).filter((k) => !["name", "uses", "with", "run", "if", "id", "env"].includes(k))).toEqual([]);
  });
});

describe("diff report titles of unpacked SDK packages: no path of this machine", () => {
  /** Two unpacked SDK packages (package.json and schema/, no lock.json, no tables) in a temp dir. */
  const unpacked = (withManifest: boolean) => {
    const dir = tempDir("unpacked");
    for (const version of ["2.0.0", "2.4.0"]) {
      for (const surface of ["v1", "v2"]) cpSync(join(FIXTURES, version, surface), join(dir, version, "package/schema", surface), { recursive: true });
      if (withManifest) writeFileSync(join(dir, version, "package/package.json"), JSON.stringify({ name: "@agentclientprotocol/sdk", version }));
    }
    return dir;
  };
  const diff = (cwd: string, a: string, b: string) =>
    spawnSync(process.execPath, [join(ROOT, "generator/acp-codegen.js"), "diff", a, b, "--format", "markdown", "--fail-on", "never"], { cwd, encoding: "utf8" });

  it("takes the versions from each package.json, for the package or its schema/", () => {
    const dir = unpacked(true);
    const run = diff(ROOT, join(dir, "2.0.0/package"), join(dir, "2.4.0/package/schema"));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe("## ACP schema 2.0.0 → 2.4.0 (@agentclientprotocol/sdk)");
    expect(run.stdout).not.toContain(dir);
    expect(run.stdout).not.toContain(ROOT);
  });

  it("without one, prints the paths as typed, relative", () => {
    const dir = unpacked(false);
    const run = diff(dir, "2.0.0/package/schema", "2.4.0/package/schema");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe("## ACP schema 2.0.0/package/schema → 2.4.0/package/schema");
    expect(run.stdout).not.toContain(dir);
    expect(run.stdout).not.toContain(ROOT);
  });
});
