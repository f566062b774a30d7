import type { Issue, Result } from "./result.js";
import { describeJson } from "./describe.js";

export type { Issue };

/** Options of `parse.X(value, options)`. */
export interface ParseOptions {
  /**
   * Also say what the tolerant decoding forgave: the ok result then carries
   * `forgiven`, one issue per dropped property, skipped item or replaced value,
   * in document order. Costs a walk of the input; nothing when not asked.
   */
  readonly forgiven?: boolean;
}

/** Options of `validate.X(value, options)`. */
export interface ValidateOptions {
  /** Every issue, in document order, instead of the first one (slower; only on invalid input). */
  readonly all?: boolean;
}

/*
 * Helpers shared by the generated `validate` and `parse` functions.
 *
 * Failure protocol: a generated check returns `undefined` when the value does
 * not fit (parsers return the decoded value, validators `true`). The innermost
 * failing check calls `fail(message)`; each caller on the way out adds its
 * path segment with `at(segment)`. Nothing is allocated on the success path,
 * and a failure that a tolerant boundary absorbs (S23, S24, S26) costs only
 * the strings already built. JSON values are never `undefined`, so it is a
 * safe "no value" marker.
 */

let trail: string[] = [];
let reason = "";

const NOTHING = Symbol("nothing");

/**
 * Records a failure at the current value; returns the failure marker. With
 * `received`, the message names it too (`expected a string, got number 5`).
 */
export function fail(message: string, received: unknown = NOTHING): undefined {
  trail = [];
  reason = received === NOTHING ? message : `${message}, got ${describe(received)}`;
  return undefined;
}

/** A short description of a received value for messages (strings cut at 40 characters). */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/** Adds a path segment (already escaped, with its leading `/`) to the current failure. */
export function at(segment: string): undefined {
  trail.push(segment);
  return undefined;
}

/** Adds an array index or object key to the current failure (escaped per RFC 6901). */
export function atKey(key: string | number): undefined {
  trail.push("/" + String(key).replaceAll("~", "~0").replaceAll("/", "~1"));
  return undefined;
}

/** A failure as recorded so far: its path segments (innermost first) and message. */
export interface Failure {
  readonly trail: readonly string[];
  readonly reason: string;
}

/** The current failure, to compare the alternatives of a union. */
export function failure(): Failure {
  return { trail, reason };
}

/** Whichever of `best` and the current failure got deeper into the value. */
export function deeper(best: Failure): Failure {
  return trail.length > best.trail.length ? { trail, reason } : best;
}

/**
 * Ends a union no alternative matched: the failure of the alternative that got
 * deepest into the value (e.g. `/result/stopReason` of a response), or, when
 * none got inside it, "matches no alternative".
 */
export function noAlternative(best: Failure, value: unknown): undefined {
  if (best.trail.length === 0) return fail("matches no alternative", value);
  trail = [...best.trail];
  reason = best.reason;
  return undefined;
}

/** Wraps a decoded value (or the failure marker) into a `Result`. */
export function finish<T>(value: unknown): Result<T> {
  if (value !== undefined) return { ok: true, value: value as T };
  const issue: Issue = { path: trail.reverse().join(""), message: reason };
  trail = [];
  return { ok: false, issues: [issue] };
}

/** `finish`, with what the decoding forgave on an ok result (`parse.X(value, { forgiven: true })`). */
export function finishForgiving<T>(input: unknown, decoded: unknown): Result<T> {
  const result = finish<T>(decoded);
  return result.ok ? { ok: true, value: result.value, forgiven: forgiven(input, decoded) } : result;
}

/** Mark a part of the input without counterpart in the decoded value: a property, an array item. */
const GONE: unique symbol = Symbol("gone");
const SKIPPED: unique symbol = Symbol("skipped");

/**
 * What a tolerant decoding forgave, found by comparing the input with `parse`'s
 * output (which holds a sub-value of the input, S23-S29): properties dropped
 * (unknown ones, S29, and malformed default-on-error values, S23), array items
 * skipped (S24), values read as something else (`null` as `[]`, S25), and
 * values the output holds that the input lacks. In document order, located by
 * JSON pointer; iterative, so any depth `JSON.parse` reads is fine. Skipped
 * items are matched greedily: an input item is paired with the next output item
 * when it could have decoded to it.
 */
export function forgiven(input: unknown, output: unknown): Issue[] {
  const found: Issue[] = [];
  const stack: [unknown, unknown, string][] = [[input, output, ""]];
  while (stack.length > 0) {
    const [a, b, path] = stack.pop()!;
    if (a === b) continue;
    if (b === GONE) found.push({ path, message: `dropped ${brief(a)}` });
    else if (b === SKIPPED) found.push({ path, message: `skipped the item ${brief(a)}` });
    else if (a === GONE) found.push({ path, message: `filled in ${brief(b)}` });
    else if (Array.isArray(a) && Array.isArray(b)) {
      const pairs = alignItems(a, b);
      for (let i = a.length - 1; i >= 0; i--) stack.push([a[i], pairs[i]! < 0 ? SKIPPED : b[pairs[i]!], `${path}/${i}`]);
    } else if (isObject(a) && isObject(b)) {
      const extra = Object.keys(b).filter((key) => !Object.hasOwn(a, key));
      for (let i = extra.length - 1; i >= 0; i--) stack.push([GONE, b[extra[i]!], path + escapeKey(extra[i]!)]);
      const keys = Object.keys(a);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([a[keys[i]!], Object.hasOwn(b, keys[i]!) ? b[keys[i]!] : GONE, path + escapeKey(keys[i]!)]);
    } else if (!Object.is(a, b)) found.push({ path, message: `read ${brief(a)} as ${brief(b)}` });
  }
  return found;
}

/** For each input item, the index of the output item it decoded to, or -1 when it was skipped. */
function alignItems(input: readonly unknown[], output: readonly unknown[]): number[] {
  const pairs: number[] = [];
  let j = 0;
  for (let i = 0; i < input.length; i++) {
    const keep = j < output.length && (input.length - i === output.length - j || couldDecodeTo(input[i], output[j]));
    pairs.push(keep ? j++ : -1);
  }
  return pairs;
}

/** Whether `output` can be the decoding of `input`: the same kind, and an object's scalar fields equal. */
function couldDecodeTo(input: unknown, output: unknown): boolean {
  if (Object.is(input, output)) return true;
  if (Array.isArray(output)) return Array.isArray(input);
  if (!isObject(output)) return false;
  if (!isObject(input)) return false;
  for (const key of Object.keys(output)) {
    if (!Object.hasOwn(input, key)) return false;
    const value = output[key];
    if ((typeof value !== "object" || value === null) && !Object.is(value, input[key])) return false;
  }
  return true;
}

/** A JSON pointer segment for an object key (RFC 6901). */
function escapeKey(key: string): string {
  return "/" + key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A value for a message: its JSON, cut to 40 characters (bounded, whatever its depth: `describeJson`). */
export function brief(value: unknown): string {
  return describeJson(value, 40);
}

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An own property, for keys that also name `Object.prototype` members (S34). */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * While true, the generated validators' `minItems` checks pass. Set only by
 * `withMinItemsWaived`, for `sessionStateFromJSON`: the tolerant parser does not
 * assert `minItems` (a Rust `Vec` takes `[]`), so a state the reducer built
 * from its output may hold a shorter array, which must restore as it was.
 */
export let minItemsWaived = false;

/** `run()` with `minItemsWaived` set; restores the setting it replaced. */
export function withMinItemsWaived<T>(run: () => T): T {
  const before = minItemsWaived;
  minItemsWaived = true;
  try {
    return run();
  } finally {
    minItemsWaived = before;
  }
}

/** Number of Unicode code points, as JSON Schema's `minLength` counts them. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const patterns = new Map<string, RegExp>();

/** JSON Schema `pattern` (ECMA-262, `u` flag, as ajv compiles it); each pattern is compiled once. */
export function matches(text: string, pattern: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) patterns.set(pattern, (re = new RegExp(pattern, "u")));
  return re.test(text);
}

/**
 * Stores `value` under `key` as an own data property. Plain assignment would
 * call the `__proto__` setter and change the object's prototype (S34).
 */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A fresh deep copy of a JSON value; every key, `__proto__` included, stays plain data (S29, S34).
 * Recursion up to `RECURSION_LIMIT` levels (fast: nothing allocated but the copies), an explicit
 * stack below that: `JSON.parse` reads values nested a million levels deep, more than any call stack.
 */
export function copyJson(value: unknown): unknown {
  return typeof value === "object" && value !== null ? copyToDepth(value, 0) : value;
}

/** Depth up to which `copyJson` recurses; deeper parts are copied with a stack. */
const RECURSION_LIMIT = 64;

/**
 * An object copied whole in one step by a spread (V8 clones the source's shape, and a spread
 * defines each key as an own data property, so an own `__proto__` stays data, S34), then its
 * object members replaced by their copies. `out[key] = ...` is safe for every key here: it is an
 * own data property of `out` already, which a store finds before any inherited setter. (The
 * spread also copies own symbol-keyed properties, which JSON never has, shallowly: dropping
 * them would need `Object.getOwnPropertySymbols` per object, 2.8x the copy's time.)
 */
function copyToDepth(value: object, depth: number): unknown {
  if (depth === RECURSION_LIMIT) return copyWithStack(value);
  if (Array.isArray(value)) {
    // Not `slice()`: it consults the array's `constructor` (its `Symbol.species`), a key like any other (S34).
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const member: unknown = value[i];
      out[i] = typeof member === "object" && member !== null ? copyToDepth(member, depth + 1) : member;
    }
    return out;
  }
  const out: Record<string, unknown> = { ...value };
  // `for in` reads the shape's cached key list (faster than `Object.keys`); inherited keys are skipped.
  for (const key in out) {
    const member = out[key];
    if (typeof member === "object" && member !== null && Object.hasOwn(out, key)) out[key] = copyToDepth(member, depth + 1);
  }
  return out;
}

/** `copyJson` for any depth: pairs of a source container and its copy on an explicit stack. */
function copyWithStack(value: object): unknown {
  const root = emptyLike(value);
  const pending: unknown[] = [value, root];
  while (pending.length > 0) {
    const target = pending.pop() as Record<string, unknown> | unknown[];
    const source = pending.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) (target as unknown[])[i] = copyMember(source[i], pending);
    } else {
      for (const key of Object.keys(source)) put(target as Record<string, unknown>, key, copyMember(source[key], pending));
    }
  }
  return root;
}

/** A primitive as it is; a container as a fresh empty one, queued to be filled from the source. */
function copyMember(member: unknown, pending: unknown[]): unknown {
  if (typeof member !== "object" || member === null) return member;
  const copy = emptyLike(member);
  pending.push(member, copy);
  return copy;
}

function emptyLike(value: object): Record<string, unknown> | unknown[] {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

/** Copies every own property of `source` except `skip` into `target`, deep and raw (custom variants, S27). */
export function copyRawExcept(source: Record<string, unknown>, target: Record<string, unknown>, skip: readonly string[]): Record<string, unknown> {
  for (const key of Object.keys(source)) if (!skip.includes(key)) put(target, key, copyJson(source[key]));
  return target;
}

/** Copies the own properties of a decoded `source` into `target` (merging a decoded union branch). */
export function merge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(source)) put(target, key, source[key]);
  return target;
}

/** Records a failure at a child path segment (e.g. a missing required property). */
export function failAt(segment: string, message: string): undefined {
  fail(message);
  return at(segment);
}

/**
 * True when a check that accounted for `known` keys of `value` saw all of them
 * (`Infinity`: the value keeps every key, e.g. a custom variant; negative: the
 * check failed). An unknown key means the tolerant parser would drop it (S29).
 */
export function exactKeys(value: object, known: number): boolean {
  if (known < 0) return false;
  if (known === Infinity) return true;
  // Inherited enumerable keys (a polluted Object.prototype) only make the count differ: the caller then copies.
  let n = 0;
  for (const _ in value) n++;
  return n === known;
}

/** Unknown keys an owned-tree check met, as pairs (object, key) in the first `noted` slots: the parser drops them (S29). */
const unknownKeys: unknown[] = [];
let noted = 0;

/** Slots kept between checks; one message with more unknown keys than this does not keep its capacity alive. */
const KEPT_SLOTS = 4096;

/** What `settleUnknown` returns when the value must go to the copying parser instead. */
export const UNSETTLED: unique symbol = Symbol("unsettled");

/**
 * Starts an owned-tree check: forgets notes a check left behind when it threw
 * (a getter of a caller-built value), so that they never reach another value
 * and their slots keep nothing alive.
 */
export function beginOwned(): void {
  forgetNotesSince(0);
}

/** Notes an unknown key of `value` met by an owned-tree check; `settleUnknown` deletes or forgets it. */
export function noteUnknown(value: object, key: string): void {
  unknownKeys[noted++] = value;
  unknownKeys[noted++] = key;
}

/** How many notes the check has made so far: a mark for `forgetNotesSince`. */
export function notesMade(): number {
  return noted;
}

/**
 * Forgets the notes made since `mark`: those of a part the parser drops whole
 * (S23), whose own check failed after noting keys inside it. The part goes
 * with its key; nothing inside it is deleted.
 */
export function forgetNotesSince(mark: number): void {
  clearNotes(mark, noted);
  noted = mark;
}

/**
 * Ends an owned-tree check of `value`; returns what the caller hands out, or
 * `UNSETTLED` when the value must go to the copying parser, with `value` left
 * as it was: the check failed (`held` false: the notes are forgotten), or a
 * noted key cannot be deleted (frozen or sealed input, or a caller-built proxy
 * whose trap throws). Every noted key is known to be deletable before any is
 * deleted, so no key goes unless all do. When the check held, the unknown keys
 * it noted go (S29): deleted in place from the parts of `value`, while `value`
 * itself, should it have some, is replaced by a fresh object holding its other
 * members, in order (a `delete` of any key but the last one added turns an
 * object into a dictionary, much dearer, and the top object is what the caller
 * reads most; a JSON-RPC envelope's wrapper rebuilds its top itself and notes
 * nothing there). A check never backtracks (any "no" ends
 * it), and the custom variant's mixin is not checked by key, so every noted
 * key belongs to a part that holds. `__proto__` goes like any other key (S34).
 */
export function settleUnknown<V>(held: boolean, value: V): V | typeof UNSETTLED {
  const n = noted;
  noted = 0;
  if (n === 0) return held ? value : UNSETTLED;
  const settled = held && notedDeletable(value, n) ? deleteNoted(value, n) : UNSETTLED;
  clearNotes(0, n);
  if (unknownKeys.length > KEPT_SLOTS) unknownKeys.length = 0;
  return settled;
}

/** Empties the note slots from `start` to `end` (slots are reused, not shrunk: a length change is a runtime call). */
function clearNotes(start: number, end: number): void {
  for (let i = start; i < end; i++) unknownKeys[i] = undefined;
}

/** Whether every noted key of a part of `value` can be deleted: an own key that is not configurable cannot (a frozen or sealed part). */
function notedDeletable(value: unknown, n: number): boolean {
  try {
    for (let i = 0; i < n; i += 2) {
      const target = unknownKeys[i] as object;
      if (target === value) continue;
      const own = Reflect.getOwnPropertyDescriptor(target, unknownKeys[i + 1] as string);
      if (own !== undefined && !own.configurable) return false;
    }
    return true;
  } catch {
    return false; // a caller-built proxy's trap threw
  }
}

/** Deletes the noted keys (each known to be deletable); the top's own go by a fresh top object. */
function deleteNoted<V>(value: V, n: number): V | typeof UNSETTLED {
  let ownUnknown: unknown[] | undefined;
  try {
    for (let i = 0; i < n; i += 2) {
      const target = unknownKeys[i] as Record<string, unknown>;
      const key = unknownKeys[i + 1] as string;
      if (target === value) (ownUnknown ??= []).push(key);
      else if (!Reflect.deleteProperty(target, key)) return UNSETTLED; // only a proxy that said it could
    }
  } catch {
    return UNSETTLED; // a caller-built proxy's trap threw after saying it could
  }
  return ownUnknown ? (withoutKeys(value as Record<string, unknown>, ownUnknown) as V) : value;
}

/** A fresh object with the own members of `value` but `skip`, in order (S34: every key stays data); linear in the keys. */
function withoutKeys(value: Record<string, unknown>, skip: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const skipped = skip.length > 8 ? new Set(skip) : undefined;
  for (const key in value) {
    if (Object.hasOwn(value, key) && !(skipped ? skipped.has(key) : skip.includes(key))) put(out, key, value[key]);
  }
  return out;
}

/** Pushes an issue at `path` (the all-issues path of `validate`); returns nothing. */
export function issue(out: Issue[], path: string, message: string, received: unknown = NOTHING): undefined {
  out.push({ path, message: received === NOTHING ? message : `${message}, got ${describe(received)}` });
  return undefined;
}

/** `path` extended by one array index or object key (escaped per RFC 6901). */
export function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** No alternative of a union holds: the issues of the one whose issues go deepest into the value. */
export function deepestIssues(out: Issue[], path: string, value: unknown, alternatives: readonly ((into: Issue[]) => void)[]): undefined {
  let best: Issue[] = [];
  let depth = -1;
  for (const collect of alternatives) {
    const found: Issue[] = [];
    collect(found);
    // Loops, not spreads: the number of issues is the input's to choose (no argument-count limit).
    let deepest = -1;
    for (const i of found) deepest = Math.max(deepest, i.path.split("/").length);
    if (deepest > depth) [best, depth] = [found, deepest];
  }
  if (depth <= path.split("/").length) return issue(out, path, "matches no alternative", value);
  for (const i of best) out.push(i);
  return undefined;
}

/**
 * The all-issues result of an invalid value: every issue a collector finds, in
 * document order (keys in the order the value has them; a missing property
 * after its object's keys), or the fast path's issue should it find none.
 */
export function allIssues(value: unknown, collect: (v: unknown, p: string, out: Issue[]) => void): Result<never> {
  const first = finish<never>(undefined);
  const out: Issue[] = [];
  collect(value, "", out);
  if (out.length === 0) return first;
  const keyIndexes = new Map<object, ReadonlyMap<string, number>>();
  const order = out.map((i) => documentPosition(value, i.path, keyIndexes));
  const sorted = out.map((_, n) => n).sort((a, b) => comparePositions(order[a]!, order[b]!) || a - b);
  return { ok: false, issues: sorted.map((n) => out[n]!) };
}

/**
 * The position of a pointer in `value`: per level, the index of the key among the container's keys
 * (a key the container lacks sorts after its keys). `keyIndexes` caches each object's key order, so
 * many issues in one large container cost one pass over its keys, not one per issue.
 */
function documentPosition(value: unknown, path: string, keyIndexes: Map<object, ReadonlyMap<string, number>>): number[] {
  const position: number[] = [];
  let at: unknown = value;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof at !== "object" || at === null) break;
    let index: number;
    let size: number;
    if (Array.isArray(at)) {
      const n = Number(key);
      size = at.length;
      index = Number.isInteger(n) && n >= 0 && n < size ? n : -1;
    } else {
      let keys = keyIndexes.get(at);
      if (keys === undefined) keyIndexes.set(at, (keys = new Map(Object.keys(at).map((k, i) => [k, i]))));
      size = keys.size;
      index = keys.get(key) ?? -1;
    }
    position.push(index < 0 ? size : index);
    at = index < 0 ? undefined : (at as Record<string, unknown>)[key];
  }
  return position;
}

function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * `decode` of the tree `JSON.parse` makes of `text` (one JSON-RPC line, say):
 * the tree is owned by no one else, so an owned-tree decoder may return it as
 * is. Text that is not JSON is an issue at the root; never throws, unless
 * `decode` does. Keys such as `__proto__` are own data properties of that
 * tree (S34).
 */
export function fromText<T>(text: string, decode: (value: unknown) => Result<T>): Result<T> {
  const value = parseText(text);
  return value instanceof NotJson ? value.result : decode(value);
}

/**
 * `fromText` of each text, as one batch: result `i` equals
 * `fromText(texts[i], (v) => decode(v, i))`, but the texts are parsed a slice
 * of about 64 KiB of text at a time, every `JSON.parse` of a slice before the
 * first `decode` of it. Parsing a batch first and checking it after keeps each
 * one's machine code in the CPU's instruction cache, where alternating them
 * evicts `JSON.parse`'s own code between two lines (README, "Owned-tree
 * decoding"). A reader of a stream gets its lines in batches anyway: each
 * read of a pipe (up to 64 KiB) holds all the lines that arrived since the
 * last. Never throws, unless `decode` does.
 */
export function fromLines<T>(texts: readonly string[], decode: (value: unknown, index: number) => Result<T>): Result<T>[] {
  const results: Result<T>[] = [];
  eachParsed(texts, (value, index) => {
    results.push(value instanceof NotJson ? value.result : decode(value, index));
    return true;
  });
  return results;
}

/** A text `JSON.parse` refused, with the issue that says so; `JSON.parse` never makes an instance of it. */
export class NotJson {
  readonly result: Result<never>;

  constructor(message: string) {
    this.result = { ok: false, issues: [{ path: "", message: `not JSON: ${message}` }] };
  }
}

/** `JSON.parse` of `text`, or a `NotJson` saying why not (the only value of that class it returns); never throws. */
export function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return new NotJson(error instanceof Error ? error.message : String(error));
  }
}

/** How much text (in UTF-16 units) `eachParsed` parses ahead of handling it: about one read of a pipe. */
const PARSED_AHEAD = 64 * 1024;

/**
 * Hands `handle` what `parseText` makes of each text, with its index, in
 * order: a slice of texts holding at least `PARSED_AHEAD` of text (or the
 * rest) is parsed whole before the first of it is handled, so at most that
 * much text plus one line waits parsed. Stops, parsing nothing more, once
 * `handle` returns false.
 */
export function eachParsed(texts: readonly string[], handle: (value: unknown, index: number) => boolean): void {
  const slice: unknown[] = [];
  for (let start = 0; start < texts.length; start += slice.length) {
    slice.length = 0;
    let size = 0;
    for (let i = start; i < texts.length && size < PARSED_AHEAD; i++) {
      slice.push(parseText(texts[i]!));
      size += texts[i]!.length;
    }
    for (let i = 0; i < slice.length; i++) if (!handle(slice[i], start + i)) return;
  }
}
