/**
 * The public emitter API (generator/api.ts): the example emitter of
 * examples/emitter/ generated through the documented command and through a
 * configuration file, its output type-checked strictly, and the checks a run
 * applies to its emitter list.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emitter } from "../generator/api.js";
import { checkEmitters } from "../generator/emitters.js";
import { BUILTIN_EMITTERS } from "../generator/generate.js";
import { UsageError } from "../generator/errors.js";
import { run } from "./consumer/harness.js";
import { typeCheck } from "./support/compile.js";
import { readmeBlocks } from "./docs-readme.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";
import { snapshotTree, tempDir } from "./support/run-cli.js";

const EXAMPLE = join(ROOT, "examples", "emitter", "guards.ts");

/** A consumer of the generated guards: compiles only when `isPromptRequest` narrows to `PromptRequest`. */
const CONSUMER = `import { guards } from "./src/v2/index.js";

export function sessionOf(value: unknown): string | undefined {
  if (!guards.isPromptRequest(value)) return undefined;
  // @ts-expect-error narrowed to PromptRequest, whose sessionId is a string
  const wrong: number = value.sessionId;
  void wrong;
  return value.sessionId;
}
`;

/** A scratch project directory whose package.json makes its `.ts` files ES modules, as acp-codegen's own. */
function esmProject(prefix: string): string {
  const project = tempDir(prefix);
  writeFileSync(join(project, "package.json"), '{ "type": "module" }\n');
  return project;
}

describe("the example emitter", () => {
  it("README 'Writing an emitter' shows examples/emitter/guards.ts as it is", () => {
    expect(readmeBlocks("Writing an emitter", "ts")[0]).toBe(readFileSync(EXAMPLE, "utf8"));
  });

  it("runs by the documented command; its output type-checks strictly and narrows", () => {
    const [command] = readmeBlocks("Writing an emitter", "sh");
    expect(command).toBe("npm run generate -- --emitter examples/emitter/guards.ts --out /tmp/acp-bindings-guards\n");
    const generation = run("sh", ["-c", command!], ROOT);
    expect(generation.code, generation.stderr).toBe(0);
    const out = "/tmp/acp-bindings-guards";
    expect(readFileSync(join(out, "src/v2/index.ts"), "utf8")).toContain('export * as guards from "./guards.js";');
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("## Type guards");
    const manifest = JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(manifest.exports["./v2/unstable/guards"]).toEqual({ types: "./dist/v2/unstable/guards.d.ts", default: "./dist/v2/unstable/guards.js" });
    writeFileSync(join(out, "consumer.ts"), CONSUMER);
    expect(typeCheck([join(out, "consumer.ts")], "nodenext")).toEqual([]);
  }, 120_000);

  it("runs from acp-codegen.config.ts in the working directory, as the README writes it", () => {
    const project = esmProject("config");
    const config = readmeBlocks("Writing an emitter", "ts")[1]!;
    writeFileSync(join(project, "acp-codegen.config.ts"), config);
    mkdirSync(join(project, "examples", "emitter"), { recursive: true });
    cpSync(EXAMPLE, join(project, "examples", "emitter", "guards.ts"));
    mkdirSync(join(project, "node_modules"));
    symlinkSync(ROOT, join(project, "node_modules", "acp-codegen"), "dir");
    const out = join(project, "out");
    const generation = run("node", [join(ROOT, "generator", "acp-codegen.js"), "generate", "--quiet", "--schema-dir", SCHEMA_DIR, "--surface", "v2", "--out", out], project);
    expect(generation.code, generation.stderr).toBe(0);
    expect(existsSync(join(out, "src/v2/guards.ts"))).toBe(true);
  }, 60_000);

  it("a file that is not an emitter, or a missing one, is a usage error (exit 2)", () => {
    const project = esmProject("bad-emitter");
    writeFileSync(join(project, "not-an-emitter.ts"), "export default 42;\n");
    const bin = join(ROOT, "generator", "acp-codegen.js");
    const notEmitter = run("node", [bin, "generate", "--emitter", "not-an-emitter.ts", "--out", join(project, "out")], project);
    expect([notEmitter.code, notEmitter.stderr]).toEqual([2, expect.stringContaining("not-an-emitter.ts must export an emitter")]);
    const missing = run("node", [bin, "generate", "--emitter", "missing.ts", "--out", join(project, "out")], project);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("no such file: missing.ts")]);
    expect(existsSync(join(project, "out"))).toBe(false);
  }, 60_000);
});

describe("the emitter snapshots", () => {
  it("regenerate by the documented command, which leaves the committed snapshots as they are", () => {
    const [, command] = readmeBlocks("Writing an emitter", "sh");
    expect(command).toBe("npx vitest run test/emitter-snapshots.test.ts -u\n");
    const before = snapshotTree(join(ROOT, "test", "snapshots", "emitters"));
    expect(before.size).toBe(77);
    const update = run("sh", ["-c", command!], ROOT);
    expect(update.code, update.stdout + update.stderr).toBe(0);
    expect(snapshotTree(join(ROOT, "test", "snapshots", "emitters"))).toEqual(before);
  }, 60_000);
});

describe("the built-in emitters", () => {
  it("declare every runtime module and every other emitter their generated files import", () => {
    const owner = new Map(BUILTIN_EMITTERS.flatMap((e) => e.files.map((f) => [f.path, e.name] as const)));
    for (const emitter of BUILTIN_EMITTERS) {
      for (const file of emitter.files) {
        const text = readFileSync(join(ROOT, "generated", "src", "v2", "unstable", file.path), "utf8");
        const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*? from "([^"]+)";$/gm)].map((m) => m[1]!);
        const runtime = specifiers.filter((s) => s.includes("/runtime/")).map((s) => s.slice(s.lastIndexOf("/") + 1).replace(/\.js$/, ""));
        const siblings = specifiers.filter((s) => !s.includes("/runtime/")).map((s) => join(file.path, "..", s).replace(/\.js$/, ".ts"));
        expect(new Set(runtime), `${emitter.name}: ${file.path}`).toEqual(new Set(runtime.filter((m) => emitter.runtime?.includes(m))));
        for (const sibling of siblings) {
          const from = owner.get(sibling);
          if (from !== emitter.name) expect(emitter.requires ?? [], `${file.path} imports ${sibling}`).toContain(from);
        }
      }
    }
  });
});

describe("checkEmitters", () => {
  const emitter = (fields: Partial<Emitter>): Emitter => ({ apiVersion: 1, name: "extra", files: [{ path: "extra.ts", exports: "none", emit: () => "" }], ...fields });
  const problem = (extra: Emitter): string => {
    try {
      checkEmitters([...BUILTIN_EMITTERS, extra]);
      return "accepted";
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
  };

  it("accepts the built-in emitters and a well-formed extra one", () => {
    expect(problem(emitter({ requires: ["validate"], runtime: ["result"] }))).toBe("accepted");
  });

  it("rejects what would break the package: unknown requirement or runtime module, taken name, path or namespace, bad version", () => {
    expect(problem(emitter({ requires: ["zod"] }))).toContain('requires "zod"');
    expect(problem(emitter({ runtime: ["nope"] }))).toContain('runtime module "nope"');
    expect(problem(emitter({ name: "parse" }))).toContain("same name");
    expect(problem(emitter({ files: [{ path: "types.ts", exports: "none", emit: () => "" }] }))).toBe(
      `emitter "extra": its types.ts on v1 and emitter "types"'s types.ts on v1 are both written to src/v1/types.ts`,
    );
    expect(problem(emitter({ files: [{ path: "index.ts", exports: "none", emit: () => "" }] }))).toContain("the index.ts of v1 are both written to src/v1/index.ts");
    expect(problem(emitter({ files: [{ path: "../escape.ts", exports: "none", emit: () => "" }] }))).toContain("relative .ts path");
    expect(problem(emitter({ files: [{ path: "x.ts", exports: { namespace: "parse" }, emit: () => "" }] }))).toContain("namespace");
    expect(problem(emitter({ apiVersion: 2 as 1 }))).toContain("apiVersion 2");
  });

  it("rejects a path that lands in another surface's directory: unstable/x.ts on v1 is src/v1/unstable/x.ts", () => {
    const landing = (file: string) => `emitter "extra": its unstable/${file} on v1 lands in src/v1/unstable/${file}, in the directory of v1/unstable, whose --surface runs would replace it`;
    // On another surface's own file, and on a path no one else writes (a --surface v1/unstable run would delete it).
    expect(problem(emitter({ files: [{ path: "unstable/validate.ts", exports: "none", emit: () => "" }] }))).toBe(landing("validate.ts"));
    expect(problem(emitter({ files: [{ path: "unstable/extra.ts", exports: "none", emit: () => "" }] }))).toBe(landing("extra.ts"));
    // Two project emitters writing the same path: the second names the first.
    const first = emitter({ name: "first", files: [{ path: "extra.ts", exports: "none", emit: () => "" }] });
    expect(() => checkEmitters([...BUILTIN_EMITTERS, first, emitter({})])).toThrow(
      `emitter "extra": its extra.ts on v1 and emitter "first"'s extra.ts on v1 are both written to src/v1/extra.ts`,
    );
  });

  it("a run with such an emitter exits 2 naming the path and writes nothing, even for one surface", () => {
    const project = esmProject("colliding-emitter");
    const colliding = `export default { apiVersion: 1, name: "collide", files: [{ path: "unstable/validate.ts", exports: "none", emit: () => "" }] };\n`;
    writeFileSync(join(project, "collide.ts"), colliding);
    const out = join(project, "out");
    const generation = run("node", [join(ROOT, "generator", "acp-codegen.js"), "generate", "--schema-dir", SCHEMA_DIR, "--emitter", "collide.ts", "--surface", "v1", "--out", out], project);
    expect(generation.code).toBe(2);
    expect(generation.stderr).toContain(`emitter "collide": its unstable/validate.ts on v1 lands in src/v1/unstable/validate.ts, in the directory of v1/unstable`);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
