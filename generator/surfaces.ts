/** The protocol surfaces and the schema file each is generated from. */
import type { Surface } from "./ir.js";

export interface SurfaceSource {
  readonly surface: Surface;
  /** Path of the schema file inside the schema directory. */
  readonly file: string;
}

/** Every surface, in output order. */
export const SURFACES: readonly SurfaceSource[] = [
  { surface: "v1", file: "v1/schema.json" },
  { surface: "v1/unstable", file: "v1/schema.unstable.json" },
  { surface: "v2", file: "v2/schema.json" },
  { surface: "v2/unstable", file: "v2/schema.unstable.json" },
];
