/**
 * The pipeline: load -> recognise -> check -> emit, for each surface. Pure
 * apart from reading the schema directory; writing is the caller's business
 * (see write.ts), so a failure anywhere leaves the output untouched.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkIR } from "./check.js";
import { code, GeneratedFile, lines, name, type Code } from "./code.js";
import type { Emitter, EmitterFile, ExportStyle } from "./api.js";
import { checkEmitters, outputPath, packageModules } from "./emitters.js";
import { buildSurfaceModel, type SurfaceModel } from "./model.js";
import { PACKAGE_NAME, type PackageModule } from "./emit/package-layout.js";
import { emitApply } from "./emit/apply.js";
import { emitBuilders } from "./emit/builders.js";
import { emitConnection } from "./emit/connection.js";
import { emitSession } from "./emit/session.js";
import { STANDARD_EMITTER } from "./emit/standard.js";
import { emitCheckerBin } from "./emit/checker-bin.js";
import { emitNegotiate, hasNegotiation } from "./emit/negotiate.js";
import { runtimeDirFrom } from "./emit/shared.js";
import { emitTypes } from "./emit/types.js";
import { emitMethods } from "./emit/methods.js";
import { emitPackage } from "./emit/package.js";
import { emitParseOwned } from "./emit/parse-owned.js";
import { emitParsers } from "./emit/parsers.js";
import { emitFirstIssueValidators, emitValidators } from "./emit/validators.js";
import type { Surface } from "./ir.js";
import { SchemaError } from "./errors.js";
import { isPresent, loadSchema, loadSchemaLock } from "./load.js";
import { loadVariantNames, VARIANT_NAMES_FILE } from "./naming.js";
import { loadSemanticsTable, resolveSemantics, SEMANTICS_FILE } from "./overlay.js";
import { recogniseSchema } from "./recognise.js";
import { schemaSources, selectSources } from "./schema-dir.js";
import { LOCK_FILE } from "./schema-sync.js";
import type { OutputFile } from "./output.js";

/** The generator's own version, written into every provenance header. */
export const GENERATOR_VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

export interface GenerateOptions {
  /** Directory holding `v1/schema.json` etc. and the reviewed tables. */
  readonly schemaDir: string;
  /** Restrict to these surfaces (default: every surface the directory has, see schema-dir.ts). */
  readonly surfaces?: readonly Surface[];
  /** The untitled-variant naming table (default: `variant-names.json` in `schemaDir`). */
  readonly variantNames?: string;
  /** The reviewed semantics overlay (default: `semantics.json` in `schemaDir`). */
  readonly semantics?: string;
  /** Emitters to run after the built-in ones (a project's, from acp-codegen.config.ts or `--emitter`). */
  readonly emitters?: readonly Emitter[];
  /** Called after each surface with its time in milliseconds. */
  readonly onSurface?: (surface: Surface, millis: number) => void;
}

/** Runs the pipeline and returns every output file, in a stable order. */
export function generate(options: GenerateOptions): OutputFile[] {
  const sources = selectSources(schemaSources(options.schemaDir), options.surfaces, options.schemaDir);
  const names = loadVariantNames(options.variantNames ?? join(options.schemaDir, VARIANT_NAMES_FILE));
  const overlay = loadSemanticsTable(options.semantics ?? join(options.schemaDir, SEMANTICS_FILE));
  const lock = loadSchemaLock(options.schemaDir);
  for (const file of Object.keys(lock?.files ?? {})) {
    // A pinned file that went missing must not silently drop its surface.
    if (!isPresent(join(options.schemaDir, file))) throw new SchemaError(join(options.schemaDir, LOCK_FILE), "", `lists ${file}, which is missing`);
  }
  const emitters = checkEmitters([...BUILTIN_EMITTERS, ...(options.emitters ?? [])]);
  const files: OutputFile[] = runtimeFiles();
  const models: SurfaceModel[] = [];
  for (const source of sources) {
    const started = performance.now();
    const display = join(options.schemaDir, source.file);
    const schema = loadSchema(display, display);
    const pinned = lock?.files[source.file];
    if (pinned !== undefined && pinned !== schema.sha256) {
      throw new SchemaError(display, "", `sha256 ${schema.sha256} does not match ${join(options.schemaDir, LOCK_FILE)}; run \`npm run schema:sync\` (or restore the file)`);
    }
    const recognised = recogniseSchema(schema, source.surface, source.file, names);
    checkIR(recognised, display);
    const model = buildSurfaceModel(recognised, resolveSemantics(recognised, overlay, display), schema.defs, display);
    files.push(...emitSurface(model, emitters));
    models.push(model);
    options.onSurface?.(source.surface, performance.now() - started);
  }
  // The package files describe every surface; a run restricted to some keeps those on disk.
  if (!options.surfaces) {
    const extras = emitters.filter((e) => !BUILTIN_EMITTERS.includes(e));
    const context = { runtime: "runtime", packageName: PACKAGE_NAME };
    const additions = { packageJson: extras.flatMap((e) => e.packageJson ?? []), readme: extras.flatMap((e) => e.readme?.(context) ?? []) };
    files.push(...emitPackage({ irs: models, schemaDir: options.schemaDir, version: GENERATOR_VERSION, modules: packageModules(emitters), sdk: lock, additions }), emitCheckerBin(models, GENERATOR_VERSION));
    if (hasNegotiation(models.map((m) => m.surface))) files.push(emitNegotiate(GENERATOR_VERSION));
  }
  return files;
}

/**
 * The surface-independent runtime: the hand-written modules in
 * generator/runtime/, copied to generated/src/runtime/ with a header. They
 * hold the few helpers every surface shares (Result, prototype-safe writes).
 */
function runtimeFiles(): OutputFile[] {
  const dir = new URL("./runtime/", import.meta.url);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .sort()
    .map((name) => ({
      path: `src/runtime/${name}`,
      content:
        `// Generated by acp-codegen ${GENERATOR_VERSION} (runtime module, same for every surface).\n` +
        `// Do not edit: the source is generator/runtime/${name}; run \`npm run generate\`.\n\n` +
        readFileSync(new URL(name, dir), "utf8"),
    }));
}

/** A built-in emitter of one per-surface file, `<name>.ts`. */
function moduleEmitter(name: string, exports: ExportStyle, emit: (model: SurfaceModel) => string, needs: { requires?: string[]; runtime?: string[] }): Emitter {
  return { apiVersion: 1, name, ...needs, files: [{ path: `${name}.ts`, exports, emit }] };
}

/** The built-in emitters, in index.ts order: registered through the same API as a project's (api.ts). */
export const BUILTIN_EMITTERS: readonly Emitter[] = [
  { apiVersion: 1, name: "types", files: [{ path: "types.ts", exports: "types", emit: emitTypes }] },
  {
    apiVersion: 1,
    name: "validate",
    requires: ["types"],
    runtime: ["collect", "decode", "result"],
    files: [
      { path: "validate-first.ts", exports: "none", emit: emitFirstIssueValidators },
      { path: "validate.ts", exports: { namespace: "validate" }, emit: emitValidators },
    ],
  },
  moduleEmitter("parse", { namespace: "parse" }, emitParsers, { requires: ["types"], runtime: ["decode", "result"] }),
  moduleEmitter("parse-owned", { namespace: "parseOwned" }, emitParseOwned, { requires: ["types", "parse"], runtime: ["decode", "result"] }),
  { apiVersion: 1, name: "methods", requires: ["types"], files: [{ path: "methods.ts", exports: "flat", emit: emitMethods }] },
  moduleEmitter("build", { namespace: "build" }, emitBuilders, { requires: ["types"], runtime: ["build"] }),
  { apiVersion: 1, name: "apply", requires: ["types"], runtime: ["patch"], files: [{ path: "apply.ts", exports: { namespace: "apply" }, emit: emitApply }] },
  {
    apiVersion: 1,
    name: "session",
    requires: ["types", "validate", "apply"],
    runtime: ["decode", "patch", "result", "session", "subagent"],
    files: [{ path: "session.ts", exports: "flat", emit: emitSession }],
  },
  {
    apiVersion: 1,
    name: "connection",
    requires: ["types", "methods", "parse", "parse-owned", "validate", "session"],
    runtime: ["chain", "client-wire", "connection", "http-client", "http-node", "http-server", "proxy", "session-store", "transport", "websocket-client"],
    files: [{ path: "connection.ts", exports: "flat", emit: emitConnection }],
  },
  STANDARD_EMITTER,
];

/** The modules of every surface as the package files see them (index.ts order). */
export const SURFACE_MODULES: readonly PackageModule[] = packageModules(BUILTIN_EMITTERS);

/** Every file of one surface written by `emitters`, and the index.ts that re-exports them. */
export function emitSurface(model: SurfaceModel, emitters: readonly Emitter[] = BUILTIN_EMITTERS): OutputFile[] {
  const files = emitters.flatMap((e) => e.files);
  const modules = files.map((file) => {
    const context = { runtime: runtimeDirFrom(model.surface, file.path), packageName: PACKAGE_NAME };
    return { path: outputPath(model.surface, file.path), content: header(model) + file.emit(model, context) };
  });
  const index = new GeneratedFile();
  index.print(code`export type { Issue, Result } from ${`${runtimeDirFrom(model.surface, "index.ts")}/result.js`};`);
  index.print(lines(files.flatMap((file) => reexport(file))));
  return [...modules, { path: outputPath(model.surface, "index.ts"), content: header(model) + index.toString() }];
}

/** The line of index.ts that re-exports `file`, if it is re-exported. */
function reexport(file: EmitterFile): Code[] {
  const specifier = `./${file.path.replace(/\.ts$/, ".js")}`;
  if (file.exports === "none") return [];
  if (file.exports === "types") return [code`export type * from ${specifier};`];
  if (file.exports === "flat") return [code`export * from ${specifier};`];
  return [code`export * as ${name(file.exports.namespace)} from ${specifier};`];
}

/** The provenance header of a generated file. */
function header(model: Pick<SurfaceModel, "file" | "sha256">): string {
  return (
    `// Generated by acp-codegen ${GENERATOR_VERSION} from schema/${model.file}\n` +
    `// (sha256 ${model.sha256}). Do not edit: run \`npm run generate\`.\n\n`
  );
}
