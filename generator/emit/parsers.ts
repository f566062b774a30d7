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
import type { SurfaceModel } from "../model.js";
import { block, chain, clause, code, doc, join, literalKey, name, own, ownSet, type Code } from "../code.js";
import { mixinTag, ownFields, withoutNull, type Def, type Field, type Node, type ObjectNode, type OtherVariant, type TaggedUnionNode, type TaggedVariant, type UnionNode } from "../ir.js";
import { DecodeWriter, expectation, isScalar, scalarTest, segment } from "./checks.js";
import { methodDispatch, type MethodDispatch } from "./envelopes.js";

/** How a union embedded in an object (`properties` + `anyOf`) relates to the object's own fields. */
interface MixinContext {
  /** Fields the object decodes itself; a custom variant's raw copy leaves them out. */
  readonly baseFields: readonly string[];
  /** S23: the shared tag is default-on-error on the object, so a non-string tag counts as absent. */
  readonly tolerantTag: boolean;
}

const V = name("v");
const X = name("x");
const OUT = name("out");
/** The head of a decoder helper: `(v) -> decoded value or undefined after rt.fail`. */
const DECODER = code`(v: any): any`;
/** The head of a fill helper: writes `v`'s decoded fields into `out`. */
const FILLER = code`(v: any, out: any): true | undefined`;
const NOT_OBJECT = code`if (!rt.isObject(v)) return rt.fail("expected an object", v);`;

const MODULE_DOC = [
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

class ParserWriter extends DecodeWriter {
  constructor(model: SurfaceModel) {
    super(model, { doc: MODULE_DOC, prefix: "parse" });
  }

  protected ownNames(def: Def): readonly string[] {
    return [`p_${def.name}`, `f_${def.name}`];
  }

  protected wrapper(def: Def, asking: boolean): Code {
    // The module doc says what every parser guarantees; one line per function keeps the .d.ts small.
    const raw = asking ? ` \`result\` is kept raw (a response names no method): see \`${def.name}For\`.` : "";
    const comment = doc([`Tolerant decoding of \`${def.name}\` into a fresh value (S23-S30); never throws; \`{ forgiven: true }\` also lists what it forgave.${raw}`]);
    const decode = name(`p_${def.name}`);
    const head = code`function ${name(`parse_${def.name}`)}(value: unknown, options?: rt.ParseOptions): Result<T.${name(def.name)}>`;
    return code`${comment}${block(head, [code`return options?.forgiven ? rt.finishForgiving(value, ${decode}(value)) : rt.finish(${decode}(value));`])}`;
  }

  /** `parse.XFor(method, value)`: the envelope `X` answering a request of `method`. */
  protected askingWrapper(def: Def): Code {
    const comment = doc([
      `Tolerant decoding of \`${def.name}\` answering a request of \`method\`: \`result\` is decoded with that`,
      "method's result type (a method outside the table keeps it raw); never throws.",
    ]);
    const head = code`function ${name(`parse_${def.name}For`)}(method: string, value: unknown): Result<T.${name(def.name)}>`;
    return code`${comment}${block(head, this.whileAsked(code`return rt.finish(${name(`p_${def.name}`)}(value));`))}`;
  }

  /** `p_X` for every def; plain object defs also get `f_X`, which fills a given output object. */
  protected definition(def: Def): void {
    const decoder = `p_${def.name}`;
    if (def.node.kind === "object") {
      const fill = this.pool.define(`f_${def.name}`, block(code`function ${name(`f_${def.name}`)}${FILLER}`, this.fill(def.node)));
      this.pool.define(decoder, block(code`function ${name(decoder)}${DECODER}`, [NOT_OBJECT, code`const out: any = ${outLiteral([], ownFields(def.node))};`, code`return ${fill}(v, out) && out;`]));
      return;
    }
    this.pool.define(decoder, block(code`function ${name(decoder)}${DECODER}`, this.body(def.node)));
  }

  /** An expression: the decoded `x`, or `undefined` after `fail`. `skip` applies S24 to arrays. */
  private decode(node: Node, x: Code, skip = false): Code {
    if (isScalar(node)) return code`(${scalarTest(node, x)} ? ${x} : rt.fail(${expectation(node)}, ${x}))`;
    switch (node.kind) {
      case "ref":
        return code`${name(`p_${node.name}`)}(${x})`;
      case "json":
        return code`rt.copyJson(${x})`;
      case "nullable":
        if (isScalar(node.inner)) return code`(${x} === null || ${scalarTest(node.inner, x)} ? ${x} : rt.fail(${`${expectation(node.inner)} or null`}, ${x}))`;
        return code`(${x} === null ? null : ${this.decode(node.inner, x, skip)})`;
      case "array":
        return code`${this.hoist(this.array(node, skip))}(${x})`;
      default:
        return code`${this.hoist(this.body(node))}(${x})`;
    }
  }

  private hoist(body: readonly Code[]): Code {
    return this.pool.intern("p_", block(DECODER, body));
  }

  /** Statements decoding `v` against a compound node. */
  private body(node: Node, mixin?: MixinContext): Code[] {
    switch (node.kind) {
      case "object":
        return [NOT_OBJECT, code`const out: any = ${outLiteral([], ownFields(node))};`, code`return ${this.pool.intern("f_", block(FILLER, this.fill(node)))}(v, out) && out;`];
      case "array":
        return this.array(node, false);
      case "record": {
        const value = this.pool.within("value", () => this.decode(node.values, X));
        const loop = block(code`for (const k of Object.keys(v))`, [code`const x = v[k];`, code`const y = ${value};`, code`if (y === undefined) return rt.atKey(k);`, code`rt.put(out, k, y);`]);
        return [NOT_OBJECT, code`const out: any = {};`, loop, code`return out;`];
      }
      case "tagged":
        return this.tagged(node, mixin);
      case "union":
        return this.union(node);
      default:
        return [code`return ${this.decode(node, V)};`];
    }
  }

  /**
   * `minItems` is not asserted: the Rust reference deserializes into a `Vec`, which takes
   * `[]` (its own tests decode a v2 RequestPermissionRequest with `options: []`); only
   * `validate` (JSON Schema, S31) rejects it.
   */
  private array(node: Extract<Node, { kind: "array" }>, skip: boolean): Code[] {
    // S24: an item that fails is dropped and the order of the rest is kept.
    const onBad = skip ? code`continue` : code`return rt.atKey(i)`;
    const item = this.pool.within("item", () => this.decode(node.items, X));
    const loop = block(code`for (let i = 0; i < v.length; i++)`, [code`const x = v[i];`, code`const y = ${item};`, code`if (y === undefined) ${onBad};`, code`out.push(y);`]);
    return [code`if (!Array.isArray(v)) return rt.fail("expected an array", v);`, code`const out: any[] = [];`, loop, code`return out;`];
  }

  /** Statements writing the object's decoded fields into `out`; `true` when the object holds. */
  private fill(node: ObjectNode): Code[] {
    const tag = mixinTag(node);
    const own = ownFields(node);
    const hasMethod = node.fields.some((f) => f.name === "method" && f.node.kind === "string");
    const statements = own.flatMap((f) => this.field(f, hasMethod));
    // S29: `additionalProperties: true` keeps unknown properties, raw.
    if (node.keepsUnknown) statements.push(code`rt.copyRawExcept(v, out, ${this.keyList(node.fields.map((f) => f.name))});`);
    if (node.mixin) {
      const context: MixinContext = {
        baseFields: own.map((f) => f.name),
        tolerantTag: node.fields.some((f) => f.name === tag && f.tolerance.defaultOnError),
      };
      const mixin = node.mixin;
      const decoder = this.pool.within("mixin", () => this.hoist(this.body(mixin, context)));
      statements.push(code`const m = ${decoder}(v);`, code`if (m === undefined) return undefined;`, code`rt.merge(out, m);`);
    }
    const locals = own.length ? [code`let x: any, y: any;`] : [];
    return [...locals, ...statements, code`return true;`];
  }

  /** One property: tolerance keywords decide what a bad or null value becomes (S23-S26). */
  private field(f: Field, hasMethod = false): Code[] {
    const seg = segment(f.name);
    const empty = emptyValue(f.node);
    const dispatch = methodDispatch(withoutNull(f.node), this.defs);
    let decoded = this.pool.within(f.name, () => (dispatch ? this.byMethod(dispatch, hasMethod) : this.decode(f.node, X, f.tolerance.skipInvalidItems)));
    if (dispatch && f.node.kind === "nullable") decoded = code`(x === null ? null : ${decoded})`;
    // S25: default-on-null turns an explicit null into the empty value.
    const value = f.tolerance.defaultOnNull && empty ? code`x === null ? ${empty} : ${decoded}` : decoded;
    let onBad: Code | undefined;
    if (!f.tolerance.defaultOnError || (f.required && !empty)) onBad = code`return rt.at(${seg})`; // S26: fail the enclosing object
    else if (f.required) onBad = ownSet(OUT, f.name, empty!); // S23: required -> empty value
    // else S23: malformed optional value -> absent (never null)
    const present = [code`y = ${value};`, code`if (y !== undefined) ${ownSet(OUT, f.name, name("y"))};`, ...(onBad ? [code`else ${onBad};`] : [])];
    const missing = code`return rt.failAt(${seg}, "missing required property");`;
    const test = f.required ? chain([[code`if (x !== undefined)`, present], [code`else`, [missing]]]) : block(code`if (x !== undefined)`, present);
    return [code`x = ${own(V, f.name)};`, test];
  }

  /**
   * `x` decoded as the type of its method: the object's own `method` field, or
   * (a response) the method a `parse.XFor` caller asked, else kept raw.
   */
  private byMethod(dispatch: MethodDispatch, hasMethod: boolean): Code {
    const known = dispatch.methods.map(([method]) => method).join(", ");
    const other = dispatch.fallback ? this.decode(dispatch.fallback, V) : code`rt.fail(${`no params type for this method; expected one of ${known}`})`;
    const decoder = this.methodSwitch("m_", code`any`, dispatch, (def) => code`${name(`p_${def}`)}(v)`, other);
    const method = this.methodOf(hasMethod);
    return hasMethod ? code`${decoder}(${method}, x)` : code`(${method} === undefined ? rt.copyJson(x) : ${decoder}(${method}, x))`;
  }

  /** Tag dispatch (S27): known tags must decode as their variant; other strings are the custom variant. */
  private tagged(node: TaggedUnionNode, mixin?: MixinContext): Code[] {
    const seg = segment(node.tag);
    const cases = node.variants.map((variant) => clause(code`case ${variant.tagValue}:`, [code`y = ${this.variant(node.tag, variant)}(v);`, code`break;`]));
    const otherTag = node.other ? code`${this.other(node.other, mixin)}(v)` : code`rt.failAt(${seg}, ${`unknown ${node.tag}; this union is closed`})`;
    const absentTag = node.absent
      ? code`t === null ? { ${literalKey(node.tag)}: null } : t === undefined ? {} : rt.failAt(${seg}, "expected a string or null")`
      : code`rt.failAt(${seg}, t === undefined ? "missing required property" : "expected a string")`;
    return [
      NOT_OBJECT,
      code`${mixin?.tolerantTag ? code`let` : code`const`} t = ${own(V, node.tag)};`,
      // S23: a shared optional tag that is not a string is removed before a variant is chosen.
      ...(mixin?.tolerantTag ? [code`if (t !== null && typeof t !== "string") t = undefined;`] : []),
      code`let y: any;`,
      block(code`switch (t)`, [...cases, clause(code`default:`, [code`y = typeof t === "string" ? ${otherTag} : ${absentTag};`])]),
      ...(node.untagged ?? []).map((o) => code`if (y === undefined) y = ${this.pool.within(o.name, () => this.decode(o.node, V))};`),
      code`return y;`,
    ];
  }

  /** A known variant: the tag, its own fields, then its payload's fields. */
  private variant(tag: string, variant: TaggedVariant): Code {
    // Claimed first: a helper of an inline payload, named after the variant's path, must not take this name.
    this.pool.reserve([`p_${variant.name}`]);
    return this.pool.rooted(variant.name, () => {
      const fields = variant.fields.flatMap((f) => this.field(f));
      const statements = [code`const out: any = ${outLiteral([[tag, code`${variant.tagValue}`]], [...variant.fields, ...this.payloadFields(variant.payload)])};`];
      if (fields.length) statements.push(code`let x: any, y: any;`, ...fields);
      statements.push(...this.payload(variant.payload));
      const fixed = `p_${variant.name}`;
      return this.pool.define(fixed, block(code`function ${name(fixed)}${DECODER}`, statements));
    });
  }

  /** The plain object def a variant's payload names, whose `f_X` fills the variant's `out` directly. */
  private payloadObject(payload: Node | undefined): ObjectNode | undefined {
    const target = payload?.kind === "ref" ? this.defs.get(payload.name)!.node : undefined;
    return target?.kind === "object" ? target : undefined;
  }

  /** The fields a payload's `f_X` writes into the variant's `out`, in order (none for a payload merged from a decoded value). */
  private payloadFields(payload: Node | undefined): readonly Field[] {
    const target = this.payloadObject(payload);
    return target ? ownFields(target) : [];
  }

  /** Decodes a variant payload into `out` (a plain object def fills it directly). */
  private payload(payload: Node | undefined): Code[] {
    if (!payload) return [code`return out;`];
    if (payload.kind === "ref" && this.payloadObject(payload)) return [code`return ${name(`f_${payload.name}`)}(v, out) && out;`];
    return [code`const p = ${this.decode(payload, V)};`, code`return p === undefined ? undefined : rt.merge(out, p);`];
  }

  /** The custom variant (S27): declared and required properties still hold; everything else is kept raw. */
  private other(other: OtherVariant, mixin?: MixinContext): Code {
    this.pool.reserve([`p_${other.name}`]);
    return this.pool.rooted(other.name, () => {
      const declared = new Set(other.fields.map((f) => f.name));
      const statements = other.required
        .filter((r) => !declared.has(r))
        .map((r) => code`if (${own(V, r)} === undefined) return rt.failAt(${segment(r)}, "missing required property");`);
      for (const f of other.fields) {
        const seg = segment(f.name);
        const decoded = this.pool.within(f.name, () => this.decode(f.node, X));
        statements.push(code`x = ${own(V, f.name)};`);
        if (f.required) statements.push(code`if (x === undefined) return rt.failAt(${seg}, "missing required property");`);
        statements.push(code`if (${f.required ? code`` : code`x !== undefined && `}${decoded} === undefined) return rt.at(${seg});`);
      }
      const otherMixin = other.mixin;
      if (otherMixin) statements.push(code`if (${this.pool.within("mixin", () => this.decode(otherMixin, V))} === undefined) return undefined;`);
      const locals = other.fields.length ? [code`let x: any;`] : [];
      const raw = mixin?.baseFields.length ? code`rt.copyRawExcept(v, {}, ${this.keyList(mixin.baseFields)})` : code`rt.copyJson(v)`;
      const fixed = `p_${other.name}`;
      return this.pool.define(fixed, block(code`function ${name(fixed)}${DECODER}`, [...locals, ...statements, code`return ${raw};`]));
    });
  }

  /** A module-level constant list of property names (not a fresh array on every call). */
  private keyList(names: readonly string[]): Code {
    return this.pool.internConst("K_", code`[${join(names.map((n) => code`${n}`), code`, `)}]`);
  }

  /** First alternative that decodes wins (serde's untagged enums); else the deepest failure. */
  private union(node: UnionNode): Code[] {
    // S29: a union with an any-JSON alternative (`ErrorData`'s `Other`) is an untyped value: kept whole,
    // every property, rather than narrowed to the first typed alternative it happens to fit.
    if (this.acceptsAnyJson(node)) return [code`return rt.copyJson(v);`];
    const tries = node.options.flatMap((o, i) => [
      code`y = ${this.pool.within(o.name, () => this.decode(o.node, V))};`,
      code`if (y !== undefined) return y;`,
      code`best = ${i ? code`rt.deeper(best)` : code`rt.failure()`};`,
    ]);
    return [code`let y: any, best: rt.Failure;`, ...tries, code`return rt.noAlternative(best, v);`];
  }
}

/**
 * The literal creating an output object: its `head` entries (a variant's tag),
 * then a slot, `undefined` until filled, for each required field before the
 * first optional one. V8 gives a literal room for its own keys only: a key
 * added later lands in a separately allocated property array (a variant's
 * `{ tag }` used to hold every field there). A required field is always
 * written, or the object dropped, so its slot never stays `undefined` in a
 * result, and the keys keep the order in which they were written before.
 */
function outLiteral(head: readonly (readonly [string, Code])[], fields: readonly Field[]): Code {
  const keys = new Set(head.map(([key]) => key));
  const entries = head.map(([key, value]) => code`${literalKey(key)}: ${value}`);
  for (const f of fields) {
    if (!f.required) break;
    if (keys.has(f.name)) continue;
    keys.add(f.name);
    entries.push(code`${literalKey(f.name)}: undefined`);
  }
  return entries.length ? code`{ ${join(entries, code`, `)} }` : code`{}`;
}

/** The empty value of a collection (S23 required default-on-error, S25 default-on-null). */
function emptyValue(node: Node): Code | undefined {
  const kind = withoutNull(node).kind;
  return kind === "array" ? code`[]` : kind === "record" ? code`{}` : undefined;
}

/** Emits the `parse.ts` module of one surface. */
export function emitParsers(model: SurfaceModel): string {
  return new ParserWriter(model).emit();
}
