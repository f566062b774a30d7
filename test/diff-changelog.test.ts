/**
 * The release workflow's changelog (README "When ACP releases a new schema",
 * step 4), run the way a user runs it: `npm run changelog -- OLD` on the
 * 2.0.0 -> 2.4.0 fixture pair, into a scratch copy of the schema directory,
 * then `npm run generate`, which ships the changelog in the package.
 */
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prependSection } from "../generator/changelog.js";
import { ROOT } from "./support/ir.js";
import { tempDir } from "./support/run-cli.js";

const FIXTURES = join(ROOT, "test/fixtures/schemas");
const REVIEWED = readFileSync(join(ROOT, "test/fixtures/diff-reports/2.0.0-to-2.4.0.md"), "utf8");

function npm(...args: string[]): string {
  return execFileSync("npm", ["run", "--silent", ...args], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("npm run changelog -- OLD_SCHEMA_DIR", () => {
  const project = tempDir("changelog");
  const schema = join(project, "schema");
  cpSync(join(FIXTURES, "2.4.0"), schema, { recursive: true });
  npm("changelog", "--", join(FIXTURES, "2.0.0"), "--schema-dir", schema);
  const changelog = readFileSync(join(schema, "CHANGELOG.md"), "utf8");

  it("writes the reviewed diff Markdown as the first section of schema/CHANGELOG.md", () => {
    expect(changelog.startsWith("# Changelog\n\n")).toBe(true);
    expect(changelog.slice(changelog.indexOf("## "))).toBe(REVIEWED);
    expect(changelog).toContain('<a id="acp-2-4-0-constraint-tightened"></a>');
  });

  it("`npm run generate` copies it into the package and lists it in the package's files", () => {
    const out = join(project, "generated");
    npm("generate", "--", "--schema-dir", schema, "--out", out, "--quiet");
    expect(readFileSync(join(out, "CHANGELOG.md"), "utf8")).toBe(changelog);
    expect((JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as { files: string[] }).files).toContain("CHANGELOG.md");
  });

  it("a rerun for the same versions replaces its section; an older section stays below the new one", () => {
    const older = "## ACP schema 1.0.0 → 2.0.0 (@agentclientprotocol/sdk)\n\nolder notes\n";
    writeFileSync(join(schema, "CHANGELOG.md"), prependSection(prependSection(undefined, older), "## ACP schema 2.0.0 → 2.4.0 (@agentclientprotocol/sdk)\n\nstale\n"));
    npm("changelog", "--", join(FIXTURES, "2.0.0"), "--schema-dir", schema);
    const twice = readFileSync(join(schema, "CHANGELOG.md"), "utf8");
    expect(twice.split("\n").filter((l) => l.startsWith("## "))).toEqual([REVIEWED.split("\n")[0], older.split("\n")[0]]);
    expect(twice.endsWith("older notes\n")).toBe(true);
    expect(twice).not.toContain("stale");
  });

  it("a missing OLD directory is bad input: exit 2 with one line", () => {
    let status = 0;
    let stderr = "";
    try {
      npm("changelog", "--", join(project, "nope"), "--schema-dir", schema);
    } catch (error) {
      ({ status, stderr } = error as { status: number; stderr: string });
    }
    expect(status).toBe(2);
    expect(stderr).toContain("no such schema directory");
  });
});
