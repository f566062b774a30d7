/**
 * The package-level files of acp-bindings, the package in generated/: its
 * package.json (exports map, ESM, no side effects, no dependencies), the
 * tsconfig that `npm run build` compiles src/ to dist/ with, the README, and
 * verbatim copies of the schema files it was generated from (shipped as
 * `acp-bindings/schema/...`, the same subpaths as the SDK's).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SchemaIR, Surface } from "../ir.js";
import { BUILD_DIR, type OutputFile } from "../write.js";
import { emitPackageReadme } from "./package-readme.js";

/** The npm name of the generated package. */
export const PACKAGE_NAME = "acp-bindings";


/** One module of every surface, as `SURFACE_MODULES` in generate.ts lists it. */
export interface PackageModule {
  readonly file: string;
  readonly exports: string;
}

/** Everything the package files are made from. */
export interface PackageInput {
  /** Every surface of the run, in output order. */
  readonly irs: readonly SchemaIR[];
  /** The schema directory the surfaces were read from (their files are copied into the package). */
  readonly schemaDir: string;
  /** The generator's version, which is also the package's. */
  readonly version: string;
  /** The modules each surface's index.ts re-exports. */
  readonly modules: readonly PackageModule[];
  /** The SDK release the schemas came from (schema/lock.json); `undefined` when the directory has no lock. */
  readonly sdk: { readonly package: string; readonly version: string } | undefined;
}

/** package.json, tsconfig.json, README.md, the schema copies, and CHANGELOG.md when the schema directory has one. */
export function emitPackage(input: PackageInput): OutputFile[] {
  return [
    { path: "package.json", content: packageJson(input) },
    { path: "tsconfig.json", content: buildTsconfig(input.version) },
    { path: "README.md", content: emitPackageReadme(input) },
    ...input.irs.map((ir) => ({ path: schemaPath(ir), content: readFileSync(join(input.schemaDir, ir.file), "utf8") })),
    ...changelogOf(input.schemaDir).map((content) => ({ path: CHANGELOG, content })),
  ];
}

/** The changelog source `npm run changelog` writes into the schema directory (none until the pinned schema first changes). */
const CHANGELOG = "CHANGELOG.md";

function changelogOf(schemaDir: string): string[] {
  const file = join(schemaDir, CHANGELOG);
  return existsSync(file) ? [readFileSync(file, "utf8")] : [];
}

/** Path of a surface's schema copy inside the package, e.g. `schema/v2/schema.unstable.json`. */
export function schemaPath(ir: Pick<SchemaIR, "file">): string {
  return `schema/${ir.file}`;
}

/** The built module a surface's entry point resolves to, without extension (`dist/v2/unstable/index`). */
export function entryModule(surface: Surface): string {
  return `${BUILD_DIR}/${surface}/index`;
}

/**
 * The modules that an entry re-exports as a namespace (`parse`, `validate`, ...),
 * each also published as a subpath of its own (`acp-bindings/v2/unstable/parse`):
 * esbuild cannot tree-shake a namespace re-exported by the entry point, but
 * it keeps only the functions a consumer calls when the namespace is imported
 * from its module (`import * as parse from "acp-bindings/v2/unstable/parse"`).
 */
export function namespaceModules(modules: readonly PackageModule[]): { readonly name: string; readonly module: string }[] {
  return modules
    .filter((m) => m.exports !== "type" && m.exports !== "value")
    .map((m) => ({ name: m.exports, module: m.file.replace(/\.ts$/, "") }));
}

function packageJson(input: PackageInput): string {
  const manifest = {
    name: PACKAGE_NAME,
    version: input.version,
    description:
      "Agent Client Protocol (ACP) bindings for TypeScript with zero runtime dependencies, generated from the ACP JSON Schema" +
      (input.sdk ? ` (as published in ${input.sdk.package} ${input.sdk.version})` : ""),
    keywords: ["acp", "agent-client-protocol", "json-schema", "types", "validation"],
    type: "module",
    sideEffects: false,
    engines: { node: ">=20" },
    exports: exportsMap(input.irs, input.modules),
    files: [`${BUILD_DIR}/**/*.js`, `${BUILD_DIR}/**/*.d.ts`, "schema", ...changelogOf(input.schemaDir).map(() => CHANGELOG)],
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Per surface its entry and its namespace modules (`types` first), one per schema file, and package.json. */
function exportsMap(irs: readonly SchemaIR[], modules: readonly PackageModule[]): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  const target = (module: string) => ({ types: `./${module}.d.ts`, default: `./${module}.js` });
  for (const { surface } of irs) {
    map[`./${surface}`] = target(entryModule(surface));
    for (const { name, module } of namespaceModules(modules)) map[`./${surface}/${name}`] = target(`${BUILD_DIR}/${surface}/${module}`);
  }
  for (const ir of irs) map[`./${schemaPath(ir)}`] = `./${schemaPath(ir)}`;
  map["./package.json"] = "./package.json";
  return map;
}

/**
 * The build configuration: src/ to dist/ as ES2022 modules with declarations.
 * `lib` is ES2022 alone and `types` is empty, so the package cannot come to
 * depend on Node.js or DOM globals unnoticed.
 */
function buildTsconfig(version: string): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      module: "nodenext",
      moduleResolution: "nodenext",
      types: [],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      declaration: true,
      newLine: "lf",
      rootDir: "src",
      outDir: BUILD_DIR,
    },
    include: ["src"],
  };
  return (
    `// Generated by acp-codegen ${version}. Do not edit: run \`npm run generate\`.\n` +
    `// \`npm run build\` compiles src/ to ${BUILD_DIR}/ with this file.\n` +
    `${JSON.stringify(config, null, 2)}\n`
  );
}
