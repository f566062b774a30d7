/**
 * Stage 1 of the pipeline: read a schema file, report JSON syntax errors with
 * line and column, and index its `$defs`.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** A failure that names the place in the input: file, JSON pointer, and line/column for syntax errors. */
export class SchemaError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly detail: string,
    readonly position?: { readonly line: number; readonly column: number },
  ) {
    const where = position ? `${file}:${position.line}:${position.column}` : `${file}#${pointer}`;
    super(`${where}: ${detail}`);
    this.name = "SchemaError";
  }
}

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
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    const offset = firstSyntaxErrorOffset(text);
    throw new SchemaError(file, "", `invalid JSON: ${(error as Error).message}`, lineAndColumn(text, offset));
  }
  if (!isPlainObject(root)) throw new SchemaError(file, "", "the schema root must be a JSON object");
  const defsValue = root["$defs"];
  if (!isPlainObject(defsValue)) throw new SchemaError(file, "/$defs", "the schema has no `$defs` object");
  const defs = new Map<string, unknown>(Object.entries(defsValue));
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { file, sha256, root, defs };
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll("~", "~0").replaceAll("/", "~1");
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds the offset of the first JSON syntax error, because V8's message does
 * not always carry a position. Only called after `JSON.parse` has failed.
 */
function firstSyntaxErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const skipSpace = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const expect = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? "")) fail();
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    expect('"');
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === "" || match[0] === "-") fail();
    i += match![0].length;
  };
  const value = (): void => {
    skipSpace();
    const ch = text[i];
    if (ch === "{") {
      i++;
      skipSpace();
      if (text[i] === "}") return void i++;
      for (;;) {
        skipSpace();
        string();
        skipSpace();
        expect(":");
        value();
        skipSpace();
        if (text[i] === ",") i++;
        else return expect("}");
      }
    }
    if (ch === "[") {
      i++;
      skipSpace();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        skipSpace();
        if (text[i] === ",") i++;
        else return expect("]");
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return expect("true");
    if (ch === "f") return expect("false");
    if (ch === "n") return expect("null");
    number();
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail();
  } catch (offset) {
    if (typeof offset === "number") return offset;
    throw offset;
  }
  return text.length;
}
