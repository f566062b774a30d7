/**
 * The emitters of a run, checked before any of them runs: what api.ts
 * promises (unique names, known requirements, existing runtime modules, file
 * paths that stay inside the surface and do not collide on any surface) holds
 * for every emitter, built-in or a project's. A broken emitter list is a usage error.
 */
import { existsSync } from "node:fs";
import type { Emitter } from "./api.js";
import { isIdentifier } from "./code.js";
import { UsageError } from "./errors.js";
import type { PackageModule } from "./emit/package-layout.js";
import { SURFACES } from "./surfaces.js";
import { surfaceOfOutputPath } from "./write.js";

const RUNTIME_DIR = new URL("./runtime/", import.meta.url);
const SAFE_PATH = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*\.ts$/i;

/** Where a surface's file `path` (relative to the surface, `guards.ts`) is written: `src/<surface>/<path>`. */
export function outputPath(surface: string, path: string): string {
  return `src/${surface}/${path}`;
}

/**
 * Returns `emitters` after checking them in order (an emitter may require only those before it).
 * Paths are checked on every surface, whichever a run generates: each must stay in its surface's
 * directory (`unstable/x.ts` written for `v1` would land in `src/v1/unstable/`, which a
 * `--surface v1/unstable` run replaces) and no two writers may share one.
 */
export function checkEmitters(emitters: readonly Emitter[]): readonly Emitter[] {
  const names = new Set<string>();
  // The writer of each output path, for the error naming both writers of a path.
  const writers = new Map(SURFACES.map(({ surface }) => [outputPath(surface, "index.ts"), `the index.ts of ${surface}`]));
  const namespaces = new Set<string>();
  for (const emitter of emitters) {
    const bad = (what: string): never => {
      throw new UsageError(`emitter ${JSON.stringify(emitter.name)}: ${what}`, "generate");
    };
    if (emitter.apiVersion !== 1) bad(`apiVersion ${JSON.stringify(emitter.apiVersion)} is not supported (this acp-codegen speaks 1)`);
    if (names.has(emitter.name)) bad("another emitter has the same name");
    for (const required of emitter.requires ?? []) if (!names.has(required)) bad(`requires ${JSON.stringify(required)}, which no emitter before it provides`);
    for (const module of emitter.runtime ?? []) if (!existsSync(new URL(`${module}.ts`, RUNTIME_DIR))) bad(`needs runtime module ${JSON.stringify(module)}, which the runtime does not have`);
    for (const file of emitter.files) {
      if (!SAFE_PATH.test(file.path)) bad(`file path ${JSON.stringify(file.path)} must be a relative .ts path of plain names`);
      for (const { surface } of SURFACES) {
        const path = outputPath(surface, file.path);
        // A path inside another surface's directory (`unstable/x.ts` of v1) would be that surface's file to `--surface`.
        const owner = surfaceOfOutputPath(path);
        if (owner !== surface) bad(`its ${file.path} on ${surface} lands in ${path}, in the directory of ${owner}, whose --surface runs would replace it`);
        const other = writers.get(path);
        if (other !== undefined) bad(`its ${file.path} on ${surface} and ${other} are both written to ${path}`);
        writers.set(path, `emitter ${JSON.stringify(emitter.name)}'s ${file.path} on ${surface}`);
      }
      if (typeof file.exports === "object") {
        if (!isIdentifier(file.exports.namespace) || namespaces.has(file.exports.namespace)) bad(`namespace ${JSON.stringify(file.exports.namespace)} is not a usable, unique identifier`);
        namespaces.add(file.exports.namespace);
      }
    }
    names.add(emitter.name);
  }
  return emitters;
}

/** The re-exported files of `emitters` as the package files describe them (see package-layout.ts). */
export function packageModules(emitters: readonly Emitter[]): PackageModule[] {
  return emitters.flatMap((e) =>
    e.files.flatMap((file) => {
      if (file.exports === "none") return [];
      const exports = file.exports === "types" ? "type" : file.exports === "flat" ? "value" : file.exports.namespace;
      return [{ file: file.path, exports }];
    }),
  );
}
