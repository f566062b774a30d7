/**
 * emitValidators: IR -> `validate.ts` of one surface. Each `validate.X`
 * accepts exactly what JSON Schema 2020-12 accepts for X (S31): integer
 * formats enforced as ranges (S30), `x-*` keywords and other formats ignored,
 * `not` honoured by dispatching on the tag (a known tag with a bad payload is
 * invalid, never "other"). Straight-line code, one function per IR node.
 */
import { ident, jsDoc, literal, ownRead, type Code } from "../code.js";
import type { Def, Field, Node, ObjectNode, OtherVariant, SchemaIR, TaggedUnionNode, TaggedVariant, UnionNode } from "../ir.js";
import { decodeModule, expectation, FunctionPool, isScalar, scalarTest, segment } from "./checks.js";
import { CollectorWriter } from "./validate-all.js";

class ValidatorWriter {
  private readonly pool = new FunctionPool();
  private readonly collectors = new CollectorWriter(this.pool, (node, x) => this.check(node, x));

  constructor(private readonly ir: SchemaIR) {}

  emit(): string {
    const exports: string[] = [];
    this.pool.reserve(this.ir.defs.flatMap((d) => [`v_${d.name}`, `c_${d.name}`]));
    for (const def of this.ir.defs) {
      this.pool.within(def.name, () => {
        this.pool.add(`function v_${ident(def.name)}(v: any): true | undefined {\n${this.body(def.node)}}\n`);
        this.collectors.definition(def.name, def.node);
      });
      exports.push(this.wrapper(def));
    }
    const doc = [
      "Strict validators, one per `$defs` type: each accepts exactly what JSON Schema 2020-12 accepts",
      "(S31), with integer formats enforced as ranges (S30), `x-*` keywords and other formats ignored.",
      "The first issue is reported; `validate.X(value, { all: true })` reports every issue, in document order.",
    ];
    return decodeModule(this.ir, { doc, pool: this.pool, wrappers: exports, prefix: "validate" });
  }

  private wrapper(def: Def): string {
    // The module doc says what every validator guarantees; one line per function keeps the .d.ts small.
    const doc = jsDoc([`Strict check of \`${def.name}\` (JSON Schema 2020-12, S31); returns the input itself when valid.`]);
    return (
      `${doc}function validate_${def.name}(value: unknown, options?: rt.ValidateOptions): Result<T.${def.name}> {\n` +
      `  if (v_${def.name}(value)) return { ok: true, value: value as T.${def.name} };\n` +
      `  return options?.all ? rt.allIssues(value, c_${def.name}) : rt.finish(undefined);\n}\n`
    );
  }

  /** An expression: `true` when `x` fits `node`, `undefined` (after `fail`) otherwise. */
  private check(node: Node, x: string): string {
    if (isScalar(node)) return `(${scalarTest(node, x)} || rt.fail(${literal(expectation(node))}, ${x}))`;
    switch (node.kind) {
      case "ref":
        return `v_${ident(node.name)}(${x})`;
      case "json":
        return "true";
      case "nullable":
        if (isScalar(node.inner)) {
          return `(${x} === null || ${scalarTest(node.inner, x)} || rt.fail(${literal(`${expectation(node.inner)} or null`)}, ${x}))`;
        }
        return `(${x} === null || ${this.check(node.inner, x)})`;
      default:
        return `${this.hoist(node)}(${x})`;
    }
  }

  /** A helper function for a compound node; returns its name. */
  private hoist(node: Node): Code {
    return this.pool.intern("v_", `(v: any): true | undefined {\n${this.body(node)}}\n`);
  }

  /** The statements checking `v` against `node`. */
  private body(node: Node): string {
    switch (node.kind) {
      case "object":
        return this.object(node);
      case "array": {
        const min = node.minItems ? `  if (v.length < ${node.minItems}) return rt.fail(${literal(`expected at least ${node.minItems} item(s)`)});\n` : "";
        const item = this.check(node.items, "x");
        const loop = item === "true" ? "" : `  for (let i = 0; i < v.length; i++) {\n    const x = v[i];\n    if (!${item}) return rt.atKey(i);\n  }\n`;
        return `  if (!Array.isArray(v)) return rt.fail("expected an array", v);\n${min}${loop}  return true;\n`;
      }
      case "record": {
        const value = this.check(node.values, "x");
        const loop = value === "true" ? "" : `  for (const k of Object.keys(v)) {\n    const x = v[k];\n    if (!${value}) return rt.atKey(k);\n  }\n`;
        return `  if (!rt.isObject(v)) return rt.fail("expected an object", v);\n${loop}  return true;\n`;
      }
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node);
      default:
        return `  return ${this.check(node, "v")};\n`;
    }
  }

  private object(node: ObjectNode): string {
    const tail = node.mixin ? `  return ${this.check(node.mixin, "v")};` : "  return true;";
    return `  if (!rt.isObject(v)) return rt.fail("expected an object", v);\n${withLocals(this.fields(node.fields), tail)}`;
  }

  /** Checks of declared properties (`x-*` tolerance keywords are ignored: S31). */
  private fields(fields: readonly Field[]): string[] {
    return fields.flatMap((f) => {
      const seg = segment(f.name);
      const read = `  x = ${ownRead("v", f.name)};`;
      const test = f.node.kind === "json" ? [] : [`  if (${f.required ? "" : "x !== undefined && "}!${this.pool.within(f.name, () => this.check(f.node, "x"))}) return rt.at(${seg});`];
      const presence = f.required ? [`  if (x === undefined) return rt.failAt(${seg}, "missing required property");`] : [];
      return test.length || presence.length ? [read, ...presence, ...test] : [];
    });
  }

  /** Dispatch on the tag; untagged branches are tried after (anyOf) or counted (oneOf). */
  private tagged(node: TaggedUnionNode): string {
    const seg = segment(node.tag);
    const cases = node.variants.map((variant) => `    case ${literal(variant.tagValue)}:\n      ok = ${this.variant(variant)}(v);\n      break;`);
    const otherTag = node.other
      ? `${this.other(node.other)}(v)`
      : `rt.failAt(${seg}, ${literal(`unknown ${node.tag}; this union is closed`)})`;
    const noTag = node.absent
      ? `t === undefined || t === null || rt.failAt(${seg}, "expected a string or null")`
      : `rt.failAt(${seg}, t === undefined ? "missing required property" : "expected a string")`;
    const lines = [
      `  if (!rt.isObject(v)) return rt.fail("expected an object", v);`,
      `  const t = ${ownRead("v", node.tag)};`,
      "  let ok: true | undefined;",
      "  switch (t) {",
      ...cases,
      "    default:",
      `      ok = typeof t === "string" ? ${otherTag} : ${noTag};`,
      "  }",
    ];
    const untagged = node.untagged ?? [];
    if (untagged.length === 0) lines.push("  return ok;");
    else if (!node.exclusive) {
      lines.push("  if (ok) return true;", ...untagged.map((o) => `  if (${this.check(o.node, "v")}) return true;`), `  return rt.fail("matches no variant");`);
    } else {
      lines.push("  let n = ok ? 1 : 0;", ...untagged.map((o) => `  if (${this.check(o.node, "v")}) n++;`), `  return n === 1 || rt.fail(n ? "matches more than one variant (oneOf)" : "matches no variant");`);
    }
    return lines.join("\n") + "\n";
  }

  /** A variant's own fields and payload (the tag is already known to match). */
  private variant(variant: TaggedVariant): string {
    const name = `v_${ident(variant.name)}`;
    const fields = this.fields(variant.fields);
    const tail = variant.payload ? `  return ${this.check(variant.payload, "v")};` : "  return true;";
    this.pool.add(`function ${name}(v: any): true | undefined {\n${withLocals(fields, tail)}}\n`);
    return name;
  }

  /** The open branch (S27): any other string tag; declared and required properties still hold. */
  private other(other: OtherVariant): string {
    const name = `v_${ident(other.name)}`;
    const declared = new Set(other.fields.map((f) => f.name));
    const required = other.required
      .filter((r) => !declared.has(r))
      .map((r) => `  if (${ownRead("v", r)} === undefined) return rt.failAt(${segment(r)}, "missing required property");`);
    const fields = this.fields(other.fields);
    const tail = other.mixin ? `  return ${this.check(other.mixin, "v")};` : "  return true;";
    this.pool.add(`function ${name}(v: any): true | undefined {\n${withLocals([...required, ...fields], tail)}}\n`);
    return name;
  }

  private union(node: UnionNode): string {
    const options = node.options.map((o) => this.pool.within(o.name, () => this.check(o.node, "v")));
    if (!node.exclusive) {
      const tries = options.map((o, i) => `  if (${o}) return true;\n  best = ${i ? "rt.deeper(best)" : "rt.failure()"};`);
      return `  let best: rt.Failure;\n${tries.join("\n")}\n  return rt.noAlternative(best, v);\n`;
    }
    return `  let n = 0;\n${options.map((o) => `  if (${o}) n++;`).join("\n")}\n  return n === 1 || rt.fail(n ? "matches more than one alternative (oneOf)" : "matches no alternative");\n`;
  }
}

/** Field statements preceded by the `x` local they use, then the final statement. */
function withLocals(statements: readonly string[], tail: string): string {
  return [...(statements.length ? ["  let x: any;"] : []), ...statements, tail].join("\n") + "\n";
}

/** Emits the `validate.ts` module of one surface. */
export function emitValidators(ir: SchemaIR): string {
  return new ValidatorWriter(ir).emit();
}
