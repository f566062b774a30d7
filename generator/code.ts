/**
 * A tiny code builder: every identifier is checked, every literal is escaped,
 * and wire data never reaches the output by string concatenation.
 */

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "implements interface let package private protected public static yield await any boolean number string symbol " +
    "unknown never object undefined bigint"
  ).split(" "),
);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` can be used as a declared identifier (type or value name). */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/** Returns `name` unchanged after checking it is a usable identifier; throws otherwise. */
export function ident(name: string): string {
  if (!isIdentifier(name)) throw new Error(`not a valid identifier: ${JSON.stringify(name)}`);
  return name;
}

/** A property key as written in a type literal: bare when possible, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && name !== "__proto__" ? name : JSON.stringify(name);
}

/** A property read: `v.name` or `v["a-b"]`. */
export function propertyAccess(target: string, name: string): string {
  return IDENTIFIER.test(name) ? `${target}.${name}` : `${target}[${JSON.stringify(name)}]`;
}

/** A JSON-compatible literal (string, number, boolean, null), always escaped. */
export function literal(value: string | number | boolean | null | bigint): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return JSON.stringify(value);
}

/** An array literal of escaped strings. */
export function literalList(values: readonly string[]): string {
  return `[${values.map((v) => literal(v)).join(", ")}]`;
}

/** A JSDoc block from text lines; `*\/` inside the text is neutralised. */
export function jsDoc(lines: readonly string[], indent = ""): string {
  const body = lines.flatMap((line) => line.split("\n")).map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  while (body.length && body[body.length - 1] === "") body.pop();
  if (body.length === 0) return "";
  return `${indent}/**\n${body.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n")}\n${indent} */\n`;
}

/**
 * Keys that name members of `Object.prototype`: reading them with `v.key`
 * would find the inherited member, and assigning `__proto__` would change
 * the prototype (S34). Generated code treats them specially.
 */
const PROTOTYPE_KEYS = new Set([
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
]);

/** Reads an own property of a JSON object held in `target` (expression). */
export function ownRead(target: string, name: string): string {
  return PROTOTYPE_KEYS.has(name) ? `rt.own(${target}, ${literal(name)})` : propertyAccess(target, name);
}

/** Stores `value` under `name` as an own data property (statement, no trailing semicolon). */
export function ownWrite(target: string, name: string, value: string): string {
  return name === "__proto__" ? `rt.put(${target}, ${literal(name)}, ${value})` : `${propertyAccess(target, name)} = ${value}`;
}

/** A key in an object literal: `__proto__` is written computed so it stays an own property. */
export function objectLiteralKey(name: string): string {
  return name === "__proto__" ? `[${literal(name)}]` : propertyKey(name);
}
