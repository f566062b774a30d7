/**
 * The errors that mean "bad input", in one place: the CLI exits 2 for each of
 * them and 3 for anything else (a bug in acp-codegen).
 *
 * - `SchemaError`: a schema, the schema lock or a reviewed table that cannot
 *   be read, parsed or recognised; it names the file and a JSON pointer (or
 *   line:column for JSON syntax errors).
 * - `UsageError`: a command line the CLI cannot act on.
 * - `UpdateStepError`: a step of `acp-codegen update` that failed (everything
 *   it touched restored); it names the step and what to edit before rerunning.
 * - a file-system error on a path the user named (`isFileSystemError`).
 */

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

/** A command line the CLI cannot act on; `command` names the command whose `--help` to point at. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * The failure of one step of `acp-codegen update`: which step, what went
 * wrong, and what a person edits or checks before running it again.
 */
export class UpdateStepError extends Error {
  constructor(
    /** The step's name, as the progress lines print it (`fetch`, `generate`, `test`, ...). */
    readonly step: string,
    message: string,
    /** The file or table entry to edit, or what to check, before running the update again. */
    readonly fix: string,
  ) {
    super(message);
    this.name = "UpdateStepError";
  }
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A missing, unreadable or unwritable path given on the command line (or implied by it), or a full or busy disk under it. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { path: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof (error as NodeJS.ErrnoException | undefined)?.path === "string" && ["ENOENT", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EROFS", "ENOSPC", "EDQUOT", "EBUSY", "ENOTEMPTY", "EEXIST"].includes(code ?? "");
}


/**
 * Parses JSON text read from `file`; a syntax error is a `SchemaError` with
 * line and column, its detail prefixed with `what` ("invalid JSON", "the
 * naming table is not valid JSON", ...).
 */
export function parseJsonText(text: string, file: string, what = "invalid JSON"): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = firstSyntaxErrorOffset(text);
    throw new SchemaError(file, "", `${what}: ${(error as Error).message}`, lineAndColumn(text, offset));
  }
}

/** Line and column (1-based, in UTF-16 units as editors count) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
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
