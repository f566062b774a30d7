/**
 * The all-issues path of `validate.X(value, { all: true })` (issue 13.2): one
 * collector `c_X(v, p, out)` per IR node that, unlike the fast validator,
 * does not stop at the first failure but pushes every issue (JSON pointer `p`
 * built on the way in) into `out`. The fast validator still decides the
 * verdict; collectors only run after it said no, so the default path costs
 * nothing more. Collectors need none of the fast checks (which live in
 * validate-first.ts, bundled without them): an alternative of a union holds
 * when its collector finds nothing (runtime `collect.holding`), and when none holds
 * the alternative whose issues go deepest is reported.
 */
import { block, code, join, name, own, type Code } from "../code.js";
import type { Field, Node, ObjectNode, OtherVariant, TaggedUnionNode, TaggedVariant, UnionNode, UnionOption } from "../ir.js";
import { expectation, type FunctionPool, isScalar, scalarTest, segment } from "./checks.js";

const V = code`v`;
const P = code`p`;
const OUT = code`out`;
const SIGNATURE = code`(v: any, p: string, out: rt.Issue[]): void`;
const OBJECT_EXPECTED = code`if (!rt.isObject(v)) return rt.issue(out, p, "expected an object", v);`;

/** The collector of a def: `c_X`. */
export function collectorName(type: string): Code {
  return name(`c_${type}`);
}

export class CollectorWriter {
  /** `types`: the defs, whose collector names (`c_X`) no hoisted helper may take. */
  constructor(private readonly pool: FunctionPool, types: readonly string[]) {
    pool.reserve(types.map((type) => collectorName(type).text));
  }

  /** The collector function of a def, `c_X`. */
  definition(type: string, node: Node): void {
    this.pool.within(type, () => this.pool.define(collectorName(type).text, block(code`function ${collectorName(type)}${SIGNATURE}`, this.body(node))));
  }

  /** A statement collecting the issues of `x` (at pointer expression `p`) into the array `out`; empty code when nothing can fail. */
  private collect(node: Node, x: Code, p: Code, out: Code = OUT): Code {
    if (isScalar(node)) return code`if (!(${scalarTest(node, x)})) rt.issue(${out}, ${p}, ${expectation(node)}, ${x});`;
    switch (node.kind) {
      case "ref":
        return code`${collectorName(node.name)}(${x}, ${p}, ${out});`;
      case "json":
        return code``;
      case "nullable": {
        if (isScalar(node.inner)) return code`if (!(${x} === null || ${scalarTest(node.inner, x)})) rt.issue(${out}, ${p}, ${`${expectation(node.inner)} or null`}, ${x});`;
        const inner = this.collect(node.inner, x, p, out);
        return code`if (${x} !== null) ${inner.text ? inner : code`{}`}`;
      }
      default:
        return code`${this.pool.intern("c_", block(SIGNATURE, this.body(node)))}(${x}, ${p}, ${out});`;
    }
  }

  private body(node: Node): Code[] {
    switch (node.kind) {
      case "object":
        return [OBJECT_EXPECTED, ...this.object(node)];
      case "array": {
        const min = node.minItems ? [code`if (v.length < ${node.minItems}) rt.issue(out, p, ${`expected at least ${node.minItems} item(s)`});`] : [];
        const item = this.collect(node.items, code`v[i]`, code`rt.pointer(p, i)`);
        const loop = item.text ? [code`for (let i = 0; i < v.length; i++) ${item}`] : [];
        return [code`if (!Array.isArray(v)) return rt.issue(out, p, "expected an array", v);`, ...min, ...loop];
      }
      case "record": {
        const value = this.collect(node.values, code`v[k]`, code`rt.pointer(p, k)`);
        return [OBJECT_EXPECTED, ...(value.text ? [code`for (const k of Object.keys(v)) ${value}`] : [])];
      }
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node);
      default:
        return [this.collect(node, V, P)];
    }
  }

  private object(node: ObjectNode): Code[] {
    return [...this.fields(node.fields), ...(node.mixin ? [this.collect(node.mixin, V, P)] : [])];
  }

  private fields(fields: readonly Field[]): Code[] {
    return fields.flatMap((f) => {
      const at = code`p + ${segment(f.name)}`;
      const check = this.pool.within(f.name, () => this.collect(f.node, code`x`, at));
      if (!check.text && !f.required) return [];
      const present = block(code`if (x !== undefined)`, check.text ? [check] : [], f.required ? code` else rt.issue(out, ${at}, "missing required property");` : code``);
      return [block(code``, [code`const x: any = ${own(V, f.name)};`, present])];
    });
  }

  /** Tag dispatch as the fast validator does; untagged branches decide after it (anyOf / oneOf). */
  private tagged(node: TaggedUnionNode): Code[] {
    const at = code`p + ${segment(node.tag)}`;
    const cases = node.variants.map((variant) => code`case ${variant.tagValue}: ${this.variant(variant)}(v, p, out); break;`);
    const other = node.other ? code`${this.other(node.other)}(v, p, out)` : code`rt.issue(out, ${at}, ${`unknown ${node.tag}; this union is closed`}, t)`;
    const noTag = node.absent
      ? code`if (t !== undefined && t !== null) rt.issue(out, ${at}, "expected a string or null", t)`
      : code`rt.issue(out, ${at}, t === undefined ? "missing required property" : "expected a string", t)`;
    const untagged = node.untagged ?? [];
    // `mark`: where the tagged branch's issues start, for the untagged branches to take back.
    const dispatch = [
      OBJECT_EXPECTED,
      code`const t = ${own(V, node.tag)};`,
      ...(untagged.length ? [code`const mark = out.length;`] : []),
      block(code`switch (t)`, [...cases, code`default: if (typeof t === "string") ${other}; else ${noTag};`]),
    ];
    if (untagged.length === 0) return dispatch;
    const holding = code`collect.holding(${this.alternatives(untagged)})`;
    if (!node.exclusive) return [...dispatch, code`if (out.length > mark && ${holding} > 0) out.length = mark;`];
    return [
      ...dispatch,
      code`const n = (out.length === mark ? 1 : 0) + ${holding};`,
      code`if (n === 1) out.length = mark;`,
      code`else if (n > 1) { out.length = mark; rt.issue(out, p, "matches more than one variant (oneOf)"); }`,
    ];
  }

  private variant(variant: TaggedVariant): Code {
    return this.pool.rooted(variant.name, () => this.pool.intern("c_", block(SIGNATURE, [...this.fields(variant.fields), ...(variant.payload ? [this.collect(variant.payload, V, P)] : [])])));
  }

  private other(other: OtherVariant): Code {
    const declared = new Set(other.fields.map((f) => f.name));
    const required = other.required
      .filter((r) => !declared.has(r))
      .map((r) => code`if (${own(V, r)} === undefined) rt.issue(out, p + ${segment(r)}, "missing required property");`);
    return this.pool.rooted(other.name, () => {
      const mixin = other.mixin ? [this.collect(other.mixin, V, P)] : [];
      return this.pool.intern("c_", block(SIGNATURE, [...required, ...this.fields(other.fields), ...mixin]));
    });
  }

  /** anyOf: nothing when an alternative holds; oneOf: also "more than one"; else the deepest alternative's issues. */
  private union(node: UnionNode): Code[] {
    return [
      code`const alternatives = ${this.alternatives(node.options)};`,
      code`const n = collect.holding(alternatives);`,
      ...(node.exclusive ? [code`if (n > 1) return rt.issue(out, p, "matches more than one alternative (oneOf)");`] : []),
      code`if (n > 0) return;`,
      code`rt.deepestIssues(out, p, v, alternatives);`,
    ];
  }

  /** The collectors of `options` on `v`, as an array of functions collecting into their argument. */
  private alternatives(options: readonly UnionOption[]): Code {
    return code`[${join(options.map((o) => code`(q: rt.Issue[]) => { ${this.pool.within(o.name, () => this.collect(o.node, V, P, code`q`))} }`), code`, `)}]`;
  }
}
