/**
 * The all-issues path of `validate.X(value, { all: true })` (issue 13.2): one
 * collector `c_X(v, p, out)` per IR node that, unlike the fast validator,
 * does not stop at the first failure but pushes every issue (JSON pointer `p`
 * built on the way in) into `out`. The fast validator still decides the
 * verdict; collectors only run after it said no, so the default path costs
 * nothing more. Unions ask the fast checks which alternative holds, and report
 * the alternative whose issues go deepest when none does.
 */
import { ident, literal, ownRead, type Code } from "../code.js";
import type { Field, Node, ObjectNode, OtherVariant, TaggedUnionNode, TaggedVariant, UnionNode } from "../ir.js";
import { expectation, type FunctionPool, isScalar, scalarTest, segment } from "./checks.js";

/** The fast check expression of the validator writer (`true` or `undefined` after `fail`). */
export type FastCheck = (node: Node, x: string) => string;

export class CollectorWriter {
  constructor(
    private readonly pool: FunctionPool,
    private readonly fast: FastCheck,
  ) {}

  /** The collector function of a def, `c_X`. */
  definition(name: string, node: Node): void {
    this.pool.add(`function c_${ident(name)}(v: any, p: string, out: rt.Issue[]): void {\n${this.body(node)}}\n`);
  }

  /** A statement collecting the issues of `x` (at pointer expression `p`) into the array named `out`. */
  private collect(node: Node, x: string, p: string, out = "out"): string {
    if (isScalar(node)) return `if (!(${scalarTest(node, x)})) rt.issue(${out}, ${p}, ${literal(expectation(node))}, ${x});`;
    switch (node.kind) {
      case "ref":
        return `c_${ident(node.name)}(${x}, ${p}, ${out});`;
      case "json":
        return "";
      case "nullable":
        if (isScalar(node.inner)) return `if (!(${x} === null || ${scalarTest(node.inner, x)})) rt.issue(${out}, ${p}, ${literal(`${expectation(node.inner)} or null`)}, ${x});`;
        return `if (${x} !== null) ${this.collect(node.inner, x, p, out) || "{}"}`;
      default:
        return `${this.pool.intern("c_", `(v: any, p: string, out: rt.Issue[]): void {\n${this.body(node)}}\n`)}(${x}, ${p}, ${out});`;
    }
  }

  private body(node: Node): string {
    switch (node.kind) {
      case "object":
        return `  if (!rt.isObject(v)) return rt.issue(out, p, "expected an object", v);\n${this.object(node)}`;
      case "array": {
        const min = node.minItems ? `  if (v.length < ${node.minItems}) rt.issue(out, p, ${literal(`expected at least ${node.minItems} item(s)`)});\n` : "";
        const item = this.collect(node.items, "v[i]", "rt.pointer(p, i)");
        const loop = item ? `  for (let i = 0; i < v.length; i++) ${item}\n` : "";
        return `  if (!Array.isArray(v)) return rt.issue(out, p, "expected an array", v);\n${min}${loop}`;
      }
      case "record": {
        const value = this.collect(node.values, "v[k]", "rt.pointer(p, k)");
        const loop = value ? `  for (const k of Object.keys(v)) ${value}\n` : "";
        return `  if (!rt.isObject(v)) return rt.issue(out, p, "expected an object", v);\n${loop}`;
      }
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node);
      default:
        return `  ${this.collect(node, "v", "p")}\n`;
    }
  }

  private object(node: ObjectNode): string {
    return this.fields(node.fields) + (node.mixin ? `  ${this.collect(node.mixin, "v", "p")}\n` : "");
  }

  private fields(fields: readonly Field[]): string {
    return fields
      .map((f) => {
        const seg = segment(f.name);
        const check = this.pool.within(f.name, () => this.collect(f.node, "x", `p + ${seg}`));
        const missing = f.required ? ` else rt.issue(out, p + ${seg}, "missing required property");` : "";
        return check || missing ? `  { const x: any = ${ownRead("v", f.name)}; if (x !== undefined) { ${check} }${missing} }\n` : "";
      })
      .join("");
  }

  /** Tag dispatch as the fast validator does; untagged branches decide after it (anyOf / oneOf). */
  private tagged(node: TaggedUnionNode): string {
    const seg = segment(node.tag);
    const cases = node.variants.map((variant) => `    case ${literal(variant.tagValue)}: ${this.variant(variant)}(v, p, out); break;`);
    const other = node.other ? `${this.other(node.other)}(v, p, out)` : `rt.issue(out, p + ${seg}, ${literal(`unknown ${node.tag}; this union is closed`)}, t)`;
    const noTag = node.absent
      ? `if (t !== undefined && t !== null) rt.issue(out, p + ${seg}, "expected a string or null", t)`
      : `rt.issue(out, p + ${seg}, t === undefined ? "missing required property" : "expected a string", t)`;
    const lines = [
      `  if (!rt.isObject(v)) return rt.issue(out, p, "expected an object", v);`,
      `  const t = ${ownRead("v", node.tag)};`,
      "  const mark = out.length;",
      "  switch (t) {",
      ...cases,
      `    default: if (typeof t === "string") ${other}; else ${noTag};`,
      "  }",
    ];
    const untagged = (node.untagged ?? []).map((o) => `(${this.fast(o.node, "v")} ? 1 : 0)`);
    if (untagged.length && !node.exclusive) lines.push(`  if (out.length > mark && ${untagged.map((u) => `${u} === 1`).join(" || ")}) out.length = mark;`);
    else if (untagged.length) {
      lines.push(
        `  const n = (out.length === mark ? 1 : 0) + ${untagged.join(" + ")};`,
        "  if (n === 1) out.length = mark;",
        `  else if (n > 1) { out.length = mark; rt.issue(out, p, "matches more than one variant (oneOf)"); }`,
      );
    }
    return lines.join("\n") + "\n";
  }

  private variant(variant: TaggedVariant): Code {
    const payload = variant.payload ? `  ${this.collect(variant.payload, "v", "p")}\n` : "";
    return this.pool.rooted(variant.name, () => this.pool.intern("c_", `(v: any, p: string, out: rt.Issue[]): void {\n${this.fields(variant.fields)}${payload}}\n`));
  }

  private other(other: OtherVariant): Code {
    const declared = new Set(other.fields.map((f) => f.name));
    const required = other.required
      .filter((r) => !declared.has(r))
      .map((r) => `  if (${ownRead("v", r)} === undefined) rt.issue(out, p + ${segment(r)}, "missing required property");\n`)
      .join("");
    const mixin = other.mixin ? `  ${this.collect(other.mixin, "v", "p")}\n` : "";
    return this.pool.rooted(other.name, () => this.pool.intern("c_", `(v: any, p: string, out: rt.Issue[]): void {\n${required}${this.fields(other.fields)}${mixin}}\n`));
  }

  /** anyOf: nothing when an alternative holds; oneOf: also "more than one"; else the deepest alternative's issues. */
  private union(node: UnionNode): string {
    const tries = node.options.map((o) => `(${this.fast(o.node, "v")} ? 1 : 0)`);
    const collectors = node.options.map((o) => `(q: rt.Issue[]) => { ${this.pool.within(o.name, () => this.collect(o.node, "v", "p", "q"))} }`);
    return [
      `  const n = ${tries.join(" + ")};`,
      node.exclusive ? `  if (n > 1) return rt.issue(out, p, "matches more than one alternative (oneOf)");` : "",
      "  if (n > 0) return;",
      `  rt.deepestIssues(out, p, v, [${collectors.join(", ")}]);`,
    ]
      .filter(Boolean)
      .join("\n") + "\n";
  }
}
