/**
 * acp-bindings against the official SDK (`@agentclientprotocol/sdk`, the
 * release in schema/lock.json): for every type name both export on the same
 * surface, our type and theirs must be assignable to each other, except the
 * list in the package README (derived by `sdkExceptions` from the IR). The
 * check is a module per surface with two assignments per name, compiled by
 * TypeScript 5.9 and 7.0 with `exactOptionalPropertyTypes` on and off; every
 * error is traced back to its name and direction.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { SDK_ENTRY, sdkExceptions } from "../generator/emit/package-sdk-compat.js";
import { SURFACES } from "../generator/surfaces.js";
import { run, tscOf } from "./consumer/harness.js";
import { pinnedIR, ROOT } from "./support/ir.js";

const WORK = join(ROOT, ".vitest-tmp", "sdk-compat");
const SDK_DIR = join(ROOT, "node_modules", "@agentclientprotocol", "sdk");

/** The SDK's generated type module behind each public entry point (`export type * from` it). */
const SDK_TYPES: Readonly<Record<Surface, string>> = {
  v1: "dist/v1/schema/types.gen.d.ts",
  "v1/unstable": "dist/v1/unstable/schema/types.gen.d.ts",
  v2: "dist/v2/schema/types.gen.d.ts",
  "v2/unstable": "dist/v2/unstable/schema/types.gen.d.ts",
};

const COMPILERS = ["typescript", "typescript-7"] as const;
const EXACT_OPTIONAL = [true, false] as const;

/** One assignment in a check module: `direction` says which type is assigned to which. */
interface Assignment {
  readonly surface: Surface;
  readonly name: string;
  readonly direction: "ours to sdk" | "sdk to ours";
}

/** The type names a declaration file exports (interfaces and type aliases). */
function exportedTypeNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
  const names = source.statements
    .filter((s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s))
    .filter((s) => s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
    .map((s) => s.name.text);
  return new Set(names);
}

/** The names both packages export on a surface, in our declaration order. */
function sharedNames(surface: Surface): string[] {
  const sdk = exportedTypeNames(join(SDK_DIR, SDK_TYPES[surface]));
  return pinnedIR(surface).defs.map((d) => d.name).filter((name) => sdk.has(name));
}

/** The check module of a surface, and the assignment on each of its lines (1-based). */
function checkModule(surface: Surface, names: readonly string[]): { text: string; lines: Map<number, Assignment> } {
  const ours = `../../generated/src/${surface}/types.js`;
  const text = [
    `// Mutual assignability of acp-bindings/${surface} and ${SDK_ENTRY[surface]} (written by test/sdk-compat.test.ts).`,
    `import type * as Ours from ${JSON.stringify(ours)};`,
    `import type * as Sdk from ${JSON.stringify(SDK_ENTRY[surface])};`,
  ];
  const lines = new Map<number, Assignment>();
  for (const name of names) {
    text.push(`declare const ours_${name}: Ours.${name};`, `export const toSdk_${name}: Sdk.${name} = ours_${name};`);
    lines.set(text.length, { surface, name, direction: "ours to sdk" });
    text.push(`declare const sdk_${name}: Sdk.${name};`, `export const toOurs_${name}: Ours.${name} = sdk_${name};`);
    lines.set(text.length, { surface, name, direction: "sdk to ours" });
  }
  return { text: `${text.join("\n")}\n`, lines };
}

/** A tsconfig for the check modules; `exact` sets `exactOptionalPropertyTypes`. */
function tsconfig(files: readonly string[], exact: boolean): string {
  const compilerOptions = {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    exactOptionalPropertyTypes: exact,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  return JSON.stringify({ compilerOptions, files }, null, 2);
}

/** `file(line,col): error TS...` lines of tsc output, as `file` and `line`. */
function errorLocations(output: string): { file: string; line: number; text: string }[] {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/gm)].map((m) => ({ file: m[1]!, line: Number(m[2]), text: m[3]! }));
}

describe("types compared with the official SDK", () => {
  const modules = new Map<string, Map<number, Assignment>>();
  const shared = new Map<Surface, string[]>();

  beforeAll(() => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    for (const { surface } of SURFACES) {
      const names = sharedNames(surface);
      shared.set(surface, names);
      const file = `${surface.replace("/", "-")}.ts`;
      const { text, lines } = checkModule(surface, names);
      writeFileSync(join(WORK, file), text);
      modules.set(file, lines);
    }
    for (const exact of EXACT_OPTIONAL) writeFileSync(join(WORK, `tsconfig.${exact ? "exact" : "loose"}.json`), tsconfig([...modules.keys()], exact));
  });

  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it.each(SURFACES.map((s) => s.surface))("%s: every $defs type is exported by the SDK entry under the same name", (surface) => {
    expect(shared.get(surface)).toEqual(pinnedIR(surface).defs.map((d) => d.name));
  });

  const matrix = COMPILERS.flatMap((compiler) => EXACT_OPTIONAL.map((exact) => [compiler, exact] as const));
  it.each(matrix)("%s, exactOptionalPropertyTypes %s: exactly the README's exceptions fail, and only SDK to ours", (compiler, exact) => {
    const result = run(process.execPath, [tscOf(compiler), "-p", `tsconfig.${exact ? "exact" : "loose"}.json`, "--pretty", "false"], WORK);
    const failures = errorLocations(result.stdout).map((error) => {
      const assignment = modules.get(error.file)?.get(error.line);
      if (!assignment) throw new Error(`an error outside the assignments: ${error.file}:${error.line} ${error.text}`);
      return `${assignment.surface} ${assignment.name}: ${assignment.direction}`;
    });
    const expected = SURFACES.flatMap(({ surface }) => sdkExceptions(pinnedIR(surface)).map((e) => `${surface} ${e.name}: sdk to ours`));
    expect(failures.sort()).toEqual(expected.sort());
  });

  it("the package README lists each exception under its entry point", () => {
    const readme = readFileSync(join(ROOT, "generated", "README.md"), "utf8");
    for (const { surface } of SURFACES) {
      const section = readme.split(`### \`acp-bindings/${surface}\`: `)[1]?.split("\n### ")[0] ?? "";
      const listed = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
      expect(listed).toEqual(sdkExceptions(pinnedIR(surface)).map((e) => e.name));
    }
  });
});
