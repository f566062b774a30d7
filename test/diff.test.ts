/**
 * `acp-codegen diff`: one hand-made pair per rule id
 * (test/fixtures/schemas/pairs/<rule>.json, each asserting every finding it
 * yields) and more cases of a rule (`<rule>--<case>.json`, the issue 14
 * correctness items among them), real pairs of published schemas with
 * findings checked against the raw schemas, the reviewed golden reports
 * (test/fixtures/diff-reports), and the three output formats with
 * `--fail-on`, `--surface` and `--ignore-unstable`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffSchemas, type DiffReport } from "../generator/diff/diff.js";
import { RULES, type Finding } from "../generator/diff/findings.js";
import { ROOT } from "./support/ir.js";
import { cli, tempDir, writeFiles } from "./support/run-cli.js";

const FIXTURES = join(ROOT, "test/fixtures/schemas");
const PAIRS = join(FIXTURES, "pairs");

/** A hand-made pair: schema files of each side (path -> schema), a naming table, and every finding expected. */
interface Pair {
  readonly about: string;
  readonly old: Record<string, unknown>;
  readonly new: Record<string, unknown>;
  readonly variantNames?: Record<string, Record<string, string>>;
  /** Every finding; `message`, when given, is a part of the finding's message. */
  readonly expect: readonly (Pick<Finding, "rule" | "category" | "severity" | "location"> & { readonly message?: string })[];
}

/** Writes one side of a pair as a schema directory with its naming table. */
function sideDir(files: Record<string, unknown>, names: Pair["variantNames"] = {}): string {
  const texts = Object.fromEntries(Object.entries(files).map(([path, schema]) => [path, JSON.stringify(schema)]));
  return writeFiles(tempDir("side"), { ...texts, "variant-names.json": JSON.stringify(names) });
}

const essentials = (findings: readonly Pick<Finding, "rule" | "category" | "severity" | "location">[]) =>
  findings.map((f) => `${f.location} ${f.category} ${f.severity} ${f.rule}`).sort();

const pairFiles = readdirSync(PAIRS).filter((name) => name.endsWith(".json"));
/** The rule a pair file is about: `<rule>.json` or `<rule>--<case>.json`. */
const ruleOfPair = (file: string) => file.replace(/\.json$/, "").split("--")[0]!;

describe("hand-made pairs: one per rule id, and more cases of some", () => {
  it("every rule id has its pair, and every pair is named after a rule id", () => {
    expect(pairFiles.filter((f) => !f.includes("--")).map(ruleOfPair).sort()).toEqual(Object.keys(RULES).sort());
    expect(pairFiles.map(ruleOfPair).filter((rule) => !(rule in RULES))).toEqual([]);
  });

  it.each(pairFiles)("%s", (file) => {
    const pair = JSON.parse(readFileSync(join(PAIRS, file), "utf8")) as Pair;
    const report = diffSchemas(sideDir(pair.old, pair.variantNames), sideDir(pair.new, pair.variantNames));
    expect(essentials(report.findings), pair.about).toEqual(essentials(pair.expect));
    expect(report.findings.some((f) => f.rule === ruleOfPair(file))).toBe(true);
    for (const { rule, category, location, message } of pair.expect.filter((e) => e.message !== undefined)) {
      const found = report.findings.find((f) => f.rule === rule && f.category === category && f.location === location);
      expect(found?.message, `${location} ${category} ${rule}`).toContain(message);
    }
  });
});

/** The findings of a report at one location, as `category severity rule`. */
function at(report: DiffReport, surface: string, location: string): string[] {
  return report.findings.filter((f) => f.surface === surface && f.location === location).map((f) => `${f.category} ${f.severity} ${f.rule}`).sort();
}

/** A def of a fixture schema, raw. */
function rawDef(version: string, file: string, name: string): Record<string, any> {
  return (JSON.parse(readFileSync(join(FIXTURES, version, file), "utf8")) as { $defs: Record<string, any> }).$defs[name];
}

describe("SDK 2.0.0 -> 2.4.0 (v2)", () => {
  const report = diffSchemas(join(FIXTURES, "2.0.0"), join(FIXTURES, "2.4.0"));

  it("pairs the four surfaces by name", () => {
    expect(report.surfaces.map((s) => s.surface)).toEqual(["v1", "v1/unstable", "v2", "v2/unstable"]);
  });

  it("PromptRequest.prompt gained minItems 1: a request input, so an error", () => {
    expect(rawDef("2.0.0", "v2/schema.json", "PromptRequest").properties.prompt.minItems).toBeUndefined();
    expect(rawDef("2.4.0", "v2/schema.json", "PromptRequest").properties.prompt.minItems).toBe(1);
    expect(at(report, "v2", "PromptRequest.prompt")).toEqual(["WIRE error constraint-tightened"]);
  });

  it("Cost.currency lost its pattern: NEW writers may send what OLD validators reject", () => {
    expect(rawDef("2.0.0", "v2/schema.json", "Cost").properties.currency.pattern).toBe("^[A-Z]{3}$");
    expect(rawDef("2.4.0", "v2/schema.json", "Cost").properties.currency.pattern).toBeUndefined();
    expect(at(report, "v2", "Cost.currency")).toEqual(["WIRE error constraint-loosened"]);
  });

  it("RequestId no longer admits null (its Null option is gone)", () => {
    expect(rawDef("2.0.0", "v2/schema.json", "RequestId").anyOf.map((o: { title: string }) => o.title)).toContain("Null");
    expect(rawDef("2.4.0", "v2/schema.json", "RequestId").anyOf.map((o: { title: string }) => o.title)).not.toContain("Null");
    expect(at(report, "v2", "RequestId")).toEqual(["API error nullability-changed", "WIRE error nullability-changed"]);
  });

  it("AuthCapabilities was renamed ClientAuthCapabilities with the same shape, so ClientCapabilities.auth is unchanged on the wire", () => {
    expect(rawDef("2.4.0", "v2/schema.json", "AuthCapabilities")).toBeUndefined();
    expect(rawDef("2.4.0", "v2/schema.json", "ClientCapabilities").properties.auth.anyOf[0].$ref).toBe("#/$defs/ClientAuthCapabilities");
    expect(at(report, "v2", "AuthCapabilities")).toEqual(["API error type-renamed"]);
    expect(at(report, "v2", "ClientCapabilities.auth")).toEqual([]);
  });

  it("Error.data stays any JSON value: the 2.4.0 ErrorData union has an any-value option", () => {
    expect(rawDef("2.4.0", "v2/schema.json", "ErrorData").anyOf.at(-1)).toEqual({ title: "Other" });
    expect(at(report, "v2", "Error.data")).toEqual([]);
  });

  it("ToolCallLocation.line now starts at 1", () => {
    expect(rawDef("2.4.0", "v2/schema.json", "ToolCallLocation").properties.line.minimum).toBe(1);
    expect(at(report, "v2", "ToolCallLocation.line")).toEqual(["WIRE error constraint-tightened"]);
  });

  it("methods added in 2.4.0 are information, not breaks", () => {
    expect(rawDef("2.0.0", "v2/schema.unstable.json", "CancelToolCallRequest")).toBeUndefined();
    expect(rawDef("2.4.0", "v2/schema.unstable.json", "CancelToolCallRequest")["x-method"]).toBe("tool_call/cancel");
    expect(at(report, "v2/unstable", "method tool_call/cancel (request)")).toEqual(["API info method-added", "WIRE info method-added"]);
  });

  it("the v1 surfaces of 2.0.0 and 2.4.0 agree on the wire for the stable schema's SessionUpdate", () => {
    expect(report.findings.filter((f) => f.surface === "v1" && f.location.startsWith("SessionUpdate") && f.category === "WIRE")).toEqual([]);
  });
});

describe("SDK 1.0.0 -> 2.0.0 (v1)", () => {
  const report = diffSchemas(join(FIXTURES, "1.0.0"), join(FIXTURES, "2.0.0"));

  it("pairs the legacy single schema with v1/unstable; the other surfaces are new", () => {
    expect(report.surfaces).toEqual([
      { surface: "v1", new: join(FIXTURES, "2.0.0", "v1/schema.json") },
      { surface: "v1/unstable", old: join(FIXTURES, "1.0.0", "schema.json"), new: join(FIXTURES, "2.0.0", "v1/schema.unstable.json") },
      { surface: "v2", new: join(FIXTURES, "2.0.0", "v2/schema.json") },
      { surface: "v2/unstable", new: join(FIXTURES, "2.0.0", "v2/schema.unstable.json") },
    ]);
    expect(at(report, "v2", "surface v2")).toEqual(["API info surface-added"]);
  });

  it("the next-edit-suggestion methods (nes/*) were removed", () => {
    expect(rawDef("1.0.0", "schema.json", "AcceptNesNotification")["x-method"]).toBe("nes/accept");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "AcceptNesNotification")).toBeUndefined();
    expect(at(report, "v1/unstable", "method nes/accept (notification)")).toEqual(["API error method-removed", "WIRE error method-removed"]);
  });

  it("McpServerAcp.id became serverId: a required property removed and one added", () => {
    expect(rawDef("1.0.0", "schema.json", "McpServerAcp").required).toContain("id");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "McpServerAcp").required).toContain("serverId");
    expect(at(report, "v1/unstable", "McpServerAcp.id")).toEqual(["API error field-removed", "WIRE error field-removed"]);
    expect(at(report, "v1/unstable", "McpServerAcp.serverId")).toEqual(["API error field-added", "WIRE error field-added"]);
  });

  it("mcp/message split into a client-handled request and an agent-handled notification", () => {
    expect(rawDef("1.0.0", "schema.json", "MessageMcpRequest")["x-side"]).toBe("both");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "MessageMcpRequest")["x-side"]).toBe("client");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "MessageMcpNotification")["x-side"]).toBe("agent");
    expect(at(report, "v1/unstable", "method mcp/message (request)")).toEqual(["API error method-side-changed", "WIRE error method-side-changed"]);
  });

  it("the UNSTABLE env_var auth method is gone (a warning on the wire: AuthMethod only travels in a result), and --ignore-unstable leaves it out", () => {
    expect(rawDef("1.0.0", "schema.json", "AuthMethodEnvVar").description).toContain("**UNSTABLE**");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "InitializeResponse").properties.authMethods.items.$ref).toBe("#/$defs/AuthMethod");
    expect(at(report, "v1/unstable", 'AuthMethod["env_var"]')).toEqual(["API error variant-removed", "WIRE warn variant-removed"]);
    const stableOnly = diffSchemas(join(FIXTURES, "1.0.0"), join(FIXTURES, "2.0.0"), { ignoreUnstable: true });
    expect(at(stableOnly, "v1/unstable", 'AuthMethod["env_var"]')).toEqual([]);
    expect(stableOnly.findings.length).toBeLessThan(report.findings.length);
    expect(stableOnly.findings.every((f) => !f.unstable)).toBe(true);
  });
});

describe("output formats and exit codes", () => {
  const pair = JSON.parse(readFileSync(join(PAIRS, "field-became-required.json"), "utf8")) as Pair;
  const oldDir = sideDir(pair.old, pair.variantNames);
  const newDir = sideDir(pair.new, pair.variantNames);

  it("text: one line per finding and a summary; exit 1 on an error finding", () => {
    const run = cli("diff", oldDir, newDir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("  error WIRE field-became-required  FooRequest.a: OLD writers may omit it and NEW readers reject that\n");
    expect(run.stdout).toContain("  warn  WIRE field-became-required  FooResponse.a:");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("4 finding(s): 3 error(s), 1 warning(s), 0 info");
  });

  it("json: the findings with rule, category, severity, location and message", () => {
    const run = cli("diff", oldDir, newDir, "--format", "json", "--fail-on", "never");
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.summary).toEqual({ error: 3, warn: 1, info: 0 });
    expect(json.findings[0]).toEqual({
      rule: "field-became-required",
      category: "API",
      severity: "error",
      surface: "v2",
      location: "FooRequest.a",
      message: "objects built by OLD code may lack it",
      unstable: false,
    });
  });

  it("markdown: a table per surface, pipes escaped", () => {
    const run = cli("diff", oldDir, newDir, "--format", "markdown", "--fail-on", "never");
    expect(run.stdout).toMatch(/^## Schema changes: /);
    expect(run.stdout).toContain("### v2\n\n| Severity | Category | Rule | Where | What |\n| --- | --- | --- | --- | --- |\n");
    expect(run.stdout).toContain("| warn | WIRE | `field-became-required` | `FooResponse.a` |");
  });

  it("--fail-on warn fails on warnings only; identical schemas exit 0", () => {
    const warnOnly = JSON.parse(readFileSync(join(PAIRS, "tolerance-changed.json"), "utf8")) as Pair;
    const [a, b] = [sideDir(warnOnly.old), sideDir(warnOnly.new)];
    expect(cli("diff", a, b).code).toBe(0);
    expect(cli("diff", a, b, "--fail-on", "warn").code).toBe(1);
    const same = cli("diff", a, a, "--fail-on", "warn");
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("0 finding(s)");
  });

  it("a bad schema on either side is bad input: exit 2", () => {
    const broken = writeFiles(tempDir("broken"), { "schema.json": "{ nope" });
    const run = cli("diff", join(broken, "schema.json"), join(FIXTURES, "0.29.0", "schema.json"));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/schema\.json:1:3: invalid JSON/);
  });
});
