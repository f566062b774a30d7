/**
 * What the check emitters share (validators, collectors, parsers, parse-owned):
 * the test expression of each scalar IR node, its failure message, JSON-pointer
 * segments, the pool of hoisted helpers named after what they check, the
 * layout of a decode module, and `DecodeWriter`, the skeleton of `parse.ts`
 * and `parse-owned.ts`.
 */
import type { SurfaceModel } from "../model.js";
import { block, chain, clause, code, doc, GeneratedFile, join, name, own, wrapped, type Code } from "../code.js";
import { INT_RANGES, type Def, type IntFormat, type Node, type SchemaIR } from "../ir.js";
import type { MethodDispatch } from "./envelopes.js";
import { pointerSegment } from "../load.js";
import { runtimeDir } from "./shared.js";

/** Nodes checked by one inline expression (no hoisted function). */
export type ScalarNode = Extract<Node, { kind: "null" | "boolean" | "string" | "integer" | "number" | "const" | "enum" }>;

export function isScalar(node: Node): node is ScalarNode {
  return ["null", "boolean", "string", "integer", "number", "const", "enum"].includes(node.kind);
}

/** A boolean expression that is true when `v` (a simple identifier) fits the scalar node. */
export function scalarTest(node: ScalarNode, v: Code): Code {
  switch (node.kind) {
    case "null":
      return code`${v} === null`;
    case "boolean":
      return code`typeof ${v} === "boolean"`;
    case "string": {
      const min = node.minLength ?? 0;
      const tests = [code`typeof ${v} === "string"`];
      // JSON Schema counts code points; a UTF-16 length of at least 1 is at least 1 code point.
      if (min === 1) tests.push(code`${v}.length >= 1`);
      else if (min > 1) tests.push(code`rt.codePoints(${v}) >= ${min}`);
      // `pattern` (older schemas only) is asserted like ajv does: ECMA-262 with the `u` flag.
      if (node.pattern !== undefined) tests.push(code`rt.matches(${v}, ${node.pattern})`);
      return all(tests);
    }
    case "integer":
      // S30: the width from `format` and explicit bounds are enforced as ranges.
      return all([code`Number.isInteger(${v})`, ...bound(v, node.minimum, "min"), ...bound(v, node.maximum, "max")]);
    case "number":
      return all([
        code`typeof ${v} === "number" && Number.isFinite(${v})`,
        ...(node.minimum !== undefined ? [code`${v} >= ${node.minimum}`] : []),
        ...(node.maximum !== undefined ? [code`${v} <= ${node.maximum}`] : []),
      ]);
    case "const":
      return code`${v} === ${node.value}`;
    case "enum":
      if (node.open) return node.base === "string" ? code`typeof ${v} === "string"` : integerTest(v, node.open.format);
      return code`(${join(node.members.map((m) => code`${v} === ${m.value}`), code` || `)})`;
  }
}

function all(tests: readonly Code[]): Code {
  return join(tests, code` && `);
}

function integerTest(x: Code, format: IntFormat | undefined): Code {
  if (format === undefined) return code`Number.isInteger(${x})`;
  const [min, max] = INT_RANGES[format];
  return all([code`Number.isInteger(${x})`, ...bound(x, min, "min"), ...bound(x, max, "max")]);
}

/**
 * A comparison against an integer bound (S30). JSON numbers arrive as doubles,
 * and `JSON.parse` rounds the text of a 64-bit bound (u64::MAX, i64::MAX) to
 * 2^64 / 2^63, so the bound is the double the exact bound rounds to, inclusive:
 * uint64 <= 2^64, int64 within +-2^63; 32-bit bounds are doubles and stay exact.
 */
function bound(x: Code, exact: bigint | undefined, side: "min" | "max"): Code[] {
  if (exact === undefined) return [];
  const rounded = Number(exact);
  const limit = BigInt(rounded) === exact ? exact : rounded;
  return [side === "min" ? code`${x} >= ${limit}` : code`${x} <= ${limit}`];
}

/** The failure message for a scalar node. */
export function expectation(node: ScalarNode): string {
  switch (node.kind) {
    case "null":
      return "expected null";
    case "boolean":
      return "expected a boolean";
    case "string":
      if (node.pattern !== undefined) return `expected a string matching ${node.pattern}`;
      return node.minLength ? `expected a string of at least ${node.minLength} characters` : "expected a string";
    case "integer":
      return `expected an integer${node.format ? ` (${node.format})` : ""}${rangeText(node.minimum, node.maximum)}`;
    case "number":
      return "expected a number";
    case "const":
      return `expected ${JSON.stringify(node.value)}`;
    case "enum":
      if (node.open) return node.base === "string" ? "expected a string" : "expected an integer";
      return `expected one of ${node.members.map((m) => JSON.stringify(m.value)).join(", ")}`;
  }
}

function rangeText(min: bigint | undefined, max: bigint | undefined): string {
  if (min === undefined && max === undefined) return "";
  return ` in [${min ?? "-inf"}, ${max ?? "inf"}]`;
}

/** The literal `"/name"` of a property's JSON-pointer segment. */
export function segment(property: string): Code {
  return code`${`/${pointerSegment(property)}`}`;
}

/**
 * Hoisted helper functions of one module. A helper is named after what it
 * checks: its prefix and the naming path (`within`) where it was first needed,
 * `p_ToolCallUpdate_content`; a name already taken gets a `_2`, `_3` suffix.
 * Identical helpers are declared once (every `_meta` shares one decoder).
 */
export class FunctionPool {
  private readonly declarations: Code[] = [];
  private readonly byText = new Map<string, Code>();
  /** Every name in use: a fixed name maps to its declaration (`""` while only reserved). */
  private readonly taken = new Map<string, string>();
  /** Names `intern` made up; a fixed name may not take one. */
  private readonly hoisted = new Set<string>();
  private readonly path: string[] = [];

  /** Runs `build` with `step` (a type or property name) appended to the naming path. */
  within<T>(step: string, build: () => T): T {
    this.path.push(step);
    try {
      return build();
    } finally {
      this.path.pop();
    }
  }

  /** Runs `build` with the naming path `[root]` (a named variant starts its own path). */
  rooted<T>(root: string, build: () => T): T {
    const outer = this.path.splice(0);
    try {
      return this.within(root, build);
    } finally {
      this.path.push(...outer);
    }
  }

  /** Claims `names` (the functions of every def) so that no hoisted helper takes one of them; a name already in use stays as it is. */
  reserve(names: readonly string[]): void {
    for (const n of names) if (!this.taken.has(n)) this.taken.set(n, "");
  }

  /** Adds a declaration under a fixed name; the same name twice must be the same declaration. */
  define(fixed: string, declaration: Code): Code {
    const text = declaration.text;
    const known = this.taken.get(fixed);
    if (known === text) return name(fixed);
    if (known || this.hoisted.has(fixed)) throw new Error(`two different helpers named ${fixed}`);
    this.taken.set(fixed, text);
    this.declarations.push(declaration);
    return name(fixed);
  }

  /** Adds a complete declaration that declares no pooled name (a module variable). */
  add(declaration: Code): void {
    this.declarations.push(declaration);
  }

  /** Declares `function <name><rest>` under a name made of `prefix` and the naming path, or returns an identical helper's. */
  intern(prefix: string, rest: Code): Code {
    return this.declare(prefix, rest.text, (fresh) => code`function ${fresh}${rest}`);
  }

  /** A module-level `const` holding `expression` (evaluated once, shared by identical uses). */
  internConst(prefix: string, expression: Code): Code {
    return this.declare(prefix, expression.text, (fresh) => code`const ${fresh} = ${expression};`);
  }

  private declare(prefix: string, text: string, declaration: (fresh: Code) => Code): Code {
    const key = prefix + text;
    const known = this.byText.get(key);
    if (known !== undefined) return known;
    const fresh = name(this.freshName(prefix));
    this.byText.set(key, fresh);
    this.declarations.push(declaration(fresh));
    return fresh;
  }

  private freshName(prefix: string): string {
    const base = prefix + (this.path.length ? this.path.map((step) => step.replace(/[^A-Za-z0-9_$]/g, "_")).join("_") : "helper");
    let fresh = base;
    for (let n = 2; this.taken.has(fresh); n++) fresh = `${base}_${n}`;
    this.taken.set(fresh, "");
    this.hoisted.add(fresh);
    return fresh;
  }

  /** Every declaration, in the order added. */
  all(): readonly Code[] {
    return this.declarations;
  }
}

/** What a decode module holds besides the shared imports. */
export interface DecodeModule {
  readonly doc: readonly string[];
  readonly pool: FunctionPool;
  /** One exported wrapper per def, named `<prefix>_X`. */
  readonly wrappers: readonly Code[];
  readonly prefix: string;
  /** Further wrapper names (`<prefix>_<name>`), exported as `<name>` after the defs. */
  readonly extra?: readonly string[];
  /** Namespace imports besides the types and the decode runtime: `[alias, module]`. */
  readonly imports?: readonly (readonly [string, string])[];
}

/**
 * The layout shared by `parse.ts`, `validate.ts` and `parse-owned.ts`: module doc,
 * imports of the types and the decode runtime, the pooled helpers, one exported
 * wrapper per def (`<prefix>_X`) and the export list that names each wrapper `X`.
 */
export function decodeModule(ir: SchemaIR, module: DecodeModule): string {
  const runtime = runtimeDir(ir);
  const f = new GeneratedFile(doc([...module.doc, "@module"]));
  f.importAll("./types.js", "T", { type: true });
  f.import(`${runtime}/result.js`, "Result", { type: true });
  f.importAll(`${runtime}/decode.js`, "rt");
  for (const [alias, from] of module.imports ?? []) f.importAll(from, alias);
  const names = [...ir.defs.map((d) => d.name), ...(module.extra ?? [])];
  f.print(...module.pool.all(), ...module.wrappers);
  f.print(wrapped(code`export {`, names.map((n) => code`${name(`${module.prefix}_${n}`)} as ${name(n)},`), code`};`));
  return f.toString();
}

/** The module variable holding the method a `XFor` caller asked (undefined otherwise). */
const ASKED = name("askedMethod");

/** How a decode module is laid out (see `DecodeModule`). */
export interface DecodeLayout {
  readonly doc: readonly string[];
  readonly prefix: string;
  readonly imports?: readonly (readonly [string, string])[];
  /** Module-wide entry points (`entries()`), exported after the defs' wrappers under these names. */
  readonly entries?: readonly string[];
}

/**
 * The writer skeleton of `parse.ts` and `parse-owned.ts`: the helper pool, the
 * defs by name, each def's functions and exported wrapper, and the method
 * dispatch of JSON-RPC envelopes (envelopes.ts). A response names no method,
 * so its decoding reads the method an `XFor` caller asked; such defs get an
 * `XFor` wrapper.
 */
export abstract class DecodeWriter {
  protected readonly pool = new FunctionPool();
  protected readonly defs: ReadonlyMap<string, Def>;
  private readonly asking = new Set<string>();
  private current: Def | undefined;

  protected readonly ir: SchemaIR;

  constructor(
    model: SurfaceModel,
    private readonly layout: DecodeLayout,
  ) {
    this.ir = model.ir;
    this.defs = model.defsByName;
  }

  /** `node` with references followed to the node they name. */
  protected resolve(node: Node): Node {
    return node.kind === "ref" ? this.resolve(this.defs.get(node.name)!.node) : node;
  }

  /** Whether one alternative of `node` is any JSON value (an untyped value, S29: the union keeps it whole). */
  protected acceptsAnyJson(node: Extract<Node, { kind: "union" }>): boolean {
    return node.options.some((o) => this.resolve(o.node).kind === "json");
  }

  /** Names of a def's own functions, reserved before any helper is named. */
  protected abstract ownNames(def: Def): readonly string[];
  /** Declares a def's own functions in the pool. */
  protected abstract definition(def: Def): void;
  /** The exported wrapper of a def; `asking` when it also gets an `XFor` wrapper. */
  protected abstract wrapper(def: Def, asking: boolean): Code;
  /** The exported `XFor(method, value)` wrapper of an asking def. */
  protected abstract askingWrapper(def: Def): Code;

  /** Module-wide exported functions, named by the layout's `entries`. */
  protected entries(): Code[] {
    return [];
  }

  /** The module's text. */
  emit(): string {
    this.pool.reserve(this.ir.defs.flatMap((d) => this.ownNames(d)));
    const wrappers: Code[] = [];
    for (const def of this.ir.defs) {
      this.current = def;
      this.pool.rooted(def.name, () => this.definition(def));
      const asking = this.asking.has(def.name);
      wrappers.push(this.wrapper(def, asking));
      if (asking) wrappers.push(this.askingWrapper(def));
    }
    if (this.asking.size) this.pool.add(code`let ${ASKED}: string | undefined;`);
    const extra = [...this.asking].map((n) => `${n}For`);
    for (const n of extra) if (this.defs.has(n)) throw new Error(`${n} would be both a $defs type and the method-aware decoder of ${n.slice(0, -3)}`);
    const entries = this.layout.entries ?? [];
    for (const n of entries) if (this.defs.has(n)) throw new Error(`${n} would be both a $defs type and an entry point`);
    return decodeModule(this.ir, { ...this.layout, pool: this.pool, wrappers: [...wrappers, ...this.entries()], extra: [...extra, ...entries] });
  }

  /**
   * A helper `(method, v)` switching on the method: `caseOf(def)` for each
   * method of `dispatch`, `other` for the rest; returns its name.
   */
  protected methodSwitch(prefix: string, returns: Code, dispatch: MethodDispatch, caseOf: (def: string) => Code, other: Code): Code {
    const cases = dispatch.methods.map(([method, def]) => clause(code`case ${method}:`, [code`return ${caseOf(def)};`]));
    const body = block(code`switch (method)`, [...cases, clause(code`default:`, [code`return ${other};`])]);
    return this.pool.intern(prefix, block(code`(method: unknown, v: any): ${returns}`, [body]));
  }

  /**
   * The method an envelope's payload is decoded by: its own `method` field
   * when it has one, else (a response) the asked method, and the current def
   * gets an `XFor` wrapper.
   */
  protected methodOf(hasMethod: boolean): Code {
    if (hasMethod) return own(name("v"), "method");
    this.asking.add(this.current!.name);
    return ASKED;
  }

  /** Statements running `statement` while `askedMethod` holds the `method` parameter. */
  protected whileAsked(statement: Code): Code[] {
    return [code`${ASKED} = method;`, chain([[code`try`, [statement]], [code`finally`, [code`${ASKED} = undefined;`]]])];
  }
}
