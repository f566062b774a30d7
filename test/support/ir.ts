/** Loads the IR of the pinned schemas, for tests that derive cases from the schema. */
import { join } from "node:path";
import type { SchemaIR, Surface } from "../../generator/ir.js";
import { loadSchema } from "../../generator/load.js";
import { loadVariantNames, VARIANT_NAMES_FILE } from "../../generator/naming.js";
import { recogniseSchema } from "../../generator/recognise.js";
import { SURFACES } from "../../generator/surfaces.js";

export const ROOT = new URL("../..", import.meta.url).pathname;
export const SCHEMA_DIR = join(ROOT, "schema");

/** The IR of one surface of the pinned schema. */
export function pinnedIR(surface: Surface): SchemaIR {
  const source = SURFACES.find((s) => s.surface === surface)!;
  const names = loadVariantNames(join(SCHEMA_DIR, VARIANT_NAMES_FILE));
  return recogniseSchema(loadSchema(join(SCHEMA_DIR, source.file)), surface, source.file, names);
}

/** The raw JSON of a pinned schema file. */
export function pinnedSchema(surface: Surface): { $defs: Record<string, unknown> } {
  const source = SURFACES.find((s) => s.surface === surface)!;
  return loadSchema(join(SCHEMA_DIR, source.file)).root as { $defs: Record<string, unknown> };
}
