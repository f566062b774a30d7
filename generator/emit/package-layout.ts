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
