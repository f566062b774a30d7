/**
 * The public emitter API of acp-codegen (`acp-codegen/api`), version 1.
 *
 * An emitter adds an output kind to the generated package: per surface it
 * writes files from the `SurfaceModel`, says how each is exported from the
 * surface's entry point, names the emitters and runtime modules its code
 * imports, and may add package.json fields and a README section. The
 * built-in emitters (types, validate, parse, ...) are registered through the
 * same interface (see `BUILTIN_EMITTERS` in generate.ts). A project adds its
 * own in `acp-codegen.config.ts` (`export default defineConfig({ emitters })`)
 * or with `acp-codegen generate --emitter ./file.ts` (the file's default export).
 */
import type { PackageJsonAdditions } from "./emit/package-layout.js";
import type { SurfaceModel } from "./model.js";

export type { SessionModel, SurfaceModel } from "./model.js";
export type { MethodEntry } from "./methods.js";
export type { PackageJsonAdditions } from "./emit/package-layout.js";
export type * from "./ir.js";
export { block, chain, clause, code, doc, GeneratedFile, indent, join, key, lines, literalKey, member, name, own, ownSet, wrapped, type Code, type Interpolated } from "./code.js";

/** The version of this interface; an emitter states the one it was written for. */
export const EMITTER_API_VERSION = 1;

/**
 * How a surface's entry point (`acp-bindings/<surface>`) exports a file:
 * `types` (`export type *`), `flat` (`export *`), `{ namespace }` (`export * as
 * namespace`, and published as the subpath `acp-bindings/<surface>/<namespace>`),
 * or `none` (not re-exported).
 */
export type ExportStyle = "types" | "flat" | { readonly namespace: string } | "none";

/** What an emitter's functions know besides the model. */
export interface EmitContext {
  /** The shared runtime directory as imported from the file's directory (`../runtime`, `../../runtime`). */
  readonly runtime: string;
  /** The npm name of the generated package (`acp-bindings`). */
  readonly packageName: string;
}

/** One file an emitter writes for every surface. */
export interface EmitterFile {
  /**
   * Path inside the surface directory, `/`-separated, ending in `.ts` (`guards.ts`); written to
   * `src/<surface>/<path>`, which must be no other file's on any surface (`unstable/x.ts` on `v1`
   * is `src/v1/unstable/x.ts`, a file of `v1/unstable`'s directory): a run checks this and exits 2.
   */
  readonly path: string;
  readonly exports: ExportStyle;
  /** The file's body; the provenance header is added by the pipeline. */
  readonly emit: (model: SurfaceModel, context: EmitContext) => string;
}

/** An output kind of the generated package. */
export interface Emitter {
  /** `EMITTER_API_VERSION` as the emitter was written for. */
  readonly apiVersion: 1;
  /** Unique among the emitters of a run; what other emitters name in `requires`. */
  readonly name: string;
  /** Names of the emitters whose modules this one's code imports (`validate`, `parse`, `methods`, ...). */
  readonly requires?: readonly string[];
  /** Modules of the shared runtime (`src/runtime/<name>.ts`) this one's code imports, without extension. */
  readonly runtime?: readonly string[];
  readonly files: readonly EmitterFile[];
  readonly packageJson?: PackageJsonAdditions;
  /** A section of the package README (Markdown starting with a `## ` heading). */
  readonly readme?: (context: EmitContext) => string;
}

/** The contents of `acp-codegen.config.ts`. */
export interface AcpCodegenConfig {
  /** Emitters added after the built-in ones. */
  readonly emitters: readonly Emitter[];
}

/** Declares the configuration (typed identity): `export default defineConfig({ emitters: [guards] })`. */
export function defineConfig(config: AcpCodegenConfig): AcpCodegenConfig {
  return config;
}

/** Declares an emitter (typed identity), so its fields are checked where it is written. */
export function defineEmitter(emitter: Emitter): Emitter {
  return emitter;
}
