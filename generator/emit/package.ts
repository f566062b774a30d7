/**
 * The package-level files of acp-bindings, the package in generated/: its
 * package.json (exports map, ESM, no side effects, no dependencies, license,
 * the version policy's provenance, a `prepack` guard), the tsconfig that
 * `npm run build` compiles src/ to dist/ with, the README, the LICENSE and the
 * rulebook and the example programs of this repository, and verbatim copies of the schema files it was
 * generated from (shipped as `acp-bindings/schema/...`, the SDK's subpaths).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SchemaIR } from "../ir.js";
import { BUILD_DIR, type OutputFile } from "../output.js";
import { entryModule, namespaceModules, PACKAGE_NAME, RULES_FILE, schemaPath, shippedExamples, type PackageInput, type PackageJsonAdditions, type PackageModule } from "./package-layout.js";
import { emitPackageReadme } from "./package-readme.js";
import { CHECKER_BIN } from "./checker-bin.js";
import { hasNegotiation, NEGOTIATE_ENTRY, NEGOTIATE_MODULE } from "./negotiate.js";
import { STANDARD_MODULES } from "./standard.js";

// Kept here for the benchmarks and tests that name the package.
export { PACKAGE_NAME } from "./package-layout.js";

/** The acp-codegen repository: its LICENSE and rulebook ship in the package, its package.json gives license and repository. */
const REPOSITORY_ROOT = new URL("../../", import.meta.url);

/** The fields of acp-codegen's own package.json that the generated package takes over. */
interface GeneratorManifest {
  readonly license: string;
  /** Absent until the project names its public repository. */
  readonly repository?: { readonly type: string; readonly url: string };
}

/** package.json, tsconfig.json, README.md, LICENSE, the rulebook, the schema copies, CHANGELOG.md when the schema directory has one, and the examples. */
export function emitPackage(input: PackageInput): OutputFile[] {
  const repositoryFile = (path: string) => readFileSync(new URL(path, REPOSITORY_ROOT), "utf8");
  const generator = JSON.parse(repositoryFile("package.json")) as GeneratorManifest;
  return [
    { path: "package.json", content: packageJson(input, generator) },
    { path: "tsconfig.json", content: buildTsconfig(input.version) },
    { path: "README.md", content: emitPackageReadme(input) },
    { path: "LICENSE", content: repositoryFile("LICENSE") },
    { path: RULES_FILE, content: repositoryFile(RULES_FILE) },
    ...input.irs.map((ir) => ({ path: schemaPath(ir), content: readFileSync(join(input.schemaDir, ir.file), "utf8") })),
    ...changelogOf(input.schemaDir).map((content) => ({ path: CHANGELOG, content })),
    ...shippedExamples(input.irs.map((ir) => ir.surface)).map((path) => ({ path, content: repositoryFile(path) })),
  ];
}

/** The changelog source `npm run changelog` writes into the schema directory (none until the pinned schema first changes). */
const CHANGELOG = "CHANGELOG.md";

function changelogOf(schemaDir: string): string[] {
  const file = join(schemaDir, CHANGELOG);
  return existsSync(file) ? [readFileSync(file, "utf8")] : [];
}

function packageJson(input: PackageInput, generator: GeneratorManifest): string {
  const additions = input.additions?.packageJson ?? [];
  const manifest = {
    name: PACKAGE_NAME,
    version: input.version,
    description:
      "Agent Client Protocol (ACP) bindings for TypeScript with zero runtime dependencies, generated from the ACP JSON Schema" +
      (input.sdk ? ` (as published in ${input.sdk.package} ${input.sdk.version})` : ""),
    keywords: [...new Set(["acp", "agent-client-protocol", "json-schema", "types", "validation", ...additions.flatMap((a) => a.keywords ?? [])])],
    license: generator.license,
    ...(generator.repository ? { repository: { ...generator.repository, directory: "generated" } } : {}),
    type: "module",
    sideEffects: false,
    engines: { node: ">=20" },
    exports: exportsMap(input.irs, input.modules),
    bin: { [PACKAGE_NAME]: `./${BUILD_DIR}/${CHECKER_BIN}.js` },
    files: [
      `${BUILD_DIR}/**/*.js`,
      `${BUILD_DIR}/**/*.d.ts`,
      "schema",
      RULES_FILE,
      ...(shippedExamples(input.irs.map((ir) => ir.surface)).length > 0 ? ["examples"] : []),
      ...changelogOf(input.schemaDir).map(() => CHANGELOG),
    ],
    scripts: { prepack: PREPACK_CHECK },
    ...mergedField(additions, "peerDependencies"),
    ...mergedField(additions, "peerDependenciesMeta"),
    // The version policy (README "Versions"): the package version is the generator's; this records the schema release.
    acp: {
      generator: `acp-codegen@${input.version}`,
      ...(input.sdk ? { schema: `${input.sdk.package}@${input.sdk.version}` } : {}),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `{ [field]: merged }` of the emitters' additions to one object field of package.json, `{}` when none adds any. */
function mergedField<F extends "peerDependencies" | "peerDependenciesMeta">(additions: readonly PackageJsonAdditions[], field: F): Record<string, unknown> {
  const merged = Object.assign({}, ...additions.map((a) => a[field] ?? {})) as Record<string, unknown>;
  return Object.keys(merged).length ? { [field]: merged } : {};
}

/**
 * The `prepack` script, which npm runs for `npm pack ./generated` and
 * `npm publish ./generated` (not for a packed .tgz): every file the exports
 * map names must exist, so an unbuilt package fails with one line saying
 * what to run instead of publishing types and schemas without JavaScript.
 * `node -e` runs it as CommonJS; `sh -c` and `cmd` both take its quoting.
 */
const PREPACK_CHECK =
  "node -e \"const fs=require('fs');" +
  "const targets=Object.values(require('./package.json').exports).flatMap((t)=>typeof t==='string'?[t]:Object.values(t));" +
  "const missing=targets.find((t)=>!fs.existsSync(t));" +
  `if(missing){console.error('${PACKAGE_NAME} is not built ('+missing+' is missing): ` +
  "in the acp-codegen repository run npm run release (build, pack into packed/, publish that tarball) or npm run pack');" +
  'process.exit(1)}"';

/** Per surface its entry and its namespace modules (`types` first), one per schema file, and package.json. */
function exportsMap(irs: readonly SchemaIR[], modules: readonly PackageModule[]): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  const target = (module: string) => ({ types: `./${module}.d.ts`, default: `./${module}.js` });
  for (const { surface } of irs) {
    map[`./${surface}`] = target(entryModule(surface));
    for (const { name, module } of [...namespaceModules(modules), ...STANDARD_MODULES]) map[`./${surface}/${name}`] = target(`${BUILD_DIR}/${surface}/${module}`);
  }
  if (hasNegotiation(irs.map((ir) => ir.surface))) map[`./${NEGOTIATE_ENTRY}`] = target(`${BUILD_DIR}/${NEGOTIATE_MODULE}`);
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
