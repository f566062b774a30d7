/**
 * Stage 1 of the pipeline: read a schema file, report JSON syntax errors with
 * line and column, and index its `$defs`.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { lineAndColumn, parseJsonText, SchemaError } from "./errors.js";
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
  return loadSchemaText(readInputText(path, displayName), displayName);
}

/**
 * Whether `path` exists. A path the process may not look at (`EACCES`, say)
 * throws that file-system error, which names it, instead of reading as
 * absent: a schema directory with an unreadable part must not lose it quietly.
 */
export function isPresent(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

/**
 * The text of an input file, decoded as UTF-8 (a byte order mark is kept, so
 * that JSON parsing reports it). A directory, bytes that are not UTF-8 and a
 * file too large for a string are each a `SchemaError` naming the file (and,
 * for bytes, the line and column of the first bad one, as a JSON error gives them).
 */
export function readInputText(path: string, displayName: string = path): string {
  if (statSync(path).isDirectory()) throw new SchemaError(displayName, "", "is a directory, not a file");
  const bytes = readFileSync(path);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    // Only now is the first bad byte looked for: the bytes before it are UTF-8, so its line and column are those of their text.
    const bad = firstInvalidUtf8(bytes);
    if (bad < 0) throw new SchemaError(displayName, "", `too large to read as one string (${bytes.length} bytes): ${(error as Error).message}`);
    const before = new TextDecoder("utf-8").decode(bytes.subarray(0, bad));
    throw new SchemaError(displayName, "", "is not UTF-8 text", lineAndColumn(before, before.length));
  }
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Lead byte: sequence length and the range its first continuation byte must fall in (no overlongs, no surrogates, <= U+10FFFF).
    const [length, low, high] = b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf] : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf] : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : [0, 0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    if (bytes[i + 1]! < low || bytes[i + 1]! > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return -1;
}


/** Parses schema text (see `loadSchema`). */
export function loadSchemaText(text: string, file: string): LoadedSchema {
  const root = parseJsonText(text, file);
  const tooDeep = firstBeyond(root, MAX_SCHEMA_DEPTH);
  if (tooDeep !== undefined) throw new SchemaError(file, tooDeep, `nested more than ${MAX_SCHEMA_DEPTH} levels deep: acp-codegen reads schemas up to that depth`);
  if (!isPlainObject(root)) throw new SchemaError(file, "", "the schema root must be a JSON object");
  const defsValue = root["$defs"];
  if (!isPlainObject(defsValue)) throw new SchemaError(file, "/$defs", "the schema has no `$defs` object");
  const defs = new Map<string, unknown>(Object.entries(defsValue));
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { file, sha256, root, defs };
}

/**
 * How deep a schema may nest (arrays and objects, counted from the root). The
 * generator's passes recurse over the schema, and some thousands of levels
 * exhaust the call stack; ACP's schemas nest about ten levels.
 */
export const MAX_SCHEMA_DEPTH = 1000;

/** The JSON pointer of the first value of `root` nested deeper than `limit`, if any; iterative, so any depth is fine. */
function firstBeyond(root: unknown, limit: number): string | undefined {
  interface Visit {
    readonly value: unknown;
    readonly depth: number;
    readonly key: string;
    readonly parent: Visit | undefined;
  }
  const pending: Visit[] = [{ value: root, depth: 0, key: "", parent: undefined }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    if (typeof visit.value !== "object" || visit.value === null) continue;
    if (visit.depth === limit) {
      const segments: string[] = [];
      for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) segments.push(`/${pointerSegment(at.key)}`);
      return segments.reverse().join("");
    }
    for (const [key, value] of Object.entries(visit.value)) pending.push({ value, depth: visit.depth + 1, key, parent: visit });
  }
  return undefined;
}

/** Reads a JSON file (a reviewed table, the lock); a syntax error is a `SchemaError` with line:column. */
export function readJsonFile(path: string, what?: string): unknown {
  return parseJsonText(readInputText(path), path, what);
}

/**
 * The schema lock of a directory (`lock.json`: the SDK release and the sha256
 * of each schema file), when it has one (fixture directories need not). A
 * malformed lock is a `SchemaError` naming the file and the bad entry.
 */
export function loadSchemaLock(schemaDir: string): SchemaLock | undefined {
  const path = join(schemaDir, LOCK_FILE);
  if (!isPresent(path)) return undefined;
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
