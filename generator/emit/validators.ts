/**
 * emitValidators and emitFirstIssueValidators: IR -> `validate.ts` and
 * `validate-first.ts` of one surface. Each `validate.X` accepts exactly what
 * JSON Schema 2020-12 accepts for X (S31): integer formats enforced as ranges
 * (S30), `x-*` keywords and other formats ignored, `not` honoured by
 * dispatching on the tag (a known tag with a bad payload is invalid, never
 * "other"). Straight-line code, one function per IR node.
 *
 * Two modules, so that a bundle keeps only what it calls: `validate-first.ts`
 * holds the fast checks, one exported per def (`true`, or `undefined` after
 * recording the first issue, which the decode runtime's `finish` reads), and
 * nothing else; `validate.ts` (the public `validate` namespace) wraps each in
 * `validate.X` and adds the all-issues collectors of `{ all: true }`
 * (validate-all.ts), which run only after the fast check said no. The
 * connection imports `validate-first.ts`, so a bundler drops every collector.
 */
import type { SurfaceModel } from "../model.js";
import { block, clause, code, doc, GeneratedFile, name, own, wrapped, type Code } from "../code.js";
import type { Def, Field, Node, ObjectNode, OtherVariant, SchemaIR, TaggedUnionNode, TaggedVariant, UnionNode, UnionOption } from "../ir.js";
import { decodeModule, expectation, FunctionPool, isScalar, scalarTest, segment } from "./checks.js";
import { runtimeDir } from "./shared.js";
import { collectorName, CollectorWriter } from "./validate-all.js";

/** The module of the first-issue checks, as validate.ts and connection.ts import it. */
export const FIRST_ISSUE_MODULE = "./validate-first.js";

const V = code`v`;
const X = code`x`;
const OBJECT_EXPECTED = code`if (!rt.isObject(v)) return rt.fail("expected an object", v);`;

/** The fast check function of a def or a variant: `v_X`. */
function checkName(type: string): Code {
  return name(`v_${type}`);
}

class FastCheckWriter {
  private readonly pool = new FunctionPool();

  constructor(private readonly ir: SchemaIR) {
    this.pool.reserve(ir.defs.map((d) => checkName(d.name).text));
  }

  emit(): string {
    for (const def of this.ir.defs) this.pool.within(def.name, () => this.declareCheck(def.name, this.body(def.node)));
    const f = new GeneratedFile(
      doc([
        "First-issue checks, one per `$defs` type: `X(value)` is `true` when `validate.X` accepts the value, else",
        "`undefined` after recording the first issue, which the decode runtime's `finish` turns into a `Result`",
        "(call it at once). `validate.ts` wraps these; code that needs no `{ all: true }` (the connection) imports",
        "this module and bundles none of the all-issues collectors. Not re-exported by the entry point.",
        "@module",
      ]),
    );
    f.importAll(`${runtimeDir(this.ir)}/decode.js`, "rt");
    f.print(...this.pool.all(), wrapped(code`export {`, this.ir.defs.map((def) => code`${checkName(def.name)} as ${name(def.name)},`), code`};`));
    return f.toString();
  }

  /** An expression: `true` when `x` fits `node`, `undefined` (after `fail`) otherwise. */
  private check(node: Node, x: Code): Code {
    if (isScalar(node)) return code`(${scalarTest(node, x)} || rt.fail(${expectation(node)}, ${x}))`;
    switch (node.kind) {
      case "ref":
        return code`${checkName(node.name)}(${x})`;
      case "json":
        return code`true`;
      case "nullable":
        if (isScalar(node.inner)) return code`(${x} === null || ${scalarTest(node.inner, x)} || rt.fail(${`${expectation(node.inner)} or null`}, ${x}))`;
        return code`(${x} === null || ${this.check(node.inner, x)})`;
      default:
        return code`${this.pool.intern("v_", block(code`(v: any): true | undefined`, this.body(node)))}(${x})`;
    }
  }

  /** The statements checking `v` against `node`. */
  private body(node: Node): Code[] {
    switch (node.kind) {
      case "object":
        return this.object(node);
      case "array": {
        // `rt.minItemsWaived`: sessionStateFromJSON takes back what the tolerant parser kept (it does not assert minItems).
        const min = node.minItems ? [code`if (v.length < ${node.minItems} && !rt.minItemsWaived) return rt.fail(${`expected at least ${node.minItems} item(s)`});`] : [];
        const loop = node.items.kind === "json" ? [] : [block(code`for (let i = 0; i < v.length; i++)`, [code`const x = v[i];`, code`if (!${this.check(node.items, X)}) return rt.atKey(i);`])];
        return [code`if (!Array.isArray(v)) return rt.fail("expected an array", v);`, ...min, ...loop, code`return true;`];
      }
      case "record": {
        const loop = node.values.kind === "json" ? [] : [block(code`for (const k of Object.keys(v))`, [code`const x = v[k];`, code`if (!${this.check(node.values, X)}) return rt.atKey(k);`])];
        return [OBJECT_EXPECTED, ...loop, code`return true;`];
      }
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node);
      default:
        return [code`return ${this.check(node, V)};`];
    }
  }

  private object(node: ObjectNode): Code[] {
    return [OBJECT_EXPECTED, ...withLocal(this.fields(node.fields)), code`return ${node.mixin ? this.check(node.mixin, V) : code`true`};`];
  }

  /** Checks of declared properties (`x-*` tolerance keywords are ignored: S31). */
  private fields(fields: readonly Field[]): Code[] {
    return fields.flatMap((f) => {
      const seg = segment(f.name);
      const presence = f.required ? [code`if (x === undefined) return rt.failAt(${seg}, "missing required property");`] : [];
      const test = f.node.kind === "json" ? [] : [code`if (${f.required ? code`` : code`x !== undefined && `}!${this.pool.within(f.name, () => this.check(f.node, X))}) return rt.at(${seg});`];
      return test.length || presence.length ? [code`x = ${own(V, f.name)};`, ...presence, ...test] : [];
    });
  }

  /** Dispatch on the tag; untagged branches are tried after (anyOf) or counted (oneOf). */
  private tagged(node: TaggedUnionNode): Code[] {
    const seg = segment(node.tag);
    const cases = node.variants.map((variant) => clause(code`case ${variant.tagValue}:`, [code`ok = ${this.variant(variant)}(v);`, code`break;`]));
    const otherTag = node.other ? code`${this.other(node.other)}(v)` : code`rt.failAt(${seg}, ${`unknown ${node.tag}; this union is closed`})`;
    const noTag = node.absent
      ? code`t === undefined || t === null || rt.failAt(${seg}, "expected a string or null")`
      : code`rt.failAt(${seg}, t === undefined ? "missing required property" : "expected a string")`;
    const dispatch = [
      OBJECT_EXPECTED,
      code`const t = ${own(V, node.tag)};`,
      code`let ok: true | undefined;`,
      block(code`switch (t)`, [...cases, clause(code`default:`, [code`ok = typeof t === "string" ? ${otherTag} : ${noTag};`])]),
    ];
    const untagged = (node.untagged ?? []).map((o) => this.option(o));
    if (untagged.length === 0) return [...dispatch, code`return ok;`];
    if (!node.exclusive) return [...dispatch, code`if (ok) return true;`, ...untagged.map((u) => code`if (${u}) return true;`), code`return rt.fail("matches no variant");`];
    return [
      ...dispatch,
      code`let n = ok ? 1 : 0;`,
      ...untagged.map((u) => code`if (${u}) n++;`),
      code`return n === 1 || rt.fail(n ? "matches more than one variant (oneOf)" : "matches no variant");`,
    ];
  }

  /** A variant's own fields and payload (the tag is already known to match). */
  private variant(variant: TaggedVariant): Code {
    this.pool.reserve([checkName(variant.name).text]);
    return this.pool.rooted(variant.name, () => {
      const tail = code`return ${variant.payload ? this.check(variant.payload, V) : code`true`};`;
      return this.declareCheck(variant.name, [...withLocal(this.fields(variant.fields)), tail]);
    });
  }

  /** The open branch (S27): any other string tag; declared and required properties still hold. */
  private other(other: OtherVariant): Code {
    const declared = new Set(other.fields.map((f) => f.name));
    const required = other.required
      .filter((r) => !declared.has(r))
      .map((r) => code`if (${own(V, r)} === undefined) return rt.failAt(${segment(r)}, "missing required property");`);
    this.pool.reserve([checkName(other.name).text]);
    return this.pool.rooted(other.name, () => {
      const tail = code`return ${other.mixin ? this.check(other.mixin, V) : code`true`};`;
      return this.declareCheck(other.name, [...withLocal([...required, ...this.fields(other.fields)]), tail]);
    });
  }

  /** Declares the fast check `v_<type>` with `body`; returns its name. */
  private declareCheck(type: string, body: readonly Code[]): Code {
    const fn = checkName(type);
    return this.pool.define(fn.text, block(code`function ${fn}(v: any): true | undefined`, body));
  }

  /** The check of one named alternative on `v` (its helpers named after it). */
  private option(option: UnionOption): Code {
    return this.pool.within(option.name, () => this.check(option.node, V));
  }

  private union(node: UnionNode): Code[] {
    const options = node.options.map((o) => this.option(o));
    if (!node.exclusive) {
      const tries = options.flatMap((o, i) => [code`if (${o}) return true;`, code`best = ${i ? code`rt.deeper(best)` : code`rt.failure()`};`]);
      return [code`let best: rt.Failure;`, ...tries, code`return rt.noAlternative(best, v);`];
    }
    return [
      code`let n = 0;`,
      ...options.map((o) => code`if (${o}) n++;`),
      code`return n === 1 || rt.fail(n ? "matches more than one alternative (oneOf)" : "matches no alternative");`,
    ];
  }
}

/** Field statements preceded by the `x` local they use (none when there are none). */
function withLocal(statements: readonly Code[]): Code[] {
  return statements.length ? [code`let x: any;`, ...statements] : [];
}

/** The public wrapper of a def: the fast check, then the first issue or, with `{ all: true }`, every issue its collector finds. */
function validateWrapper(def: Def): Code {
  const type = code`T.${name(def.name)}`;
  // The module doc says what every validator guarantees; one line per function keeps the .d.ts small.
  const comment = doc([`Strict check of \`${def.name}\` (JSON Schema 2020-12, S31); returns the input itself when valid.`]);
  return code`${comment}${block(code`function ${name(`validate_${def.name}`)}(value: unknown, options?: rt.ValidateOptions): Result<${type}>`, [
    code`if (first.${name(def.name)}(value)) return { ok: true, value: value as ${type} };`,
    code`return options?.all ? rt.allIssues(value, ${collectorName(def.name)}) : rt.finish(undefined);`,
  ])}`;
}

/** Emits the `validate-first.ts` module of one surface (not re-exported by the entry point). */
export function emitFirstIssueValidators(model: SurfaceModel): string {
  return new FastCheckWriter(model.ir).emit();
}

/** Emits the `validate.ts` module of one surface: the collectors and the public wrappers over `validate-first.ts`. */
export function emitValidators({ ir }: SurfaceModel): string {
  const pool = new FunctionPool();
  const collectors = new CollectorWriter(pool, ir.defs.map((def) => def.name));
  const wrappers = ir.defs.map((def) => {
    collectors.definition(def.name, def.node);
    return validateWrapper(def);
  });
  const moduleDoc = [
    "Strict validators, one per `$defs` type: each accepts exactly what JSON Schema 2020-12 accepts",
    "(S31), with integer formats enforced as ranges (S30), `x-*` keywords and other formats ignored.",
    "The first issue is reported; `validate.X(value, { all: true })` reports every issue, in document order.",
  ];
  const imports = [["first", FIRST_ISSUE_MODULE], ["collect", `${runtimeDir(ir)}/collect.js`]] as const;
  return decodeModule(ir, { doc: moduleDoc, pool, wrappers, prefix: "validate", imports });
}
