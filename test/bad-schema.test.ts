/**
 * Bad schemas through the CLI, end to end: each gets one clear error naming
 * the file and JSON pointer (line:column for JSON syntax errors), exit code 2,
 * and the output directory is left exactly as it was. Names that need care
 * (quoted property names, def names that are not identifiers) generate
 * correct code instead, which is type-checked. The reviewed tables and the
 * schema lock are bad input too: every malformed shape gets the same one line
 * (file and JSON pointer) and exit 2, never the "internal error" exit 3.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

  it("bytes that are not UTF-8: file, line and column of the first", () => {
    const dir = pinnedV2With({}, '{\n  "$defs": {}, "x": "caf\u00e9"\n}\n');
    const file = join(dir, "v2/schema.json");
    writeFileSync(file, Buffer.concat([Buffer.from('{\n  "$defs": {}, "x": "caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"\n}\n')]));
    expectOneError(generateInto(dir), `${file}:2:25`, /not UTF-8/);
  });

  it("a directory where the schema file should be", () => {
    const dir = pinnedV2With({});
    rmSync(join(dir, "v2/schema.json"));
    mkdirSync(join(dir, "v2/schema.json"));
    expectOneError(generateInto(dir), join(dir, "v2/schema.json"), /is a directory, not a file/);
  });

  it("a schema nested deeper than the generator reads (1000 levels): exit 2 at the first value too deep, nothing written", () => {
    // Written as text: JSON.stringify of a value this deep would itself run out of stack.
    const depth = 20_000;
    const deep = `${'{"type":"array","items":'.repeat(depth)}{"type":"string"}${"}".repeat(depth)}`;
    const dir = pinnedV2With({ Deep: "DEEP" });
    const file = join(dir, "v2/schema.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"DEEP"', deep));
    expectOneError(generateInto(dir), `${file}#/$defs/Deep${"/items".repeat(998)}`, /nested more than 1000 levels deep/);
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

type Json = Record<string, any>;

/** The pinned v2 schema directory with one reviewed table (or the lock) replaced by `change`: a text, or an edit of the pinned table. */
function withTable(file: string, change: string | ((table: Json) => unknown)): string {
  const dir = pinnedV2With({});
  const text = typeof change === "string" ? change : JSON.stringify(change(JSON.parse(readFileSync(join(dir, file), "utf8")) as Json), null, 2);
  writeFileSync(join(dir, file), text);
  return dir;
}

/** The text of a well-formed lock for a v2 schema, changed by `edit`. */
const lock = (edit: (lock: Json) => unknown): string => JSON.stringify(edit({ package: "@agentclientprotocol/sdk", version: "2.4.0", files: { "v2/schema.json": "0".repeat(64) } }));

describe("malformed reviewed tables and locks are bad input: exit 2, file and JSON pointer, nothing written", () => {
  const semantics = "semantics.json";
  const names = "variant-names.json";
  const lockFile = "lock.json";
  const cases: [string, string, string | ((table: Json) => unknown), string, RegExp][] = [
    [semantics, "not JSON", '{\n  "union": "SessionUpdate",\n  maps: []\n}\n', "semantics.json:3:3", /the semantics table is not valid JSON/],
    [semantics, "not an object", "[]", "semantics.json#: ", /must be a JSON object/],
    [semantics, "`union` not a string", (t) => ({ ...t, union: 5 }), "semantics.json#/union: ", /`union` must name the SessionUpdate def/],
    [semantics, "`maps` not a list", (t) => ({ ...t, maps: "toolCalls" }), "semantics.json#/maps: ", /`maps` must be a list of slot names/],
    [semantics, "a slot name that is not an identifier", (t) => ({ ...t, lists: ["notices", 3] }), "semantics.json#/lists/1: ", /slot name must be an identifier, got 3/],
    [semantics, "`surfaces` not an object", (t) => ({ ...t, surfaces: [] }), "semantics.json#/surfaces: ", /`surfaces` must be an object/],
    [semantics, "a surface entry not an object", (t) => ({ ...t, surfaces: { ...t.surfaces, v2: 1 } }), "semantics.json#/surfaces/v2: ", /surfaces\["v2"\] must be an object/],
    [semantics, "`extends` naming no surface", (t) => ({ ...t, surfaces: { ...t.surfaces, v2: { ...t.surfaces.v2, extends: "v9" } } }), "semantics.json#/surfaces/v2/extends: ", /must name another surface/],
    [semantics, "`upserts` not an object", (t) => ({ ...t, surfaces: { ...t.surfaces, v2: { ...t.surfaces.v2, upserts: [] } } }), "semantics.json#/surfaces/v2/upserts: ", /must map names to objects/],
    [semantics, "a route not an object", (t) => ({ ...t, surfaces: { ...t.surfaces, v2: { ...t.surfaces.v2, session: { ...t.surfaces.v2.session, plan_update: "put" } } } }), "semantics.json#/surfaces/v2/session/plan_update: ", /must be an object/],
    [semantics, "no entry for the surface", (t) => ({ ...t, surfaces: { v1: t.surfaces.v1 } }), "semantics.json#/surfaces: ", /no entry for surface "v2"/],
    [semantics, "an `extends` cycle", (t) => ({ ...t, surfaces: { ...t.surfaces, v2: { ...t.surfaces.v2, extends: "v2/unstable" } } }), "semantics.json#/surfaces/v2~1unstable/extends: ", /surfaces\["v2"\] extends itself/],
    [names, "not JSON", '{\n  "ContentBlock": {,\n}', "variant-names.json:2:20", /the naming table is not valid JSON/],
    [names, "not an object", '["ContentBlock"]', "variant-names.json#: ", /must be a JSON object/],
    [names, "an entry not an object", (t) => ({ ...t, ContentBlock: "ContentBlockText" }), "variant-names.json#/ContentBlock: ", /must map the untitled variants' tags of ContentBlock to type names/],
    [names, "a type name that is not an identifier", (t) => ({ ...t, ContentBlock: { ...t.ContentBlock, text: "Content Block" } }), "variant-names.json#/ContentBlock/text: ", /must be a TypeScript identifier, got "Content Block"/],
    [names, "a type name that is not a string", (t) => ({ ...t, "a/b": { x: 1 } }), "variant-names.json#/a~1b/x: ", /must be a TypeScript identifier, got 1/],
    [lockFile, "not JSON", '{"files": }', "lock.json:1:11", /the schema lock is not valid JSON/],
    [lockFile, "not an object", "null", "lock.json#: ", /must be a JSON object/],
    [lockFile, "no version", lock(({ version, ...rest }) => rest), "lock.json#/version: ", /`version` must be a string/],
    [lockFile, "`files` not an object", lock((l) => ({ ...l, files: ["v2/schema.json"] })), "lock.json#/files: ", /`files` must map schema files to their sha256/],
    [lockFile, "a hash that is not a sha256", lock((l) => ({ ...l, files: { "v2/schema.json": 42 } })), "lock.json#/files/v2~1schema.json: ", /must be 64 hex digits, got 42/],
  ];

  it.each(cases)("%s: %s", (file, _what, change, where, detail) => {
    const dir = withTable(file, change);
    expectOneError(generateInto(dir), join(dir, where), detail);
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
    Span: obj({ rt: { type: "integer" }, end: { type: "integer" }, B_Span: { type: "string" } }, ["rt", "end", "B_Span"]),
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
    expect(build).toMatch(/export function Span\(rt_: T\.Span\["rt"\], end: T\.Span\["end"\], B_Span_: T\.Span\["B_Span"\]\)/);
    expect(build).toContain("return rt.start(B_Span, { rt: rt_, end, B_Span: B_Span_ });");
  });

  it("a reserved word and a non-identifier def name are mapped to PascalCase", () => {
    const types = snapshotTree(out).get("src/v2/types.ts")!;
    expect(types).toMatch(/export interface String \{/);
    expect(types).toMatch(/export interface KebabCaseName \{/);
    expect(types).toMatch(/owner\?: String;/);
  });
});
