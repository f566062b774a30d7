/**
 * emitParsers: IR -> `parse.ts` of one surface. Each `parse.X` is the tolerant
 * decoder of the Rust reference (S23-S30): it returns a fresh value in the
 * wire shape, never throws and never mutates its input.
 * - default-on-error: a malformed value becomes absent (S23), or the empty
 *   value on a required field;
 * - skip-invalid-items arrays drop bad items (S24); default-on-null turns
 *   `null` into the empty value (S25);
 * - other failures travel to the nearest tolerant boundary (S26);
 * - open unions keep unknown tags raw, known tags must parse (S27);
 * - unknown properties of known types are dropped (S29); raw JSON, `_meta`
 *   and custom variants are deep-copied with every key as data (S34);
 * - JSON-RPC envelopes decode `params` by their `method`, and `result` by the
 *   method the caller names (`parse.XFor`), else raw (see envelopes.ts).
 */
import { ident, jsDoc, literal, literalList, objectLiteralKey, ownRead, ownWrite } from "../code.js";
import { withoutNull, type Def, type Field, type Node, type ObjectNode, type OtherVariant, type SchemaIR, type TaggedUnionNode, type TaggedVariant, type UnionNode } from "../ir.js";
import { decodeModule, expectation, FunctionPool, isScalar, scalarTest, segment } from "./checks.js";
import { methodDispatch, type MethodDispatch } from "./envelopes.js";

/** The module variable holding the method a `parse.XFor` caller asked (undefined otherwise). */
const ASKED = "askedMethod";

/** How a union embedded in an object (`properties` + `anyOf`) relates to the object's own fields. */
interface MixinContext {
  /** Fields the object decodes itself; a custom variant's raw copy leaves them out. */
  readonly baseFields: readonly string[];
  /** S23: the shared tag is default-on-error on the object, so a non-string tag counts as absent. */
  readonly tolerantTag: boolean;
}

class ParserWriter {
  private readonly pool = new FunctionPool();
  private readonly defs: ReadonlyMap<string, Def>;
  /** Defs whose decoding reads the asked method (response envelopes): they get a `parse.XFor`. */
  private readonly asking = new Set<string>();
  private current: Def | undefined;

  constructor(private readonly ir: SchemaIR) {
    this.defs = new Map(ir.defs.map((d) => [d.name, d]));
  }

  emit(): string {
    const exports: string[] = [];
    for (const def of this.ir.defs) {
      this.definition(def);
      exports.push(this.wrapper(def));
      if (this.asking.has(def.name)) exports.push(this.askingWrapper(def));
    }
    if (this.asking.size) this.pool.add(`let ${ASKED}: string | undefined;\n`);
    const doc = [
      "Tolerant parsers, one per `$defs` type, mirroring the Rust reference (S23-S30): a malformed",
      "default-on-error value becomes absent, invalid skip-invalid items are dropped, errors travel to",
      "the nearest tolerant boundary, unknown tags of open unions are kept raw. Each returns a fresh",
      "value (the input is never mutated) or the issue that made it fail, and never throws.",
      "",
      "JSON-RPC envelopes (`ClientRequest`, `AgentNotification`, ...) decode `params` with the type",
      "of their `method`; a method outside the table is an extension and its params are kept raw.",
      "A response names no method: `parse.AgentResponse` keeps `result` raw, and",
      "`parse.AgentResponseFor(method, value)` decodes it with the result type of `method`.",
    ];
    const extra = [...this.asking].map((name) => `${name}For`);
    for (const name of extra) if (this.defs.has(name)) throw new Error(`parse.${name} would be both a $defs type and the method-aware parser of ${name.slice(0, -3)}`);
    return decodeModule(this.ir, { doc, pool: this.pool, wrappers: exports, prefix: "parse", extra });
  }

  private wrapper(def: Def): string {
    // The module doc says what every parser guarantees; one line per function keeps the .d.ts small.
    const raw = this.asking.has(def.name) ? ` \`result\` is kept raw (a response names no method): see \`${def.name}For\`.` : "";
    const doc = jsDoc([`Tolerant decoding of \`${def.name}\` into a fresh value (S23-S30); never throws; \`{ forgiven: true }\` also lists what it forgave.${raw}`]);
    return (
      `${doc}function parse_${def.name}(value: unknown, options?: rt.ParseOptions): Result<T.${def.name}> {\n` +
      `  return options?.forgiven ? rt.finishForgiving(value, p_${def.name}(value)) : rt.finish(p_${def.name}(value));\n}\n`
    );
  }

  /** `parse.XFor(method, value)`: the envelope `X` answering a request of `method`. */
  private askingWrapper(def: Def): string {
    const doc = jsDoc([
      `Tolerant decoding of \`${def.name}\` answering a request of \`method\`: \`result\` is decoded with that`,
      "method's result type (a method outside the table keeps it raw); never throws.",
    ]);
    return (
      `${doc}function parse_${def.name}For(method: string, value: unknown): Result<T.${def.name}> {\n` +
      `  ${ASKED} = method;\n  try {\n    return rt.finish(p_${def.name}(value));\n  } finally {\n    ${ASKED} = undefined;\n  }\n}\n`
    );
  }

  /** `p_X` for every def; plain object defs also get `f_X`, which fills a given output object. */
  private definition(def: Def): void {
    this.current = def;
    const name = ident(def.name);
    if (def.node.kind === "object") {
      this.pool.add(`function f_${name}(v: any, out: any): true | undefined {\n${this.fill(def.node)}}\n`);
      this.pool.add(`function p_${name}(v: any): any {\n  if (!rt.isObject(v)) return rt.fail("expected an object", v);\n  const out: any = {};\n  return f_${name}(v, out) && out;\n}\n`);
      return;
    }
    this.pool.add(`function p_${name}(v: any): any {\n${this.body(def.node)}}\n`);
  }

  /** An expression: the decoded `x`, or `undefined` after `fail`. `skip` applies S24 to arrays. */
  private decode(node: Node, x: string, skip = false): string {
    if (isScalar(node)) return `(${scalarTest(node, x)} ? ${x} : rt.fail(${literal(expectation(node))}, ${x}))`;
    switch (node.kind) {
      case "ref":
        return `p_${ident(node.name)}(${x})`;
      case "json":
        return `rt.copyJson(${x})`;
      case "nullable":
        if (isScalar(node.inner)) return `(${x} === null || ${scalarTest(node.inner, x)} ? ${x} : rt.fail(${literal(`${expectation(node.inner)} or null`)}, ${x}))`;
        return `(${x} === null ? null : ${this.decode(node.inner, x, skip)})`;
      case "array":
        return `${this.hoist(this.array(node, skip))}(${x})`;
      default:
        return `${this.hoist(this.body(node))}(${x})`;
    }
  }

  private hoist(body: string): string {
    return this.pool.intern("p_", `(v: any): any {\n${body}}\n`);
  }

  /** Statements decoding `v` against a compound node. */
  private body(node: Node, mixin?: MixinContext): string {
    switch (node.kind) {
      case "object":
        return `  if (!rt.isObject(v)) return rt.fail("expected an object", v);\n  const out: any = {};\n${this.hoistFill(node)}`;
      case "array":
        return this.array(node, false);
      case "record":
        return (
          `  if (!rt.isObject(v)) return rt.fail("expected an object", v);\n  const out: any = {};\n` +
          `  for (const k of Object.keys(v)) {\n    const x = v[k];\n    const y = ${this.decode(node.values, "x")};\n    if (y === undefined) return rt.atKey(k);\n    rt.put(out, k, y);\n  }\n  return out;\n`
        );
      case "tagged":
        return this.tagged(node, mixin);
      case "union":
        return this.union(node);
      default:
        return `  return ${this.decode(node, "v")};\n`;
    }
  }

  /** For an inline object: its fill function, called on a fresh `out`. */
  private hoistFill(node: ObjectNode): string {
    const name = this.pool.intern("f_", `(v: any, out: any): true | undefined {\n${this.fill(node)}}\n`);
    return `  return ${name}(v, out) && out;\n`;
  }

  /**
   * `minItems` is not asserted: the Rust reference deserializes into a `Vec`, which takes
   * `[]` (its own tests decode a v2 RequestPermissionRequest with `options: []`); only
   * `validate` (JSON Schema, S31) rejects it.
   */
  private array(node: Extract<Node, { kind: "array" }>, skip: boolean): string {
    // S24: an item that fails is dropped and the order of the rest is kept.
    const onBad = skip ? "continue" : "return rt.atKey(i)";
    return (
      `  if (!Array.isArray(v)) return rt.fail("expected an array", v);\n  const out: any[] = [];\n` +
      `  for (let i = 0; i < v.length; i++) {\n    const x = v[i];\n    const y = ${this.decode(node.items, "x")};\n    if (y === undefined) ${onBad};\n    out.push(y);\n  }\n  return out;\n`
    );
  }

  /** Statements writing the object's decoded fields into `out`; `true` when the object holds. */
  private fill(node: ObjectNode): string {
    const tag = node.mixin?.kind === "tagged" ? node.mixin.tag : undefined;
    const own = node.fields.filter((f) => f.name !== tag);
    const hasMethod = node.fields.some((f) => f.name === "method" && f.node.kind === "string");
    const statements = own.flatMap((f) => this.field(f, hasMethod));
    // S29: `additionalProperties: true` keeps unknown properties, raw.
    if (node.keepsUnknown) statements.push(`  rt.copyRawExcept(v, out, ${this.keyList(node.fields.map((f) => f.name))});`);
    if (node.mixin) {
      const context: MixinContext = {
        baseFields: own.map((f) => f.name),
        tolerantTag: node.fields.some((f) => f.name === tag && f.tolerance.defaultOnError),
      };
      const decoder = this.hoist(this.body(node.mixin, context));
      statements.push(`  const m = ${decoder}(v);`, "  if (m === undefined) return undefined;", "  rt.merge(out, m);");
    }
    const locals = own.length ? ["  let x: any, y: any;"] : [];
    return [...locals, ...statements, "  return true;"].join("\n") + "\n";
  }

  /** One property: tolerance keywords decide what a bad or null value becomes (S23-S26). */
  private field(f: Field, hasMethod = false): string[] {
    const seg = segment(f.name);
    const empty = emptyValue(f.node);
    const dispatch = methodDispatch(withoutNull(f.node), this.defs);
    let decoded = dispatch ? this.byMethod(dispatch, hasMethod) : this.decode(f.node, "x", f.tolerance.skipInvalidItems);
    if (dispatch && f.node.kind === "nullable") decoded = `(x === null ? null : ${decoded})`;
    // S25: default-on-null turns an explicit null into the empty value.
    const value = f.tolerance.defaultOnNull && empty ? `x === null ? ${empty} : ${decoded}` : decoded;
    let onBad: string;
    if (!f.tolerance.defaultOnError || (f.required && !empty)) onBad = `return rt.at(${seg})`; // S26: fail the enclosing object
    else if (f.required) onBad = ownWrite("out", f.name, empty!); // S23: required -> empty value
    else onBad = ""; // S23: malformed optional value -> absent (never null)
    const lines = [
      `  x = ${ownRead("v", f.name)};`,
      "  if (x !== undefined) {",
      `    y = ${value};`,
      `    if (y !== undefined) ${ownWrite("out", f.name, "y")};`,
      ...(onBad ? [`    else ${onBad};`] : []),
      "  }",
    ];
    if (f.required) lines.push(`  else return rt.failAt(${seg}, "missing required property");`);
    return lines;
  }

  /**
   * `x` decoded as the type of its method: the object's own `method` field, or
   * (a response) the method a `parse.XFor` caller asked, else kept raw.
   */
  private byMethod(dispatch: MethodDispatch, hasMethod: boolean): string {
    const cases = dispatch.methods.map(([method, def]) => `    case ${literal(method)}:\n      return p_${ident(def)}(v);`);
    const known = literal(dispatch.methods.map(([method]) => method).join(", "));
    const other = dispatch.fallback ? this.decode(dispatch.fallback, "v") : `rt.fail("no params type for this method; expected one of " + ${known})`;
    const decoder = this.pool.intern("m_", `(method: unknown, v: any): any {\n  switch (method) {\n${cases.join("\n")}\n    default:\n      return ${other};\n  }\n}\n`);
    if (hasMethod) return `${decoder}(${ownRead("v", "method")}, x)`;
    this.asking.add(this.current!.name);
    return `(${ASKED} === undefined ? rt.copyJson(x) : ${decoder}(${ASKED}, x))`;
  }

  /** Tag dispatch (S27): known tags must decode as their variant; other strings are the custom variant. */
  private tagged(node: TaggedUnionNode, mixin?: MixinContext): string {
    const seg = segment(node.tag);
    const cases = node.variants.map((variant) => `    case ${literal(variant.tagValue)}:\n      y = ${this.variant(node.tag, variant)}(v);\n      break;`);
    const otherTag = node.other
      ? `${this.other(node.other, mixin)}(v)`
      : `rt.failAt(${seg}, ${literal(`unknown ${node.tag}; this union is closed`)})`;
    const absentTag = node.absent
      ? `t === null ? { ${objectLiteralKey(node.tag)}: null } : t === undefined ? {} : rt.failAt(${seg}, "expected a string or null")`
      : `rt.failAt(${seg}, t === undefined ? "missing required property" : "expected a string")`;
    const lines = [
      `  if (!rt.isObject(v)) return rt.fail("expected an object", v);`,
      `  ${mixin?.tolerantTag ? "let" : "const"} t = ${ownRead("v", node.tag)};`,
      // S23: a shared optional tag that is not a string is removed before a variant is chosen.
      ...(mixin?.tolerantTag ? [`  if (t !== null && typeof t !== "string") t = undefined;`] : []),
      "  let y: any;",
      "  switch (t) {",
      ...cases,
      "    default:",
      `      y = typeof t === "string" ? ${otherTag} : ${absentTag};`,
      "  }",
      ...(node.untagged ?? []).map((o) => `  if (y === undefined) y = ${this.decode(o.node, "v")};`),
      "  return y;",
    ];
    return lines.join("\n") + "\n";
  }

  /** A known variant: the tag, its own fields, then its payload's fields. */
  private variant(tag: string, variant: TaggedVariant): string {
    const name = `p_${ident(variant.name)}`;
    const fields = variant.fields.flatMap((f) => this.field(f));
    const lines = [`  const out: any = { ${objectLiteralKey(tag)}: ${literal(variant.tagValue)} };`];
    if (fields.length) lines.push("  let x: any, y: any;", ...fields);
    lines.push(this.payload(variant.payload));
    this.pool.add(`function ${name}(v: any): any {\n${lines.join("\n")}\n}\n`);
    return name;
  }

  /** Decodes a variant payload into `out` (a plain object def fills it directly). */
  private payload(payload: Node | undefined): string {
    if (!payload) return "  return out;";
    const target = payload.kind === "ref" ? this.defs.get(payload.name)!.node : undefined;
    if (payload.kind === "ref" && target?.kind === "object") return `  return f_${ident(payload.name)}(v, out) && out;`;
    return `  const p = ${this.decode(payload, "v")};\n  return p === undefined ? undefined : rt.merge(out, p);`;
  }

  /** The custom variant (S27): declared and required properties still hold; everything else is kept raw. */
  private other(other: OtherVariant, mixin?: MixinContext): string {
    const name = `p_${ident(other.name)}`;
    const declared = new Set(other.fields.map((f) => f.name));
    const lines = other.required
      .filter((r) => !declared.has(r))
      .map((r) => `  if (${ownRead("v", r)} === undefined) return rt.failAt(${segment(r)}, "missing required property");`);
    for (const f of other.fields) {
      const seg = segment(f.name);
      const required = f.required;
      lines.push(`  x = ${ownRead("v", f.name)};`);
      if (required) lines.push(`  if (x === undefined) return rt.failAt(${seg}, "missing required property");`);
      lines.push(`  if (${required ? "" : "x !== undefined && "}${this.decode(f.node, "x")} === undefined) return rt.at(${seg});`);
    }
    if (other.mixin) lines.push(`  if (${this.decode(other.mixin, "v")} === undefined) return undefined;`);
    const locals = other.fields.length ? ["  let x: any;"] : [];
    const skip = mixin?.baseFields.length ? this.keyList(mixin.baseFields) : undefined;
    this.pool.add(`function ${name}(v: any): any {\n${[...locals, ...lines, skip ? `  return rt.copyRawExcept(v, {}, ${skip});` : "  return rt.copyJson(v);"].join("\n")}\n}\n`);
    return name;
  }

  /** A module-level constant list of property names (not a fresh array on every call). */
  private keyList(names: readonly string[]): string {
    return this.pool.internConst("K_", literalList(names));
  }

  /** First alternative that decodes wins (serde's untagged enums); else the deepest failure. */
  private union(node: UnionNode): string {
    const tries = node.options.map((o, i) => `  y = ${this.decode(o.node, "v")};\n  if (y !== undefined) return y;\n  best = ${i ? "rt.deeper(best)" : "rt.failure()"};`);
    return `  let y: any, best: rt.Failure;\n${tries.join("\n")}\n  return rt.noAlternative(best, v);\n`;
  }
}

/** The empty value of a collection (S23 required default-on-error, S25 default-on-null). */
function emptyValue(node: Node): string | undefined {
  const kind = withoutNull(node).kind;
  return kind === "array" ? "[]" : kind === "record" ? "{}" : undefined;
}

/** Emits the `parse.ts` module of one surface. */
export function emitParsers(ir: SchemaIR): string {
  return new ParserWriter(ir).emit();
}
