/**
 * What `emitValidators` and `emitParsers` share: the test expression of each
 * scalar IR node, its failure message, JSON-pointer segments, and a pool of
 * hoisted helper functions with unique names.
 */
import { jsDoc, literal } from "../code.js";
import { INT_RANGES, type IntFormat, type Node, type SchemaIR } from "../ir.js";
import { pointerSegment } from "../load.js";
import { runtimeDir } from "./shared.js";

/** Nodes checked by one inline expression (no hoisted function). */
export type ScalarNode = Extract<Node, { kind: "null" | "boolean" | "string" | "integer" | "number" | "const" | "enum" }>;

export function isScalar(node: Node): node is ScalarNode {
  return ["null", "boolean", "string", "integer", "number", "const", "enum"].includes(node.kind);
}

/** A boolean expression that is true when `x` (a simple identifier) fits the scalar node. */
export function scalarTest(node: ScalarNode, x: string): string {
  switch (node.kind) {
    case "null":
      return `${x} === null`;
    case "boolean":
      return `typeof ${x} === "boolean"`;
    case "string": {
      const min = node.minLength ?? 0;
      const tests = [`typeof ${x} === "string"`];
      // JSON Schema counts code points; a UTF-16 length of at least 1 is at least 1 code point.
      if (min === 1) tests.push(`${x}.length >= 1`);
      else if (min > 1) tests.push(`rt.codePoints(${x}) >= ${min}`);
      // `pattern` (older schemas only) is asserted like ajv does: ECMA-262 with the `u` flag.
      if (node.pattern !== undefined) tests.push(`rt.matches(${x}, ${literal(node.pattern)})`);
      return tests.join(" && ");
    }
    case "integer":
      // S30: the width from `format` and explicit bounds are enforced as ranges.
      return [`Number.isInteger(${x})`, ...bound(x, node.minimum, "min"), ...bound(x, node.maximum, "max")].join(" && ");
    case "number":
      return [
        `typeof ${x} === "number" && Number.isFinite(${x})`,
        ...(node.minimum !== undefined ? [`${x} >= ${literal(node.minimum)}`] : []),
        ...(node.maximum !== undefined ? [`${x} <= ${literal(node.maximum)}`] : []),
      ].join(" && ");
    case "const":
      return `${x} === ${literal(node.value)}`;
    case "enum":
      if (node.open) return node.base === "string" ? `typeof ${x} === "string"` : integerTest(x, node.open.format);
      return `(${node.members.map((m) => `${x} === ${literal(m.value)}`).join(" || ")})`;
  }
}

function integerTest(x: string, format: IntFormat | undefined): string {
  if (format === undefined) return `Number.isInteger(${x})`;
  const [min, max] = INT_RANGES[format];
  return [`Number.isInteger(${x})`, ...bound(x, min, "min"), ...bound(x, max, "max")].join(" && ");
}

/**
 * A comparison against an integer bound (S30). JSON numbers arrive as doubles,
 * and `JSON.parse` rounds the text of a 64-bit bound (u64::MAX, i64::MAX) to
 * 2^64 / 2^63, so the bound is the double the exact bound rounds to, inclusive:
 * uint64 <= 2^64, int64 within +-2^63; 32-bit bounds are doubles and stay exact.
 */
function bound(x: string, exact: bigint | undefined, side: "min" | "max"): string[] {
  if (exact === undefined) return [];
  const rounded = Number(exact);
  const text = BigInt(rounded) === exact ? exact.toString() : String(rounded);
  return [side === "min" ? `${x} >= ${text}` : `${x} <= ${text}`];
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
export function segment(name: string): string {
  return literal(`/${pointerSegment(name)}`);
}

/** Hoisted helper functions of one module, each under a unique name. */
export class FunctionPool {
  private readonly bodies: string[] = [];
  private readonly byText = new Map<string, string>();
  private counter = 0;

  /** Adds a complete function declaration. */
  add(declaration: string): void {
    this.bodies.push(declaration);
  }

  /**
   * Declares `function <name><rest>` under a fresh `prefix + n` name, or
   * returns the name of an identical function declared before (every `_meta`
   * shares one decoder, for instance).
   */
  intern(prefix: string, rest: string): string {
    return this.declare(prefix, rest, (name) => `function ${name}${rest}`);
  }

  /** A module-level `const` holding `expression` (evaluated once, shared by identical uses). */
  internConst(prefix: string, expression: string): string {
    return this.declare(prefix, expression, (name) => `const ${name} = ${expression};\n`);
  }

  private declare(prefix: string, text: string, declaration: (name: string) => string): string {
    const key = prefix + text;
    const known = this.byText.get(key);
    if (known !== undefined) return known;
    const name = `${prefix}${this.counter++}`;
    this.byText.set(key, name);
    this.bodies.push(declaration(name));
    return name;
  }

  /** Every declaration, in the order added. */
  text(): string {
    return this.bodies.join("\n");
  }
}

/** What a decode module holds besides the shared imports. */
export interface DecodeModule {
  readonly doc: readonly string[];
  readonly pool: FunctionPool;
  /** One exported wrapper per def, named `<prefix>_X`. */
  readonly wrappers: readonly string[];
  readonly prefix: string;
  /** Further wrapper names (`<prefix>_<name>`), exported as `<name>` after the defs. */
  readonly extra?: readonly string[];
  /** Import statements besides the types and the decode runtime. */
  readonly imports?: readonly string[];
}

/**
 * The layout shared by `parse.ts`, `validate.ts` and `parse-json.ts`: module doc,
 * imports of the types and the decode runtime, the pooled helpers, one exported
 * wrapper per def (`<prefix>_X`) and the export list that names each wrapper `X`.
 */
export function decodeModule(ir: SchemaIR, module: DecodeModule): string {
  const runtime = runtimeDir(ir);
  const names = [...ir.defs.map((d) => d.name), ...(module.extra ?? [])];
  return [
    jsDoc([...module.doc, "@module"]),
    `import type * as T from "./types.js";`,
    `import type { Result } from ${literal(`${runtime}/result.js`)};`,
    `import * as rt from ${literal(`${runtime}/decode.js`)};`,
    ...(module.imports ?? []),
    "",
    module.pool.text(),
    ...module.wrappers,
    `export {\n${names.map((name) => `  ${module.prefix}_${name} as ${name},`).join("\n")}\n};\n`,
  ].join("\n");
}
