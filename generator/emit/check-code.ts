/**
 * The printer's view of checks.ts for the validator emitters: checks.ts
 * builds its expressions and hoisted functions as text, so this module is the
 * one place where that text becomes `Code` (and `Code` goes back into the
 * pool). When checks.ts moves onto the printer, these adapters shrink to
 * re-exports.
 */
import { name, verbatim, type Code } from "../code.js";
import type { FunctionPool, ScalarNode } from "./checks.js";
import { scalarTest, segment } from "./checks.js";

/** `scalarTest` as code: true when `x` fits the scalar node. */
export function scalarCheck(node: ScalarNode, x: Code): Code {
  return verbatim(scalarTest(node, x.text));
}

/** The literal `"/name"` of a property's JSON-pointer segment, as code. */
export function pointerSegment(property: string): Code {
  return verbatim(segment(property));
}

/**
 * A module item as the pool and `decodeModule` take it: text ending in a line
 * break (they join items with one more, which leaves a blank line between them).
 */
export function item(code: Code): string {
  return `${code.text}\n`;
}

/** Adds a complete declaration to the pool. */
export function declare(pool: FunctionPool, declaration: Code): void {
  pool.add(item(declaration));
}

/** `function <fresh name><rest>` in the pool (or an identical one's name), as code. */
export function hoist(pool: FunctionPool, prefix: string, rest: Code): Code {
  return name(pool.intern(prefix, item(rest)));
}

/** Every declaration of the pool, as one code item. */
export function pooled(pool: FunctionPool): Code {
  return verbatim(pool.text());
}
