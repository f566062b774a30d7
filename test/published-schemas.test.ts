/**
 * Every published ACP schema we keep as a fixture (test/fixtures/schemas/<sdk
 * version>/, copied from `npm pack @agentclientprotocol/sdk@<version>`) is
 * handled: its files match their lock, every surface is recognised and
 * checked with the fixture's own naming table, and the fixture generates
 * into a temp dir (with its own reviewed tables) whose output type-checks.
 * A schema dir that lacks a reviewed table fails with one clear error naming
 * that table.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkIR } from "../generator/check.js";
import { loadSchema } from "../generator/load.js";
import { loadVariantNames, VARIANT_NAMES_FILE } from "../generator/naming.js";
import { SEMANTICS_FILE } from "../generator/overlay.js";
import { recogniseSchema } from "../generator/recognise.js";
import { schemaSources } from "../generator/schema-dir.js";
import { sha256File, type SchemaLock } from "../generator/schema-sync.js";
import { typeCheck } from "./support/compile.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";
import { cli, tempDir } from "./support/run-cli.js";

const FIXTURES = join(ROOT, "test/fixtures/schemas");

/** The published SDK versions kept as fixtures, and the surfaces each one's layout yields. */
const VERSIONS = {
  "0.29.0": ["v1/unstable"], // legacy single schema.json: all of v1, UNSTABLE items included
  "1.0.0": ["v1/unstable"],
  "2.0.0": ["v1", "v1/unstable", "v2", "v2/unstable"],
  "2.4.0": ["v1", "v1/unstable", "v2", "v2/unstable"],
} as const;

/** The reviewed tables the pinned schema directory holds (every `.json` but the lock). */
const REVIEWED_TABLES = readdirSync(SCHEMA_DIR).filter((name) => name.endsWith(".json") && name !== "lock.json");

describe.each(Object.entries(VERSIONS))("@agentclientprotocol/sdk %s", (version, surfaces) => {
  const dir = join(FIXTURES, version);

  it("holds exactly the files its lock names, unmodified", () => {
    const lock = JSON.parse(readFileSync(join(dir, "lock.json"), "utf8")) as SchemaLock;
    expect(lock).toMatchObject({ package: "@agentclientprotocol/sdk", version });
    expect(schemaSources(dir).map((s) => s.file).sort()).toEqual(Object.keys(lock.files).sort());
    for (const [file, sha256] of Object.entries(lock.files)) expect(sha256File(join(dir, file)), file).toBe(sha256);
  });

  it(`is read as ${surfaces.join(", ")}, and every surface is recognised and checked`, () => {
    const names = loadVariantNames(join(dir, VARIANT_NAMES_FILE));
    expect(schemaSources(dir).map((s) => s.surface)).toEqual(surfaces);
    for (const source of schemaSources(dir)) {
      const ir = recogniseSchema(loadSchema(join(dir, source.file)), source.surface, source.file, names);
      expect(() => checkIR(ir, source.file)).not.toThrow();
      expect(ir.defs.length).toBeGreaterThan(150);
    }
  });

  it("has every reviewed table, generates into a temp dir, and the output type-checks", () => {
    expect(REVIEWED_TABLES.filter((table) => !existsSync(join(dir, table)))).toEqual([]);
    const out = tempDir(`published-${version}`);
    const run = cli("generate", "--schema-dir", dir, "--out", out, "--quiet");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const entries = surfaces.map((s) => join(out, "src", s, "index.ts"));
    expect(typeCheck(entries, "nodenext")).toEqual([]);
  }, 120_000);
});

describe("an old schema with the current reviewed tables", () => {
  it("names the untitled variants the naming table lacks instead of crashing", () => {
    const dir = tempDir("old-with-current-tables");
    cpSync(join(FIXTURES, "0.29.0", "schema.json"), join(dir, "schema.json"));
    for (const table of REVIEWED_TABLES) cpSync(join(SCHEMA_DIR, table), join(dir, table));
    const run = cli("generate", "--schema-dir", dir, "--check");
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `acp-codegen: ${join(dir, "schema.json")}#/$defs/AuthMethod/anyOf/0: untitled variant "env_var" of AuthMethod has no name: ` +
        `add "AuthMethod": { "env_var": "<TypeName>" } to ${join(dir, VARIANT_NAMES_FILE)} (the reviewed naming table)\n`,
    );
  });
});

describe("a schema dir without its reviewed semantics table", () => {
  it("fails with one clear error naming the missing file, and writes nothing", () => {
    const dir = tempDir("no-semantics");
    cpSync(join(FIXTURES, "1.0.0"), dir, { recursive: true });
    rmSync(join(dir, SEMANTICS_FILE));
    const out = join(tempDir("no-semantics-out"), "out");
    const run = cli("generate", "--schema-dir", dir, "--out", out, "--quiet");
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(join(dir, SEMANTICS_FILE));
    expect(existsSync(out)).toBe(false);
  });
});
