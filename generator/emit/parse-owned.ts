/**
 * emitParseOwned: IR -> `parse-owned.ts` of one surface, the owned-tree decode
 * path. `parseOwned.X(value)` takes a value its caller owns, typically the tree
 * `JSON.parse` just made of a JSON-RPC line: when the tolerant parser would
 * return that tree unchanged (every value fits, no unknown property to drop,
 * nothing to forgive) it is returned as it is, with no copy; otherwise `parse.X`
 * runs on it, so the result always equals `parse.X(value)` (keys in wire order).
 *
 * The generated `e_X(v)` says "parse.X(v) would equal v". It mirrors the
 * parser's choices (tags, first-decoding alternative, envelopes by method,
 * tolerance keywords) but only ever answers yes when that is certain; every
 * doubt answers no and costs a copy, never a wrong value. Object checks count
 * the keys they account for (`k_X(v)`: a count, `-1` for no, `Infinity` when
 * every key is kept raw) and compare with the keys the object has (S29).
 */
import { ident, jsDoc, literal, ownRead } from "../code.js";
import { withoutNull, type Def, type Field, type Node, type OtherVariant, type SchemaIR, type TaggedUnionNode, type TaggedVariant } from "../ir.js";
import { decodeModule, FunctionPool, isScalar, scalarTest } from "./checks.js";
import { methodDispatch, type MethodDispatch } from "./envelopes.js";

/** The module variable holding the method a `parseOwned.XFor` caller asked. */
const ASKED = "askedMethod";

class ExactWriter {
  private readonly pool = new FunctionPool();
  private readonly defs: ReadonlyMap<string, Def>;
  private readonly asking = new Set<string>();
  private current: Def | undefined;

  constructor(private readonly ir: SchemaIR) {
    this.defs = new Map(ir.defs.map((d) => [d.name, d]));
  }

  emit(): string {
    const wrappers: string[] = [];
    for (const def of this.ir.defs) {
      this.definition(def);
      wrappers.push(this.wrapper(def));
      if (this.asking.has(def.name)) wrappers.push(this.askingWrapper(def));
    }
    if (this.asking.size) this.pool.add(`let ${ASKED}: string | undefined;\n`);
    const doc = [
      "Owned-tree decoding, for a value the caller owns and no longer uses on its own (e.g. the tree",
      "`JSON.parse` just made of a line): `parseOwned.X(value)` equals `parse.X(value)` (keys in wire",
      "order) and never throws, but returns `value` itself, not a copy, when the tolerant parser would",
      "change nothing; otherwise the result of `parse.X`. `__proto__` and friends read by `JSON.parse`",
      "are own properties and stay plain data (S34).",
    ];
    const extra = [...this.asking].map((name) => `${name}For`);
    const imports = [`import * as tolerant from "./parse.js";`];
    return decodeModule(this.ir, { doc, pool: this.pool, wrappers, prefix: "parseOwned", extra, imports });
  }

  private wrapper(def: Def): string {
    const doc = jsDoc([`\`parse.${def.name}(value)\` of a value the caller owns: \`value\` itself when nothing changes; never throws.`]);
    return (
      `${doc}function parseOwned_${def.name}(value: unknown): Result<T.${def.name}> {\n` +
      `  return e_${ident(def.name)}(value) ? { ok: true, value: value as T.${def.name} } : tolerant.${def.name}(value);\n}\n`
    );
  }

  private askingWrapper(def: Def): string {
    const doc = jsDoc([`\`parse.${def.name}For(method, value)\` of a value the caller owns: \`value\` itself when nothing changes; never throws.`]);
    return (
      `${doc}function parseOwned_${def.name}For(method: string, value: unknown): Result<T.${def.name}> {\n` +
      `  ${ASKED} = method;\n  let exact: boolean;\n  try {\n    exact = e_${ident(def.name)}(value);\n  } finally {\n    ${ASKED} = undefined;\n  }\n` +
      `  return exact ? { ok: true, value: value as T.${def.name} } : tolerant.${def.name}For(method, value);\n}\n`
    );
  }

  /** `e_X` for every def; object-shaped defs also get `k_X`, their key count. */
  private definition(def: Def): void {
    this.current = def;
    const name = ident(def.name);
    if (isObjectShaped(def.node)) {
      this.pool.add(`function k_${name}(v: any): number {\n${this.countBody(def.node)}}\n`);
      this.pool.add(`function e_${name}(v: any): boolean {\n  return rt.isObject(v) && rt.exactKeys(v, k_${name}(v));\n}\n`);
      return;
    }
    this.pool.add(`function e_${name}(v: any): boolean {\n${this.body(def.node)}}\n`);
  }

  /** A boolean expression: the parser would return `x` unchanged. */
  private check(node: Node, x: string): string {
    if (isScalar(node)) return `(${scalarTest(node, x)})`;
    switch (node.kind) {
      case "ref":
        return `e_${ident(node.name)}(${x})`;
      case "json":
        return "true";
      case "nullable":
        return `(${x} === null || ${this.check(node.inner, x)})`;
      default:
        return `${this.pool.intern("e_", `(v: any): boolean {\n${this.body(node)}}\n`)}(${x})`;
    }
  }

  /** Statements answering `check` for `v`. */
  private body(node: Node): string {
    switch (node.kind) {
      case "object":
      case "tagged":
        return `  return rt.isObject(v) && rt.exactKeys(v, ${this.counter(node)}(v));\n`;
      case "array": {
        const item = this.check(node.items, "x");
        // S24 drops a bad item and minItems is not asserted by the parser: any bad item is a change.
        const loop = item === "true" ? "" : `  for (let i = 0; i < v.length; i++) {\n    const x = v[i];\n    if (!${item}) return false;\n  }\n`;
        return `  if (!Array.isArray(v)) return false;\n${loop}  return true;\n`;
      }
      case "record": {
        const value = this.check(node.values, "x");
        const loop = value === "true" ? "" : `  for (const k of Object.keys(v)) {\n    const x = v[k];\n    if (!${value}) return false;\n  }\n`;
        return `  if (!rt.isObject(v)) return false;\n${loop}  return true;\n`;
      }
      case "union": {
        // The parser takes the first alternative that decodes: a scalar that fails is skipped;
        // at the first other alternative the answer is its own (no is always safe).
        const lines: string[] = [];
        for (const option of node.options) {
          if (!isScalar(option.node)) {
            lines.push(`  return ${this.check(option.node, "v")};`);
            return lines.join("\n") + "\n";
          }
          lines.push(`  if (${scalarTest(option.node, "v")}) return true;`);
        }
        return [...lines, "  return false;"].join("\n") + "\n";
      }
      default:
        return `  return ${this.check(node, "v")};\n`;
    }
  }

  /** The name of the key-count function of an object-shaped node. */
  private counter(node: Node, base: ReadonlySet<string> = new Set()): string {
    if (node.kind === "ref" && base.size === 0 && isObjectShaped(this.defs.get(node.name)!.node)) return `k_${ident(node.name)}`;
    return this.pool.intern("k_", `(v: any): number {\n${this.countBody(this.resolve(node), base)}}\n`);
  }

  /**
   * Statements counting the keys of `v` the node accounts for (`base`: keys an
   * enclosing object already counted; a part that could count one of them
   * again answers -1, so a shared key never hides an unknown one).
   */
  private countBody(node: Node, base: ReadonlySet<string> = new Set()): string {
    if (node.kind === "tagged") return this.taggedCount(node, base);
    if (node.kind !== "object") return "  return -1;\n";
    const tag = node.mixin?.kind === "tagged" ? node.mixin.tag : undefined;
    const own = node.fields.filter((f) => f.name !== tag);
    const names = new Set([...base, ...own.map((f) => f.name)]);
    const lines = ["  let n = 0, x: any;", ...own.flatMap((f) => this.field(f, node.fields))];
    if (node.mixin?.kind === "tagged") lines.push(`  const m = ${this.counter(node.mixin, names)}(v);`, "  if (m < 0) return -1;", "  n += m;");
    else if (node.mixin) lines.push("  return -1;"); // an untagged mixin (elicitation scopes): the parser copies
    lines.push(node.keepsUnknown ? "  return Infinity;" : "  return n;");
    return lines.join("\n") + "\n";
  }

  /** Counting statements of one field, after the parser's `field()` (S23-S26). */
  private field(f: Field, siblings: readonly Field[]): string[] {
    const dispatch = methodDispatch(withoutNull(f.node), this.defs);
    const hasMethod = siblings.some((s) => s.name === "method" && s.node.kind === "string");
    let test = dispatch ? this.byMethod(dispatch, hasMethod) : this.check(f.node, "x");
    if (dispatch && f.node.kind === "nullable") test = `(x === null || ${test})`;
    // S25: default-on-null turns null into the empty value: a change.
    const emptyOnNull = f.tolerance.defaultOnNull && ["array", "record"].includes(withoutNull(f.node).kind);
    if (emptyOnNull) test = `x !== null && ${test}`;
    return [
      `  x = ${ownRead("v", f.name)};`,
      `  if (x !== undefined) {\n    if (!(${test})) return -1;\n    n++;\n  }${f.required ? " else return -1;" : ""}`,
    ];
  }

  /** The envelope's params by its `method`, or a response's result by the asked method (raw when none). */
  private byMethod(dispatch: MethodDispatch, hasMethod: boolean): string {
    const cases = dispatch.methods.map(([method, def]) => `    case ${literal(method)}:\n      return e_${ident(def)}(v);`);
    const other = dispatch.fallback ? this.check(dispatch.fallback, "v") : "false";
    const decoder = this.pool.intern("d_", `(method: unknown, v: any): boolean {\n  switch (method) {\n${cases.join("\n")}\n    default:\n      return ${other};\n  }\n}\n`);
    if (hasMethod) return `${decoder}(${ownRead("v", "method")}, x)`;
    this.asking.add(this.current!.name);
    return `(${ASKED} === undefined || ${decoder}(${ASKED}, x))`;
  }

  private taggedCount(node: TaggedUnionNode, base: ReadonlySet<string>): string {
    const cases = node.variants.map((variant) => `    case ${literal(variant.tagValue)}:\n      return ${this.variant(node.tag, variant, base)}(v);`);
    const other = node.other ? `${this.other(node.other)}(v)` : "-1";
    // S23/absent tag: the parser writes `{}` (no tag) or `{ tag: null }`.
    const absent = node.absent && !base.has(node.tag) ? "t === undefined ? 0 : t === null ? 1 : -1" : "-1";
    return [
      `  const t = ${ownRead("v", node.tag)};`,
      "  switch (t) {",
      ...cases,
      "    default:",
      `      return typeof t === "string" ? ${other} : ${absent};`,
      "  }",
    ].join("\n") + "\n";
  }

  /** A known variant: its tag, its fields, and its payload's keys. */
  private variant(tag: string, variant: TaggedVariant, base: ReadonlySet<string>): string {
    const names = new Set([...base, tag, ...variant.fields.map((f) => f.name)]);
    const clash = base.has(tag) || variant.fields.some((f) => base.has(f.name) || f.name === tag);
    const lines = ["  let n = 1, x: any;", ...variant.fields.flatMap((f) => this.field(f, variant.fields))];
    const payload = variant.payload;
    if (clash || (payload && (!isObjectShaped(this.resolve(payload)) || overlaps(this.keyNames(payload), names)))) lines.push("  return -1;");
    else if (payload) lines.push(`  const m = ${this.counter(payload)}(v);`, "  return m < 0 ? -1 : n + m;");
    else lines.push("  return n;");
    return this.pool.intern("k_", `(v: any): number {\n${lines.join("\n")}\n}\n`);
  }

  /** The custom variant (S27): declared fields must hold; every key is kept raw. */
  private other(other: OtherVariant): string {
    const declared = new Set(other.fields.map((f) => f.name));
    const lines = other.required.filter((r) => !declared.has(r)).map((r) => `  if (${ownRead("v", r)} === undefined) return -1;`);
    for (const f of other.fields) {
      lines.push(`  x = ${ownRead("v", f.name)};`, `  if (x === undefined ? ${f.required} : !${this.check(f.node, "x")}) return -1;`);
    }
    if (other.mixin) lines.push(`  if (!${this.check(other.mixin, "v")}) return -1;`);
    return this.pool.intern("k_", `(v: any): number {\n  let x: any;\n${lines.join("\n")}\n  return Infinity;\n}\n`);
  }

  private resolve(node: Node): Node {
    return node.kind === "ref" ? this.resolve(this.defs.get(node.name)!.node) : node;
  }

  /** Every key an object-shaped node may account for (custom variants keep any key and add none). */
  private keyNames(node: Node): Set<string> {
    const target = this.resolve(node);
    if (target.kind === "object") {
      return new Set([...target.fields.map((f) => f.name), ...(target.mixin ? this.keyNames(target.mixin) : [])]);
    }
    if (target.kind === "tagged") {
      const names = new Set([target.tag]);
      for (const v of target.variants) for (const name of [...v.fields.map((f) => f.name), ...(v.payload ? this.keyNames(v.payload) : [])]) names.add(name);
      return names;
    }
    if (target.kind === "union") return new Set(target.options.flatMap((o) => [...this.keyNames(o.node)]));
    return new Set();
  }
}

function isObjectShaped(node: Node): boolean {
  return node.kind === "object" || node.kind === "tagged";
}

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const name of a) if (b.has(name)) return true;
  return false;
}

/** Emits the `parse-owned.ts` module of one surface. */
export function emitParseOwned(ir: SchemaIR): string {
  return new ExactWriter(ir).emit();
}
