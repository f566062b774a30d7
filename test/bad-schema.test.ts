/**
 * Bad schemas through the CLI, end to end: each gets one clear error naming
 * the file and JSON pointer (line:column for JSON syntax errors), exit code 2,
 * and the output directory is left exactly as it was. Names that need care
 * (quoted property names, def names that are not identifiers) generate
 * correct code instead, which is type-checked.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { typeCheck } from "./support/compile.js";
import { cli, pinnedV2With, previousOutput, snapshotTree, tempDir, writeFiles } from "./support/run-cli.js";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required });
const tagged = (tag: string) => obj({ kind: { type: "string", const: tag } }, ["kind"]);

/** Runs `generate` on a schema directory into an output that already holds files; returns the run and whether the output changed. */
function generateInto(schemaDir: string) {
  const out = previousOutput();
  const before = snapshotTree(out);
  const run = cli("generate", "--schema-dir", schemaDir, "--out", out, "--quiet");
  return { ...run, unchanged: JSON.stringify([...snapshotTree(out)]) === JSON.stringify([...before]) };
}

/** Expects exactly one error line naming `file#pointer` (or `file:line:col`), exit 2, nothing written. */
function expectOneError(run: ReturnType<typeof generateInto>, where: string, detail: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.unchanged).toBe(true);
  expect(run.stdout).toBe("");
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(where);
  expect(lines[0]).toMatch(detail);
}

describe("bad schemas fail with one clear error and write nothing", () => {
  it("invalid JSON: file, line and column", () => {
    const dir = pinnedV2With({}, '{\n  "$defs": {\n    "A": { "type": "string", }\n  }\n}\n');
    expectOneError(generateInto(dir), `${join(dir, "v2/schema.json")}:3:30`, /invalid JSON/);
  });

  it("a $ref to a missing def", () => {
    const dir = pinnedV2With({ Broken: obj({ x: { $ref: "#/$defs/Nowhere" } }) });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/Broken/properties/x/$ref", /missing def "Nowhere"/);
  });

  it("a $ref cycle with no object in between", () => {
    const dir = pinnedV2With({ LoopA: { $ref: "#/$defs/LoopB" }, LoopB: { anyOf: [{ $ref: "#/$defs/LoopA" }, { type: "null" }] } });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/LoopA", /\$ref cycle LoopA -> LoopB -> LoopA with no object in between/);
  });

  it("two defs whose names collide after mapping to identifiers", () => {
    const dir = pinnedV2With({ OddName: { type: "string" }, "odd-name": { type: "integer" } });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/odd-name", /def "odd-name", exported as "OddName" collides with the type declared at \/\$defs\/OddName/);
  });

  it("an unknown `type` value", () => {
    const dir = pinnedV2With({ Money: obj({ amount: { type: "decimal" } }) });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/Money/properties/amount/type", /unknown type "decimal"/);
  });

  it("duplicate tags in one union", () => {
    const dir = pinnedV2With({ Shape: { oneOf: [{ title: "A", ...tagged("a") }, { title: "B", ...tagged("b") }, { title: "C", ...tagged("a") }] } });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/Shape/oneOf/2", /duplicate tag "a"/);
  });

  it("an untitled variant missing from the naming table names the table to edit", () => {
    const dir = pinnedV2With({ Shape: { oneOf: [tagged("circle")] } });
    expectOneError(generateInto(dir), "v2/schema.json#/$defs/Shape/oneOf/0", new RegExp(`"Shape": \\{ "circle": "<TypeName>" \\} to ${join(dir, "variant-names.json")}`));
  });

  it("a missing naming table", () => {
    const dir = writeFiles(tempDir("schema"), { "v2/schema.json": JSON.stringify({ $defs: { A: { type: "string" } } }) });
    expectOneError(generateInto(dir), join(dir, "variant-names.json"), /no untitled-variant naming table here/);
  });

  it("a directory with no schema in it", () => {
    const dir = tempDir("empty");
    expectOneError(generateInto(dir), dir, /no ACP schema here/);
  });
});

describe("names that need care generate correct, compiling code", () => {
  const extraDefs = {
    // Property names that must be quoted, including the prototype key (S34).
    // (JSON.parse: in an object literal `__proto__:` would set the prototype, not a key.)
    QuotedKeys: obj(JSON.parse('{"a-b": {"type": "string"}, "__proto__": {"type": "integer"}, "constructor": {"type": "boolean"}, "1st": {"type": "string"}}'), ["a-b"]),
    // A def name that is a reserved word, and one that is not an identifier: mapped to PascalCase.
    string: obj({ value: { type: "string" } }, ["value"]),
    "kebab-case-name": obj({ owner: { $ref: "#/$defs/string" } }),
    // Required fields named like the module-level values a builder calls (SDK 0.29.0's `Range`).
    Span: obj({ rt: { type: "integer" }, end: { type: "integer" }, B1: { type: "string" } }, ["rt", "end", "B1"]),
  };
  let out = "";
  let diagnostics: string[] = [];

  beforeAll(() => {
    out = tempDir("names-out");
    const run = cli("generate", "--schema-dir", pinnedV2With(extraDefs), "--out", out, "--quiet");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    writeFiles(out, {
      "use.ts": [
        `import type * as acp from "./src/v2/index.js";`,
        `export const quoted: acp.QuotedKeys = { "a-b": "x", ["__proto__"]: 1, constructor: true, "1st": "y" };`,
        `export const mapped: acp.KebabCaseName = { owner: { value: "v" } satisfies acp.String };`,
        `// @ts-expect-error "a-b" is required`,
        `export const missing: acp.QuotedKeys = {};`,
      ].join("\n"),
    });
    diagnostics = typeCheck([join(out, "use.ts")], "nodenext");
  }, 120_000);

  it("property names that need quoting compile and keep their exact keys", () => {
    expect(diagnostics).toEqual([]);
    const types = snapshotTree(out).get("src/v2/types.ts")!;
    expect(types).toContain(`"a-b": string;`);
    expect(types).toContain(`"__proto__"?: number;`);
  });

  it("builder parameters never shadow the module's own values (the runtime namespace `rt`, the specs)", () => {
    expect(diagnostics).toEqual([]);
    const build = snapshotTree(out).get("src/v2/build.ts")!;
    expect(build).toMatch(/export function Span\(rt_: T\.Span\["rt"\], end: T\.Span\["end"\], B1_: T\.Span\["B1"\]\)/);
    expect(build).toMatch(/return rt\.start\(B\d+, \{ rt: rt_, end, B1: B1_ \}\);/);
  });

  it("a reserved word and a non-identifier def name are mapped to PascalCase", () => {
    const types = snapshotTree(out).get("src/v2/types.ts")!;
    expect(types).toMatch(/export interface String \{/);
    expect(types).toMatch(/export interface KebabCaseName \{/);
    expect(types).toMatch(/owner\?: String;/);
  });
});
