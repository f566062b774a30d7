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

  it("ToolCallLocation.line now starts at 1, but NEW readers drop a 0 (default-on-error), they do not reject the message: a warning", () => {
    expect(rawDef("2.4.0", "v2/schema.json", "ToolCallLocation").properties.line.minimum).toBe(1);
    expect(rawDef("2.4.0", "v2/schema.json", "ToolCallLocation").properties.line["x-deserialize-default-on-error"]).toBe(true);
    expect(at(report, "v2", "ToolCallLocation.line")).toEqual(["WIRE warn constraint-tightened"]);
  });

  it("JSON-RPC batches are gone from the root message union of both v2 files; v1/unstable's root gained Proxy", () => {
    const titles = (version: string, file: string) =>
      (JSON.parse(readFileSync(join(FIXTURES, version, file), "utf8")) as { anyOf: { title: string }[] }).anyOf.map((o) => o.title);
    expect(titles("2.0.0", "v2/schema.json")).toContain("AgentBatchCall");
    expect(titles("2.4.0", "v2/schema.json")).not.toContain("AgentBatchCall");
    expect(titles("2.4.0", "v1/schema.unstable.json")).toContain("Proxy");
    for (const batch of ["AgentBatchCall", "AgentBatchResponse", "ClientBatchCall", "ClientBatchResponse"]) {
      for (const surface of ["v2", "v2/unstable"]) expect(at(report, surface, `(JSON-RPC message)[${batch}]`)).toEqual(["WIRE error variant-removed"]);
    }
    expect(at(report, "v1/unstable", "(JSON-RPC message)[Proxy]")).toEqual(["WIRE info variant-added"]);
  });

  it("RequestPermissionOutcome `cancelled` went from a bare tag to one with an optional _meta: field-added information, no type-changed", () => {
    expect(rawDef("2.4.0", "v2/schema.json", "RequestPermissionOutcome").anyOf[0].allOf[0].$ref).toBe("#/$defs/CancelledPermissionOutcome");
    expect(rawDef("2.4.0", "v2/schema.json", "CancelledPermissionOutcome").required ?? []).toEqual([]);
    expect(at(report, "v2", 'RequestPermissionOutcome["cancelled"]')).toEqual([]);
    expect(at(report, "v2", 'RequestPermissionOutcome["cancelled"]._meta')).toEqual(["API info field-added", "WIRE info field-added"]);
  });

  it("AvailableCommand became a tagged union on `type`: NEW readers reject OLD values, OLD readers still read NEW ones", () => {
    expect(rawDef("2.0.0", "v2/schema.json", "AvailableCommand").required).toEqual(["name", "description"]);
    expect(rawDef("2.4.0", "v2/schema.json", "Command").required).toEqual(expect.arrayContaining(["name", "description"]));
    const wire = report.findings.find((f) => f.surface === "v2" && f.location === "AvailableCommand" && f.category === "WIRE");
    expect(wire?.message).toContain("OLD writers send no `type` and NEW readers reject that; OLD readers ignore the tag (S29) and read NEW values");
    expect(wire?.message).not.toContain("neither side");
  });

  it("the elicitation scopes went from anyOf to oneOf, and Annotations.lastModified lost its date-time format", () => {
    expect(Object.keys(rawDef("2.0.0", "v2/schema.json", "ElicitationFormMode"))).toContain("anyOf");
    expect(Object.keys(rawDef("2.4.0", "v2/schema.json", "ElicitationFormMode"))).toContain("oneOf");
    expect(at(report, "v2", "ElicitationFormMode")).toEqual(["WIRE error constraint-tightened"]);
    expect(at(report, "v2", "ElicitationUrlMode")).toEqual(["WIRE error constraint-tightened"]);
    expect(rawDef("2.4.0", "v2/schema.json", "CreateElicitationRequest").anyOf[2].oneOf).toHaveLength(2);
    expect(at(report, "v2", "CreateElicitationRequest[(custom)]")).toEqual(["WIRE error constraint-tightened"]);
    expect(rawDef("2.0.0", "v2/schema.json", "Annotations").properties.lastModified.format).toBe("date-time");
    expect(rawDef("2.4.0", "v2/schema.json", "Annotations").properties.lastModified.format).toBeUndefined();
    expect(at(report, "v2", "Annotations.lastModified")).toEqual(["WIRE info format-changed"]);
  });

  it("the stable protocol (v1) does not break: `--ignore-unstable` compares v1 only and exits 0", () => {
    const run = cli("diff", join(FIXTURES, "2.0.0"), join(FIXTURES, "2.4.0"), "--ignore-unstable");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Surfaces: v1; stable protocol only");
    expect(run.stdout).toContain("Breaking: 0 changes");
  });

  it("--surface selects surfaces", () => {
    const run = cli("diff", join(FIXTURES, "2.0.0"), join(FIXTURES, "2.4.0"), "--surface", "v2", "--format", "json");
    const json = JSON.parse(run.stdout) as { surfaces: { surface: string }[]; findings: Finding[] };
    expect(json.surfaces.map((s) => s.surface)).toEqual(["v2"]);
    expect(new Set(json.findings.map((f) => f.surface))).toEqual(new Set(["v2"]));
    expect(cli("diff", join(FIXTURES, "2.0.0"), join(FIXTURES, "2.4.0"), "--surface", "v3").code).toBe(2);
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

  it("pairs the legacy single schema with both v1 surfaces; the other surfaces are new", () => {
    expect(report.surfaces).toEqual([
      { surface: "v1", old: join(FIXTURES, "1.0.0", "schema.json"), new: join(FIXTURES, "2.0.0", "v1/schema.json") },
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

  it("McpServerAcp.id became serverId, and seven more `id`s became planId/providerId: one field-renamed each", () => {
    expect(rawDef("1.0.0", "schema.json", "McpServerAcp").required).toContain("id");
    expect(rawDef("2.0.0", "v1/schema.unstable.json", "McpServerAcp").required).toContain("serverId");
    expect(at(report, "v1/unstable", "McpServerAcp.id")).toEqual(["API error field-renamed", "WIRE error field-renamed"]);
    expect(at(report, "v1/unstable", "McpServerAcp.serverId")).toEqual([]);
    const renamed = report.findings.filter((f) => f.rule === "field-renamed" && f.category === "WIRE").map((f) => f.location);
    expect(renamed.sort()).toEqual(
      ["DisableProviderRequest", "McpServerAcp", "PlanFile", "PlanItems", "PlanMarkdown", "PlanRemoved", "ProviderInfo", "SetProviderRequest"].map((t) => `${t}.id`),
    );
    for (const type of ["PlanItems", "ProviderInfo", "DisableProviderRequest"]) {
      const renamedTo = Object.keys(rawDef("2.0.0", "v1/schema.unstable.json", type).properties).find((p) => !(p in rawDef("1.0.0", "schema.json", type).properties));
      expect(renamedTo).toMatch(/^(planId|providerId)$/);
    }
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
    expect(stableOnly.surfaces.map((s) => s.surface)).toEqual(["v1"]);
    expect(at(stableOnly, "v1", 'AuthMethod["env_var"]')).toEqual([]);
    expect(stableOnly.findings.length).toBeLessThan(report.findings.length);
    expect(stableOnly.findings.every((f) => !f.unstable)).toBe(true);
  });

  it("stable v1 users see their changes: the legacy file against 2.0.0's v1/schema.json", () => {
    expect(rawDef("1.0.0", "schema.json", "AgentCapabilities").properties.nes.description).toContain("**UNSTABLE**");
    expect(at(report, "v1", "AgentCapabilities.nes")).toEqual(["API error field-removed", "WIRE warn field-removed"]);
    expect(report.findings.find((f) => f.surface === "v1" && f.location === "AgentCapabilities.nes")?.unstable).toBe(true);
    expect(at(report, "v1", "method nes/start (request)")).toEqual(["API error method-removed", "WIRE error method-removed"]);
  });
});

describe("output formats and exit codes", () => {
  const pair = JSON.parse(readFileSync(join(PAIRS, "field-became-required.json"), "utf8")) as Pair;
  const oldDir = sideDir(pair.old, pair.variantNames);
  const newDir = sideDir(pair.new, pair.variantNames);

  it("text: a summary, then each change once with its effect per category; exit 1 on an error finding", () => {
    const run = cli("diff", oldDir, newDir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("Summary\n  Breaking: 2 changes\n");
    expect(run.stdout).toContain(
      [
        "Breaking (2)",
        "  FooRequest.a  field-became-required  [v2]",
        "    error WIRE OLD writers may omit it and NEW readers reject that",
        "    error API  objects built by OLD code may lack it",
        "  FooResponse.a  field-became-required  [v2]",
        "    warn  WIRE OLD writers may omit it and NEW readers reject that",
        "    error API  objects built by OLD code may lack it",
      ].join("\n"),
    );
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

  it("markdown: a changelog section titled with the lock files' versions; Breaking, New, Other; every rule link has its anchor", () => {
    const run = cli("diff", join(FIXTURES, "2.0.0"), join(FIXTURES, "2.4.0"), "--format", "markdown", "--fail-on", "never");
    expect(run.code).toBe(0);
    const md = run.stdout;
    expect(md.split("\n")[0]).toBe("## ACP schema 2.0.0 → 2.4.0 (@agentclientprotocol/sdk)");
    expect(md).not.toContain(FIXTURES);
    const headings = md.split("\n").filter((l) => l.startsWith("### "));
    expect(headings).toEqual(["### Breaking", "### New", "### Other"]);
    expect(md).toContain("<details><summary>11 new methods, 45 new types</summary>");
    const links = [...md.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    const anchors = [...md.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(new Set(links)).toEqual(new Set(anchors));
    expect(anchors.every((a) => a.startsWith("acp-2-4-0-"))).toBe(true);
  });

  it("--fail-on warn fails on warnings only; identical schemas exit 0", () => {
    const warnOnly = JSON.parse(readFileSync(join(PAIRS, "tolerance-changed.json"), "utf8")) as Pair;
    const [a, b] = [sideDir(warnOnly.old), sideDir(warnOnly.new)];
    expect(cli("diff", a, b).code).toBe(0);
    expect(cli("diff", a, b, "--fail-on", "warn").code).toBe(1);
    const same = cli("diff", a, a, "--fail-on", "warn");
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("Breaking: 0 changes");
    expect(same.stdout).toContain("Other: 0 changes");
  });

  it("a bad schema on either side is bad input: exit 2", () => {
    const broken = writeFiles(tempDir("broken"), { "schema.json": "{ nope" });
    const run = cli("diff", join(broken, "schema.json"), join(FIXTURES, "0.29.0", "schema.json"));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/schema\.json:1:3: invalid JSON/);
  });
});

/**
 * The reviewed reports of two published upgrades (test/fixtures/diff-reports;
 * the review against the raw schemas is in its README.md). A change to the
 * diff that changes them needs a new review of the difference.
 */
describe("golden reports of the published upgrades", () => {
  const REPORTS = join(ROOT, "test/fixtures/diff-reports");
  const upgrades = [
    ["2.0.0", "2.4.0", "text", "txt"],
    ["2.0.0", "2.4.0", "markdown", "md"],
    ["1.0.0", "2.0.0", "text", "txt"],
    ["1.0.0", "2.0.0", "markdown", "md"],
  ] as const;

  it.each(upgrades)("%s -> %s, %s", (from, to, format, ext) => {
    const run = cli("diff", join(FIXTURES, from), join(FIXTURES, to), "--format", format);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(readFileSync(join(REPORTS, `${from}-to-${to}.${ext}`), "utf8"));
  });

  it("the 2.0.0 -> 2.4.0 text report fits in 200 lines, its summary in the first 20, each change printed once", () => {
    const lines = readFileSync(join(REPORTS, "2.0.0-to-2.4.0.txt"), "utf8").trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(200);
    const summary = lines.indexOf("Summary");
    expect(summary).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf("Breaking (24)")).toBeLessThan(20);
    const headers = lines.filter((l) => /^ {2}\S/.test(l) && !l.startsWith("  types "));
    expect(new Set(headers).size).toBe(headers.length);
    expect(lines.findIndex((l) => l.startsWith("Breaking ("))).toBeLessThan(lines.findIndex((l) => l.startsWith("New (")));
    expect(lines.findIndex((l) => l.startsWith("New ("))).toBeLessThan(lines.findIndex((l) => l.startsWith("Other (")));
  });
});
