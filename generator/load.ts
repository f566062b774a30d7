/**
 * Stage 1 of the pipeline: read a schema file, report JSON syntax errors with
 * line and column, and index its `$defs`.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJsonText, SchemaError } from "./errors.js";
import { LOCK_FILE, type SchemaLock } from "./schema-sync.js";

// SchemaError lives with the other bad-input errors in errors.ts; re-exported for the modules that read schemas.
export { SchemaError } from "./errors.js";

/** A parsed schema file with its `$defs` indexed. */
export interface LoadedSchema {
  /** Path as given, used in messages. */
  readonly file: string;
  readonly sha256: string;
  readonly root: Record<string, unknown>;
  readonly defs: ReadonlyMap<string, unknown>;
}

/** Reads and parses one schema file; throws `SchemaError` naming the file and place. */
export function loadSchema(path: string, displayName: string = path): LoadedSchema {
  const text = readFileSync(path, "utf8");
  return loadSchemaText(text, displayName);
}

/** Parses schema text (see `loadSchema`). */
export function loadSchemaText(text: string, file: string): LoadedSchema {
  const root = parseJsonText(text, file);
  if (!isPlainObject(root)) throw new SchemaError(file, "", "the schema root must be a JSON object");
  const defsValue = root["$defs"];
  if (!isPlainObject(defsValue)) throw new SchemaError(file, "/$defs", "the schema has no `$defs` object");
  const defs = new Map<string, unknown>(Object.entries(defsValue));
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { file, sha256, root, defs };
}

/** Reads a JSON file (a reviewed table, the lock); a syntax error is a `SchemaError` with line:column. */
export function readJsonFile(path: string, what?: string): unknown {
  return parseJsonText(readFileSync(path, "utf8"), path, what);
}

/**
 * The schema lock of a directory (`lock.json`: the SDK release and the sha256
 * of each schema file), when it has one (fixture directories need not). A
 * malformed lock is a `SchemaError` naming the file and the bad entry.
 */
export function loadSchemaLock(schemaDir: string): SchemaLock | undefined {
  const path = join(schemaDir, LOCK_FILE);
  if (!existsSync(path)) return undefined;
  const lock = readJsonFile(path, "the schema lock is not valid JSON");
  const bad = (pointer: string, what: string): never => {
    throw new SchemaError(path, pointer, `${what}; rewrite the lock with \`npm run schema:sync\``);
  };
  if (!isPlainObject(lock)) return bad("", "the schema lock must be a JSON object");
  for (const key of ["package", "version"]) if (typeof lock[key] !== "string") bad(`/${key}`, `\`${key}\` must be a string`);
  const files = lock["files"];
  if (!isPlainObject(files)) return bad("/files", "`files` must map schema files to their sha256");
  for (const [file, hash] of Object.entries(files)) {
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) bad(`/files/${pointerSegment(file)}`, `the sha256 of ${file} must be 64 hex digits, got ${JSON.stringify(hash)}`);
  }
  return lock as unknown as SchemaLock;
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll("~", "~0").replaceAll("/", "~1");
}
