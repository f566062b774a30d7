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

/** A JSDoc block from text lines; `*\/` inside the text is neutralised. */
export function jsDoc(lines: readonly string[], indent = ""): string {
  const body = lines.flatMap((line) => line.split("\n")).map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  while (body.length && body[body.length - 1] === "") body.pop();
  if (body.length === 0) return "";
  return `${indent}/**\n${body.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n")}\n${indent} */\n`;
}
