/**
 * The layout of acp-bindings that every package file agrees on: its name,
 * where each schema copy and built entry module lives, which modules are
 * published as namespaces, and what the package files are made from. Both
 * package.ts (package.json, tsconfig) and package-readme.ts read it.
 */
import type { SchemaIR, Surface } from "../ir.js";
import type { SurfaceModel } from "../model.js";
import { BUILD_DIR } from "../output.js";

/** The npm name of the generated package. */
export const PACKAGE_NAME = "acp-bindings";

/** The project's own rulebook (rule ids S1..S35 cited in the code), shipped at the same path in the package. */
export const RULES_FILE = "docs/rules.md";

/** One module of every surface, as `SURFACE_MODULES` in generate.ts lists it. */
export interface PackageModule {
  readonly file: string;
  readonly exports: string;
}

/** Fields an emitter adds to the generated package.json. */
export interface PackageJsonAdditions {
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional: boolean }>>;
  readonly keywords?: readonly string[];
}

/** Everything the package files are made from. */
export interface PackageInput {
  /** Every surface of the run, in output order. */
  readonly irs: readonly SurfaceModel[];
  /** The schema directory the surfaces were read from (their files are copied into the package). */
  readonly schemaDir: string;
  /** The generator's version, which is also the package's (see `versionPolicy`). */
  readonly version: string;
  /** The modules each surface's index.ts re-exports. */
  readonly modules: readonly PackageModule[];
  /** The SDK release the schemas came from (schema/lock.json); `undefined` when the directory has no lock. */
  readonly sdk: { readonly package: string; readonly version: string } | undefined;
  /** What a project's emitters add (api.ts): package.json fields and README sections; none by default. */
  readonly additions?: { readonly packageJson: readonly PackageJsonAdditions[]; readonly readme: readonly string[] };
}

/**
 * The example programs the package ships (copies of this repository's examples/, which import the
 * package by name), each with the surface it needs: a run without that surface ships it not.
 */
export const SHIPPED_EXAMPLES: readonly { readonly path: string; readonly surface: "v1" | "v2" }[] = [
  { path: "examples/v1-agent.ts", surface: "v1" },
  { path: "examples/v1-client.ts", surface: "v1" },
  { path: "examples/v2-agent.ts", surface: "v2" },
  { path: "examples/echo-agent.ts", surface: "v2" },
  { path: "examples/v2-client.ts", surface: "v2" },
  // What both agents share (prompt text, session listing, a cancellable pause).
  { path: "examples/turn.ts", surface: "v1" },
  { path: "examples/turn.ts", surface: "v2" },
];

/** Every file of this repository a package may ship (generate reads them; scratch copies of the project need them). */
export const REPOSITORY_FILES: readonly string[] = ["LICENSE", RULES_FILE, ...new Set(SHIPPED_EXAMPLES.map((example) => example.path))];

/** The shipped examples of a run's surfaces, each path once. */
export function shippedExamples(surfaces: readonly Surface[]): string[] {
  return [...new Set(SHIPPED_EXAMPLES.filter((example) => surfaces.includes(example.surface)).map((example) => example.path))];
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
