/**
 * `npm run schema:sync`: copies the four ACP schema files from the installed
 * `@agentclientprotocol/sdk` into schema/ and rewrites schema/lock.json with
 * the package version and each file's sha256.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SURFACES } from "./surfaces.js";

/** The lock file: which SDK version the pinned schemas came from, and their hashes. */
export interface SchemaLock {
  readonly package: string;
  readonly version: string;
  readonly files: Record<string, string>;
}

export const SDK_PACKAGE = "@agentclientprotocol/sdk";

/** Name of the lock file inside the schema directory. */
export const LOCK_FILE = "lock.json";

/** sha256 (hex) of a file's bytes. */
export function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Copies the schemas of the installed SDK into `schemaDir` and writes `lock.json`. */
export function syncSchemas(schemaDir: string): SchemaLock {
  // The package's exports map hides package.json, so locate it on disk.
  const packageDir = join("node_modules", SDK_PACKAGE);
  const version: string = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
  return syncSchemasFrom(join(packageDir, "schema"), version, schemaDir);
}

/** Copies the four schema files of `sourceDir` (the SDK release `version`) into `schemaDir` and writes `lock.json`. */
export function syncSchemasFrom(sourceDir: string, version: string, schemaDir: string): SchemaLock {
  const files: Record<string, string> = {};
  for (const { file } of SURFACES) {
    mkdirSync(dirname(join(schemaDir, file)), { recursive: true });
    copyFileSync(join(sourceDir, file), join(schemaDir, file));
    files[file] = sha256File(join(schemaDir, file));
  }
  const lock: SchemaLock = { package: SDK_PACKAGE, version, files };
  writeFileSync(join(schemaDir, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
  return lock;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lock = syncSchemas("schema");
  process.stdout.write(`schema/ now holds ${lock.package}@${lock.version}; review with \`git diff schema/\`, then \`npm run generate\`.\n`);
}
