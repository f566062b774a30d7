/**
 * What a schema directory holds: which schema file serves which surface.
 *
 * Two layouts exist among the published `@agentclientprotocol/sdk` packages:
 * - split (2.0.0 on): `v1/schema.json`, `v1/schema.unstable.json`,
 *   `v2/schema.json`, `v2/schema.unstable.json`, each a surface;
 * - legacy (1.x and 0.x): one `schema.json` holding every v1 item, the
 *   **UNSTABLE** ones included. That is what the split layout calls the full
 *   v1 surface, so it is read as `v1/unstable`.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Surface } from "./ir.js";
import { isPresent, SchemaError } from "./load.js";
import { SURFACES, type SurfaceSource } from "./surfaces.js";

/** The single schema file of the legacy layout. */
export const LEGACY_SCHEMA_FILE = "schema.json";

/** The surface the legacy single schema file is read as (see the file comment). */
export const LEGACY_SURFACE: Surface = "v1/unstable";

/** The schema files present in `schemaDir`, in output order; a `SchemaError` when there are none. */
export function schemaSources(schemaDir: string): SurfaceSource[] {
  if (!existsSync(schemaDir) || !statSync(schemaDir).isDirectory()) {
    throw new SchemaError(schemaDir, "", "no such schema directory");
  }
  const split = SURFACES.filter((s) => isPresent(join(schemaDir, s.file)));
  if (split.length > 0) return split;
  if (isPresent(join(schemaDir, LEGACY_SCHEMA_FILE))) return [{ surface: LEGACY_SURFACE, file: LEGACY_SCHEMA_FILE }];
  const expected = [...SURFACES.map((s) => s.file), LEGACY_SCHEMA_FILE].join(", ");
  throw new SchemaError(schemaDir, "", `no ACP schema here: expected one of ${expected}`);
}

/** The surface a single schema file serves, from its path (`.../v2/schema.unstable.json` -> `v2/unstable`). */
export function surfaceOfFile(path: string): SurfaceSource {
  const file = `${basename(dirname(path))}/${basename(path)}`;
  const split = SURFACES.find((s) => s.file === file);
  return split ?? { surface: LEGACY_SURFACE, file: basename(path) };
}

/** The sources selected by `--surface`; a `SchemaError` naming the directory for one it lacks. */
export function selectSources(
  sources: readonly SurfaceSource[],
  surfaces: readonly Surface[] | undefined,
  schemaDir: string,
): SurfaceSource[] {
  if (!surfaces) return [...sources];
  for (const surface of surfaces) {
    if (!sources.some((s) => s.surface === surface)) {
      throw new SchemaError(schemaDir, "", `has no schema for surface ${surface} (it has ${sources.map((s) => s.surface).join(", ")})`);
    }
  }
  return sources.filter((s) => surfaces.includes(s.surface));
}
