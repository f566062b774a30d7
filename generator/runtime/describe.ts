/**
 * The one way the runtime prints a value it did not make (an id, params, a
 * line read from the wire) into a message: `describeJson`. A peer can send
 * anything `JSON.parse` accepts, nested 100,000 levels deep or 50 MB long,
 * and `JSON.stringify` or `String()` of such a value recurses until the stack
 * overflows. This walk keeps its own stack, stops at a depth and a length,
 * touches at most as many members as it has characters left, and never
 * throws (a getter or a Proxy that throws is described, not propagated).
 */

/** Containers deeper than this print as `[…]` or `{…}`. */
const MAX_DEPTH = 8;
/** Printed when a value cannot be read at all (a Proxy whose traps throw). */
const UNREADABLE = "(a value that cannot be read)";

/** A piece of work: a value to print at a depth, or text to append as it is. */
type Step = { readonly value: unknown; readonly depth: number } | string;

/**
 * A short, JSON-like text of `value` for messages: at most `maxLength`
 * characters (then cut, ending in `…`), containers below depth 8 as `[…]`
 * and `{…}`; `undefined`, functions and other non-JSON values by their
 * `typeof`. Iterative and bounded: its cost depends on `maxLength`, not on
 * the size or depth of `value`. Never throws.
 */
export function describeJson(value: unknown, maxLength = 120): string {
  try {
    return describeSteps(value, Math.max(1, maxLength));
  } catch {
    return UNREADABLE;
  }
}

function describeSteps(value: unknown, maxLength: number): string {
  let out = "";
  const stack: Step[] = [{ value, depth: 0 }];
  while (stack.length > 0 && out.length <= maxLength) {
    const step = stack.pop()!;
    if (typeof step === "string") out += step;
    else out += describeOne(step.value, step.depth, stack, maxLength - out.length);
  }
  return out.length > maxLength || stack.length > 0 ? `${out.slice(0, Math.max(0, maxLength - 1))}…` : out;
}

/** The text of a primitive, or the opening of a container whose members and closing go onto `stack`. */
function describeOne(value: unknown, depth: number, stack: Step[], room: number): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      // Cut before quoting, so a 50 MB string costs what its first characters cost.
      return JSON.stringify(value.length > room ? value.slice(0, room) : value);
    case "number":
    case "boolean":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "object":
      return Array.isArray(value) ? openArray(value, depth, stack, room) : openObject(value, depth, stack, room);
    default:
      return `(${typeof value})`;
  }
}

function openArray(value: readonly unknown[], depth: number, stack: Step[], room: number): string {
  if (value.length === 0) return "[]";
  if (depth >= MAX_DEPTH) return "[…]";
  // Each member prints at least one character: more than `room` of them cannot show.
  const shown = Math.min(value.length, room);
  stack.push(shown < value.length ? ",…]" : "]");
  for (let i = shown - 1; i >= 0; i--) {
    stack.push({ value: value[i], depth: depth + 1 });
    if (i > 0) stack.push(",");
  }
  return "[";
}

function openObject(value: object, depth: number, stack: Step[], room: number): string {
  if (depth >= MAX_DEPTH) return "{…}";
  const keys: string[] = [];
  // `for...in` over own keys stops early, where `Object.keys` would list a million first.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (keys.length >= room) break;
    keys.push(key);
  }
  if (keys.length === 0) return "{}";
  stack.push("}");
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    stack.push(`${JSON.stringify(key.length > room ? key.slice(0, room) : key)}:`);
    if (i > 0) stack.push(",");
  }
  return "{";
}

/** Said of a thrown value when `String()` of it fails (`Object.create(null)`, a throwing `toString` or `message` getter). */
const UNCONVERTIBLE = "an error that cannot be converted to a string";

/**
 * What a thrown `error` says, as a string: an `Error`'s message, else the
 * value as `String()` makes it; never throws (`UNCONVERTIBLE` when that
 * fails, e.g. for an array nested too deep for `String()`).
 */
export function errorMessage(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return UNCONVERTIBLE;
  }
}
