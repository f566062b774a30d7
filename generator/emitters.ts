/**
 * The emitters of a run, checked before any of them runs: what api.ts
 * promises (unique names, known requirements, existing runtime modules, file
 * paths that stay inside the surface and do not collide) holds for every
 * emitter, built-in or a project's. A broken emitter list is a usage error.
 */
import { existsSync } from "node:fs";
import type { Emitter } from "./api.js";
import { isIdentifier } from "./code.js";
import { UsageError } from "./errors.js";
import type { PackageModule } from "./emit/package-layout.js";

const RUNTIME_DIR = new URL("./runtime/", import.meta.url);
const SAFE_PATH = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*\.ts$/i;

/** Returns `emitters` after checking them in order (an emitter may require only those before it). */
export function checkEmitters(emitters: readonly Emitter[]): readonly Emitter[] {
  const names = new Set<string>();
  const paths = new Set(["index.ts"]);
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
      if (paths.has(file.path)) bad(`file ${file.path} is written by another emitter`);
      paths.add(file.path);
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
