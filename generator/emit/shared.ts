/** What several emitters need about the surface they write. */
import type { SchemaIR } from "../ir.js";

/** The runtime directory as seen from a surface's directory (`../runtime`, `../../runtime`). */
export function runtimeDir(ir: SchemaIR): string {
  return `${"../".repeat(ir.surface.split("/").length)}runtime`;
}

/** The runtime directory as imported from `file` (a path inside the surface directory, e.g. `standard/strict.ts`). */
export function runtimeDirFrom(surface: string, file: string): string {
  const depth = surface.split("/").length + file.split("/").length - 1;
  return `${"../".repeat(depth)}runtime`;
}
