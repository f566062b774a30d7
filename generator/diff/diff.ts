/**
 * `acp-codegen diff OLD NEW`: reads two schema files or directories, pairs
 * their surfaces, and compares each pair at the IR level (surface.ts).
 *
 * Untitled variants are named from a naming table found beside each side (a
 * directory's `variant-names.json`; for a file, the one in its directory or
 * the one above), else from the pinned `schema/variant-names.json`. A variant
 * NEW adds without a name does not stop the diff: it is reported as
 * `variant-unnamed`, so the diff tells what to add to the table.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SchemaIR } from "../ir.js";
import { loadSchema } from "../load.js";
import { loadVariantNames, VARIANT_NAMES_FILE, type VariantNames } from "../naming.js";
import { recogniseSchema } from "../recognise.js";
import { schemaSources, surfaceOfFile } from "../schema-dir.js";
import { SURFACES, type SurfaceSource } from "../surfaces.js";
import { compareSeverity, type Finding } from "./findings.js";
import { UNNAMED_VARIANT } from "./nodes.js";
import { compareSurface } from "./surface.js";

/** The naming table used when a side has none of its own. */
const PINNED_VARIANT_NAMES = new URL(`../../schema/${VARIANT_NAMES_FILE}`, import.meta.url).pathname;

/** Options of `diffSchemas`. */
export interface DiffOptions {
  /** Leave out findings about **UNSTABLE** items. */
  readonly ignoreUnstable?: boolean;
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
  readonly surfaces: readonly ComparedSurface[];
  readonly findings: readonly Finding[];
}

/** One side's schema files, each with its surface. */
interface Side {
  readonly path: string;
  readonly sources: readonly (SurfaceSource & { readonly path: string })[];
  readonly variantNames: string;
}

/** Compares the schemas at `oldPath` and `newPath` (files or directories). */
export function diffSchemas(oldPath: string, newPath: string, options: DiffOptions = {}): DiffReport {
  const old = sideOf(oldPath);
  const next = sideOf(newPath);
  const surfaces: ComparedSurface[] = [];
  const findings: Finding[] = [];
  for (const [surface, oldSource, newSource] of pairSources(old, next)) {
    surfaces.push({ surface, ...(oldSource ? { old: oldSource.path } : {}), ...(newSource ? { new: newSource.path } : {}) });
    findings.push(...compareSources(surface, oldSource && { side: old, source: oldSource }, newSource && { side: next, source: newSource }));
  }
  const kept = options.ignoreUnstable ? findings.filter((f) => !f.unstable) : findings;
  return { old: oldPath, new: newPath, surfaces, findings: sortFindings(kept, surfaces.map((s) => s.surface)) };
}

function sideOf(path: string): Side {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const sources = schemaSources(path).map((s) => ({ ...s, path: join(path, s.file) }));
    return { path, sources, variantNames: firstExisting([join(path, VARIANT_NAMES_FILE)]) };
  }
  const table = firstExisting([join(dirname(path), VARIANT_NAMES_FILE), join(dirname(path), "..", VARIANT_NAMES_FILE)]);
  return { path, sources: [{ ...surfaceOfFile(path), path }], variantNames: table };
}

function firstExisting(paths: readonly string[]): string {
  return paths.find((p) => existsSync(p)) ?? PINNED_VARIANT_NAMES;
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
    const only = (old ?? next)!.source.path;
    const base = { category: "API" as const, surface, location: `surface ${surface}`, unstable: false };
    return old
      ? [{ ...base, rule: "surface-removed", severity: "error", message: `only OLD has it (${only}); its entry point would be gone` }]
      : [{ ...base, rule: "surface-added", severity: "info", message: `only NEW has it (${only})` }];
  }
  const oldIR = recogniseLeniently(old).ir;
  const { ir: newIR, unnamed } = recogniseLeniently(next);
  return [...compareSurface(oldIR, newIR, surface), ...unnamed.map((u) => unnamedFinding(surface, u, next.side.variantNames))];
}

/** An untitled variant the naming table lacks. */
interface Unnamed {
  readonly def: string;
  readonly tag: string;
}

/** Recognises a schema file; variants the table does not name get a placeholder and are listed. */
function recogniseLeniently({ side, source }: Located): { ir: SchemaIR; unnamed: Unnamed[] } {
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
  const ir = recogniseSchema(loadSchema(source.path), source.surface, source.file, names);
  return { ir, unnamed };
}

function unnamedFinding(surface: string, { def, tag }: Unnamed, table: string): Finding {
  return {
    rule: "variant-unnamed",
    category: "API",
    severity: "warn",
    surface,
    location: `${def}[${JSON.stringify(tag)}]`,
    message: `untitled variant; \`npm run generate\` fails until ${table} names it`,
    unstable: false,
  };
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
