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

// ---------------------------------------------------------------------------
// The printer: branded code, a tagged template that escapes everything else,
// indentation by structure, and a per-file import registry.

const BRAND: unique symbol = Symbol("acp-codegen.code");

/** A piece of generated TypeScript: only `code`, `name`, `block` and the printer's helpers make one. */
export interface Code {
  readonly [BRAND]: true;
  readonly text: string;
}

function makeCode(text: string): Code {
  return { [BRAND]: true, text };
}

/** True for a `Code` value (as opposed to data to be escaped). */
export function isCode(value: unknown): value is Code {
  return typeof value === "object" && value !== null && BRAND in value;
}

/** What may be interpolated into `code`: code as is, data escaped as a literal, lists concatenated. */
export type Interpolated = Code | string | number | boolean | bigint | null | readonly Interpolated[];

function print(value: Interpolated): string {
  if (isCode(value)) return value.text;
  if (Array.isArray(value)) return (value as readonly Interpolated[]).map(print).join("");
  return literal(value as string | number | boolean | bigint | null);
}

/**
 * The tagged template of the printer: ``code`const x = ${value};` ``. Every
 * interpolated value is escaped as a literal unless it is `Code` (from
 * `code`, `name`, `block`, ...); lists are concatenated.
 */
export function code(strings: TemplateStringsArray, ...values: readonly Interpolated[]): Code {
  let text = strings[0]!;
  values.forEach((value, i) => (text += print(value) + strings[i + 1]!));
  return makeCode(text);
}

/** A checked identifier as code (`ident`). */
export function name(identifier: string): Code {
  return makeCode(ident(identifier));
}

/** A property key of a type or object literal as code (`propertyKey`). */
export function key(property: string): Code {
  return makeCode(propertyKey(property));
}

/** A JSDoc block as code (`jsDoc`), ending in a newline; empty when there are no lines. */
export function doc(lines: readonly string[]): Code {
  return makeCode(jsDoc(lines));
}

/**
 * An own-property read of a JSON object as code (`ownRead`: S34-safe for prototype keys). A prototype
 * key reads through `rt.own`, so the module must import a runtime namespace `rt` that has it (decode, patch).
 */
export function own(target: Code, property: string): Code {
  return makeCode(ownRead(target.text, property));
}

/** An own-data-property store as code (`ownWrite`: `__proto__` goes through `rt.put`, as `own` needs `rt`), without semicolon. */
export function ownSet(target: Code, property: string, value: Code): Code {
  return makeCode(ownWrite(target.text, property, value.text));
}

/** A key of an object literal as code (`objectLiteralKey`: `__proto__` stays an own property). */
export function literalKey(property: string): Code {
  return makeCode(objectLiteralKey(property));
}

/** Code items separated by `separator` (itself code, e.g. `code`, ``). */
export function join(items: readonly Code[], separator: Code): Code {
  return makeCode(items.map((c) => c.text).join(separator.text));
}

/** Code items one per line. */
export function lines(items: readonly Code[]): Code {
  return join(items, makeCode("\n"));
}

/** Indents every non-empty line of `body` by two spaces. */
export function indent(body: Code): Code {
  return makeCode(body.text.split("\n").map((line) => (line ? `  ${line}` : line)).join("\n"));
}

/**
 * `open`, then each body item on its own lines indented by two spaces, then
 * `close` on a line of its own: ``wrapped(code`[`, rows, code`] as const;`)``.
 */
export function wrapped(open: Code, body: readonly Code[], close: Code): Code {
  return makeCode(`${open.text}\n${indent(lines(body)).text}\n${close.text}`);
}

/**
 * `head {`, then each body item indented (see `wrapped`), then `}` (`{}` when
 * the body is empty). `closeWith` continues the closing line, so `} else {`
 * stays on one line.
 */
export function block(head: Code, body: readonly Code[], closeWith: Code = code``): Code {
  const open = head.text ? `${head.text} {` : "{";
  if (body.length === 0) return makeCode(`${open}}${closeWith.text}`);
  return wrapped(makeCode(open), body, makeCode(`}${closeWith.text}`));
}

/**
 * Blocks continuing one another on their closing lines: `chain([[code`try`, a], [code`finally`, b]])`
 * prints `try {`, a, `} finally {`, b, `}` (likewise `} else {`).
 */
export function chain(parts: readonly (readonly [Code, readonly Code[]])[]): Code {
  const out: string[] = [];
  parts.forEach(([head, body], i) => {
    out.push(i === 0 ? `${head.text} {` : `} ${head.text} {`);
    if (body.length) out.push(indent(lines(body)).text);
  });
  out.push("}");
  return makeCode(out.join("\n"));
}

/** A labelled clause (`case "a":`): the label on its line, the body indented below it, no closing line. */
export function clause(label: Code, body: readonly Code[]): Code {
  return makeCode(`${label.text}\n${indent(lines(body)).text}`);
}

/** The imports of one module specifier. */
interface ModuleImports {
  namespace?: { readonly alias: string; readonly typeOnly: boolean };
  readonly names: Map<string, boolean>;
}

/**
 * One generated file: its body, printed in order, and the imports it needs,
 * registered where they are used (`f.import("./types.js", "Foo", { type: true })`)
 * and written as import lines at the top, sorted by module.
 */
export class GeneratedFile {
  private readonly modules = new Map<string, ModuleImports>();
  private readonly body: Code[] = [];

  /** `header`, e.g. the module's JSDoc, is printed above the import lines. */
  constructor(private readonly header: Code = code``) {}

  /** Registers `import { identifier } from module` (`import type` when `type`) and returns the name as code. */
  import(module: string, identifier: string, options: { readonly type?: boolean } = {}): Code {
    const entry = this.entry(module);
    entry.names.set(identifier, (entry.names.get(identifier) ?? true) && options.type === true);
    return name(identifier);
  }

  /** Registers `import * as alias from module` (`import type * as` when `type`) and returns the alias as code. */
  importAll(module: string, alias: string, options: { readonly type?: boolean } = {}): Code {
    const entry = this.entry(module);
    entry.namespace = { alias, typeOnly: (entry.namespace?.typeOnly ?? true) && options.type === true };
    return name(alias);
  }

  /** Appends top-level items, separated from the previous ones by a blank line. */
  print(...items: readonly Code[]): void {
    this.body.push(...items);
  }

  /** The file's text: the import lines, a blank line, the items separated by blank lines. */
  toString(): string {
    const imports = [...this.modules.keys()].sort().flatMap((module) => importLines(module, this.modules.get(module)!));
    const parts = [...(this.header.text ? [this.header.text] : []), ...(imports.length ? [imports.join("\n") + "\n"] : []), ...this.body.map((c) => (c.text.endsWith("\n") ? c.text : `${c.text}\n`))];
    return parts.join("\n");
  }

  private entry(module: string): ModuleImports {
    let entry = this.modules.get(module);
    if (entry === undefined) this.modules.set(module, (entry = { names: new Map() }));
    return entry;
  }
}

function importLines(module: string, entry: ModuleImports): string[] {
  const from = literal(module);
  const out: string[] = [];
  if (entry.namespace) out.push(`import ${entry.namespace.typeOnly ? "type " : ""}* as ${ident(entry.namespace.alias)} from ${from};`);
  if (entry.names.size) {
    const all = [...entry.names.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const typeOnly = all.every(([, type]) => type);
    const specifiers = all.map(([n, type]) => (type && !typeOnly ? `type ${ident(n)}` : ident(n)));
    out.push(`import ${typeOnly ? "type " : ""}{ ${specifiers.join(", ")} } from ${from};`);
  }
  return out;
}

/** A plain property read as code: `target.name` or `target["a-b"]` (`propertyAccess`). */
export function member(target: Code, property: string): Code {
  return makeCode(propertyAccess(target.text, property));
}
