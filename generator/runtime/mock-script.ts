import { decodeUtf8 } from "./checker.js";
import { isObject, NotJson, parseText } from "./decode.js";
import type { Direction, Trace } from "./trace.js";

/*
 * The script of `npx acp-bindings mock-agent`: a trace (trace.ts has the
 * format; a file `record` wrote is a script as it is). Only the wire lines and
 * their directions are used: times and recorder events are not, and a file
 * holding several runs (`record` appends) plays its first (the lines up to the
 * second `start` event). Every wire line needs a direction: plain JSON-RPC
 * lines have none and are refused. Nothing here recurses on wire data.
 */

/** What a JSON-RPC message is, by its members; `other` for anything else (not JSON, not an object). */
export type Kind = "request" | "notification" | "response" | "other";

/** One wire line of a script or of the live peer, parsed once. */
export interface Wire {
  /** The line as it was (its bytes when they are not UTF-8). */
  readonly raw: string | Uint8Array;
  /** The parsed message, when the line is a JSON object. */
  readonly message?: Readonly<Record<string, unknown>>;
  readonly kind: Kind;
}

/** One wire line of a script, with its direction and its line number in the script file. */
export interface Step extends Wire {
  readonly line: number;
  readonly dir: Direction;
}

/** Parses a wire line (text or bytes) and tells what kind of message it is. */
export function readWire(raw: string | Uint8Array): Wire {
  const text = typeof raw === "string" ? raw : decodeUtf8(raw);
  if (text === undefined) return { raw, kind: "other" };
  const value = parseText(text);
  if (value instanceof NotJson || !isObject(value)) return { raw: text, kind: "other" };
  return { raw: text, message: value, kind: kindOf(value) };
}

function kindOf(message: Readonly<Record<string, unknown>>): Kind {
  const hasId = Object.hasOwn(message, "id");
  if (typeof message.method === "string") return hasId ? "request" : "notification";
  if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) return "response";
  return "other";
}

/** The steps of a trace's first run, or what makes it unusable as a script. */
export function scriptSteps(trace: Trace): Step[] | { problem: string } {
  const steps: Step[] = [];
  let starts = 0;
  for (const entry of trace.entries) {
    if (entry.event === "start" && ++starts > 1) break;
    if (entry.wire === undefined || entry.event !== undefined) continue;
    if (typeof entry.wire === "string" && entry.wire.trim() === "") continue;
    if (entry.dir === undefined) return { problem: `line ${entry.line}: a wire line without a direction (a script is a trace: each line has "dir")` };
    steps.push({ ...readWire(entry.wire), line: entry.line, dir: entry.dir });
  }
  if (steps.length === 0) return { problem: "the script has no wire lines" };
  return steps;
}

/** A map key for a JSON-RPC id (`1` and `"1"` are different ids). */
export function idKey(id: unknown): string {
  return typeof id === "string" ? `s:${id}` : typeof id === "number" ? `n:${id}` : id === null ? "null" : `?:${typeof id}`;
}

/** A JSON pointer segment for a key or index. */
function segment(key: string | number): string {
  return `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/**
 * The JSON pointer of the first place where two JSON values differ (object
 * key order does not count), or `undefined` when they are equal. Top-level
 * members named in `skip` are not compared. Walks with its own stack.
 */
export function firstDifference(expected: unknown, received: unknown, skip: readonly string[] = []): string | undefined {
  const stack: [unknown, unknown, string][] = [[expected, received, ""]];
  while (stack.length > 0) {
    const [a, b, path] = stack.pop()!;
    if (a === b) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return path;
    const difference = Array.isArray(a) ? pushArray(a, b as unknown[], path, stack) : pushObject(a as Record<string, unknown>, b as Record<string, unknown>, path === "" ? skip : [], path, stack);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

function pushArray(a: readonly unknown[], b: readonly unknown[], path: string, stack: [unknown, unknown, string][]): string | undefined {
  if (a.length !== b.length) return path;
  for (let i = a.length - 1; i >= 0; i--) stack.push([a[i], b[i], `${path}${segment(i)}`]);
  return undefined;
}

function pushObject(a: Record<string, unknown>, b: Record<string, unknown>, skip: readonly string[], path: string, stack: [unknown, unknown, string][]): string | undefined {
  const keys = Object.keys(a).filter((key) => !skip.includes(key));
  for (const key of Object.keys(b)) if (!skip.includes(key) && !Object.hasOwn(a, key)) return `${path}${segment(key)}`;
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    if (!Object.hasOwn(b, key)) return `${path}${segment(key)}`;
    stack.push([a[key], b[key], `${path}${segment(key)}`]);
  }
  return undefined;
}

/**
 * The text of a JSON object with the value of its top-level `id` member
 * replaced by `id` (a string, number or null), every other byte kept as it
 * was; the text unchanged when it has no such member. A scan of the text
 * that counts nesting (no parse, no recursion).
 */
export function replaceId(text: string, id: string | number | null): string {
  const span = topLevelValue(text, "id");
  return span === undefined ? text : `${text.slice(0, span[0])}${JSON.stringify(id)}${text.slice(span[1])}`;
}

/** Where the value of the top-level member `key` of a JSON object text starts and ends. */
function topLevelValue(text: string, key: string): [number, number] | undefined {
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const colon = text.indexOf(":", end);
        const start = skipSpace(text, colon + 1);
        if (parseText(text.slice(i, end)) === key) return [start, valueEnd(text, start)];
        expectKey = false;
        i = colon;
      } else i = end - 1;
    } else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = c === "{";
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
  }
  return undefined;
}

/** The index just after the string literal that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && " \t\r\n".includes(text[at]!)) at++;
  return at;
}

/** The end of the JSON value that starts at `start` (before the `,` or `}` that follows it, and its white space). */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') i = stringEnd(text, i) - 1;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && depth-- === 0) break;
    else if (c === "," && depth === 0) break;
  }
  while (i > start && " \t\r\n".includes(text[i - 1]!)) i--;
  return i;
}
