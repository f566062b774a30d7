/**
 * `acp-codegen diff OLD NEW`: reads two schema files or directories, pairs
 * their surfaces, and compares each pair at the IR level (surface.ts).
 *
 * Untitled variants are named from a naming table found beside each side (a
 * directory's `variant-names.json`; for a file, the one in its directory or
 * the one above), else from the pinned `schema/variant-names.json`. A variant
 * NEW adds without a name does not stop the diff: it is reported as
 * `variant-unnamed`, so the diff tells what to add to the table.
 *
 * A legacy single `schema.json` (SDK 0.x/1.x) holds all of v1, UNSTABLE items
 * included: against a split layout it is paired with both v1 surfaces, so a
 * stable-v1 user sees what changed for `acp-bindings/v1` too.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Def, SchemaIR } from "../ir.js";
import { loadSchema } from "../load.js";
import { loadVariantNames, VARIANT_NAMES_FILE, type VariantNames } from "../naming.js";
import { recogniseSchema } from "../recognise.js";
import { LEGACY_SCHEMA_FILE, schemaSources, surfaceOfFile } from "../schema-dir.js";
import { SURFACES, type SurfaceSource } from "../surfaces.js";
import { compareSeverity, type Finding } from "./findings.js";
import { UNNAMED_VARIANT } from "./nodes.js";
import { rootOptions, ROOT_DEF, withRootDef } from "./root.js";
import { compareSurface } from "./surface.js";

/** The naming table used when a side has none of its own. */
const PINNED_VARIANT_NAMES = new URL(`../../schema/${VARIANT_NAMES_FILE}`, import.meta.url).pathname;

/** Options of `diffSchemas`. */
export interface DiffOptions {
  /** Compare only the stable protocol: no draft surface (`DRAFT_SURFACES`), no **UNSTABLE** item. */
  readonly ignoreUnstable?: boolean;
  /** Compare only these surfaces. */
  readonly surfaces?: readonly string[];
}

/**
 * The surfaces that are drafts as a whole. The unstable files add the
 * **UNSTABLE** features to their protocol version, and all of v2 is the draft
 * of the next protocol version: the SDK publishes it as
 * `@agentclientprotocol/sdk/experimental/v2` and the schema's links point to
 * `protocol/v2/draft`, so its items carry no **UNSTABLE** mark of their own.
 * The stable protocol is what `acp-bindings/v1` exports.
 */
const DRAFT_SURFACES: ReadonlySet<string> = new Set(["v1/unstable", "v2", "v2/unstable"]);

/** Whether `--ignore-unstable` keeps a surface: the stable protocol is on no draft surface. */
export function isStableSurface(surface: string): boolean {
  return !DRAFT_SURFACES.has(surface);
}

/** The release a schema side comes from: `package` and `version` of its `lock.json`. */
export interface Release {
  readonly package: string;
  readonly version: string;
}

/** One compared pair of schema files. */
export interface ComparedSurface {
  readonly surface: string;
  readonly old?: string;
  readonly new?: string;
}

/** The result of a diff: what was compared and what was found, sorted. */
export interface DiffReport {
  readonly old: string;
  readonly new: string;
  /** The releases of each side, when a `lock.json` names them. */
  readonly oldRelease?: Release;
  readonly newRelease?: Release;
  readonly surfaces: readonly ComparedSurface[];
  readonly findings: readonly Finding[];
  /** Only the stable protocol was compared (`ignoreUnstable`). */
  readonly stableOnly: boolean;
}

/** One side's schema files, each with its surface. */
interface Side {
  readonly path: string;
  readonly release?: Release;
  readonly sources: readonly (SurfaceSource & { readonly path: string })[];
  readonly variantNames: string;
}

/** Compares the schemas at `oldPath` and `newPath` (files or directories). */
export function diffSchemas(oldPath: string, newPath: string, options: DiffOptions = {}): DiffReport {
  const old = sideOf(oldPath);
  const next = sideOf(newPath);
  const surfaces: ComparedSurface[] = [];
  const findings: Finding[] = [];
  const selected = pairSources(old, next)
    .filter(([surface]) => !options.surfaces || options.surfaces.includes(surface))
    .filter(([surface]) => !options.ignoreUnstable || isStableSurface(surface));
  for (const [surface, oldSource, newSource] of selected) {
    surfaces.push({ surface, ...(oldSource ? { old: oldSource.path } : {}), ...(newSource ? { new: newSource.path } : {}) });
    findings.push(...compareSources(surface, oldSource && { side: old, source: oldSource }, newSource && { side: next, source: newSource }));
  }
  const kept = options.ignoreUnstable ? findings.filter((f) => !f.unstable) : findings;
  return {
    old: oldPath,
    new: newPath,
    ...(old.release ? { oldRelease: old.release } : {}),
    ...(next.release ? { newRelease: next.release } : {}),
    surfaces,
    findings: sortFindings(kept, surfaces.map((s) => s.surface)),
    stableOnly: options.ignoreUnstable ?? false,
  };
}

function sideOf(path: string): Side {
  if (isDirectory(path)) {
    const dir = schemaDirOf(path);
    const sources = schemaSources(dir).flatMap(legacyAsBothV1).map((s) => ({ ...s, path: join(dir, s.file) }));
    return { path, sources, variantNames: firstExisting([join(dir, VARIANT_NAMES_FILE)]) ?? PINNED_VARIANT_NAMES, ...releaseIn([dir]) };
  }
  const near = [dirname(path), join(dirname(path), "..")];
  const table = firstExisting(near.map((dir) => join(dir, VARIANT_NAMES_FILE))) ?? PINNED_VARIANT_NAMES;
  return { path, sources: [{ ...surfaceOfFile(path), path }], variantNames: table, ...releaseIn(near) };
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The schema directory of a path: itself, or the `schema/` of an unpacked SDK package (a directory holding `package.json` and `schema/`). */
function schemaDirOf(dir: string): string {
  const inner = join(dir, "schema");
  const isPackage = !existsSync(join(dir, "lock.json")) && existsSync(join(dir, "package.json")) && isDirectory(inner);
  return isPackage ? inner : dir;
}

/** The legacy single file serves both v1 surfaces (see the file comment). */
function legacyAsBothV1(source: SurfaceSource): SurfaceSource[] {
  return source.file === LEGACY_SCHEMA_FILE ? [{ ...source, surface: "v1" }, source] : [source];
}

function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((p) => existsSync(p));
}

/**
 * `{ release }` from the first `lock.json` in `dirs` that names a package and
 * version; else from the `package.json` (name and version) of the directory
 * holding a `schema/` among `dirs` (an unpacked SDK package); else `{}`.
 */
function releaseIn(dirs: readonly string[]): { release?: Release } {
  const lock = firstExisting(dirs.map((dir) => join(dir, "lock.json")));
  if (lock) return releaseOf(lock, "package");
  const schemaDir = dirs.find((dir) => basename(resolve(dir)) === "schema");
  const manifest = schemaDir && firstExisting([join(schemaDir, "..", "package.json")]);
  return manifest ? releaseOf(manifest, "name") : {};
}

/** The package and version a JSON file names under `nameKey` and `version`, or `{}`. */
function releaseOf(file: string, nameKey: string): { release?: Release } {
  let json: Partial<Record<string, unknown>>;
  try {
    json = JSON.parse(readFileSync(file, "utf8")) as Partial<Record<string, unknown>>;
  } catch {
    return {};
  }
  const [name, version] = [json[nameKey], json["version"]];
  return typeof name === "string" && typeof version === "string" ? { release: { package: name, version } } : {};
}

/** A path for a report: relative to the working directory when inside it, else as given (never made absolute). */
export function displayPath(path: string): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(process.cwd(), path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
}

type Source = Side["sources"][number];

/** Two single files are compared with each other; otherwise surfaces are paired by name. */
function pairSources(old: Side, next: Side): [string, Source | undefined, Source | undefined][] {
  if (old.sources.length === 1 && next.sources.length === 1) return [[next.sources[0]!.surface, old.sources[0], next.sources[0]]];
  return SURFACES.map((s) => s.surface)
    .map((surface): [string, Source | undefined, Source | undefined] => [surface, old.sources.find((s) => s.surface === surface), next.sources.find((s) => s.surface === surface)])
    .filter(([, a, b]) => a || b);
}

interface Located {
  readonly side: Side;
  readonly source: Source;
}

function compareSources(surface: string, old: Located | undefined, next: Located | undefined): Finding[] {
  if (!old || !next) {
    const only = (old ?? next)!.source.file;
    const base = { category: "API" as const, surface, location: `surface ${surface}`, unstable: false };
    return old
      ? [{ ...base, rule: "surface-removed", severity: "error", message: `only OLD has it (${only}); its entry point would be gone` }]
      : [{ ...base, rule: "surface-added", severity: "info", message: `only NEW has it (${only})` }];
  }
  const oldIR = recogniseLeniently(old);
  const newIR = recogniseLeniently(next);
  const findings = compareSurface({ ...oldIR.ir, roots: rootOptions(oldIR.root) }, { ...newIR.ir, roots: rootOptions(newIR.root) }, surface);
  return [...findings, ...newIR.unnamed.map((u) => unnamedFinding(surface, u, next.side.variantNames))];
}

/** An untitled variant the naming table lacks. */
interface Unnamed {
  readonly def: string;
  readonly tag: string;
}

/**
 * Recognises a schema file, its root message union as the def `root`;
 * variants the table does not name get a placeholder and are listed.
 */
function recogniseLeniently({ side, source }: Located): { ir: SchemaIR; root: Def | undefined; unnamed: Unnamed[] } {
  const table = loadVariantNames(side.variantNames);
  const unnamed: Unnamed[] = [];
  const names: VariantNames = {
    ...table,
    lookup: (def, tag) =>
      table.lookup(def, tag, () => {
        unnamed.push({ def, tag });
        return UNNAMED_VARIANT as never;
      }),
  };
  const ir = recogniseSchema(withRootDef(loadSchema(source.path)), source.surface, source.file, names);
  const isRoot = (def: Def) => (def.schemaName ?? def.name) === ROOT_DEF;
  return { ir: { ...ir, defs: ir.defs.filter((d) => !isRoot(d)) }, root: ir.defs.find(isRoot), unnamed };
}

function unnamedFinding(surface: string, { def, tag }: Unnamed, table: string): Finding {
  return {
    rule: "variant-unnamed",
    category: "API",
    severity: "warn",
    surface,
    location: `${def}[${JSON.stringify(tag)}]`,
    message: `untitled variant; \`npm run generate\` fails until ${tableName(table)} names it`,
    unstable: false,
  };
}

/** The naming table as a report names it: acp-codegen's own one as `schema/variant-names.json`, never by this machine's path. */
function tableName(table: string): string {
  return table === PINNED_VARIANT_NAMES ? `schema/${VARIANT_NAMES_FILE}` : displayPath(table);
}

/** Surface order, then severity, then location, category and rule: stable across runs. */
function sortFindings(findings: readonly Finding[], surfaces: readonly string[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      surfaces.indexOf(a.surface) - surfaces.indexOf(b.surface) ||
      compareSeverity(a.severity, b.severity) ||
      a.location.localeCompare(b.location, "en") ||
      a.category.localeCompare(b.category, "en") ||
      a.rule.localeCompare(b.rule, "en"),
  );
}
