/**
 * Stage 4 of the pipeline: the IR must make sense as TypeScript before any
 * emitter runs. Every exported name must be a valid, unique identifier, and
 * no type may be defined only in terms of itself.
 */
import { isIdentifier } from "./code.js";
import { defsByName, findRefCycle, nodesWithin, type Node, type SchemaIR } from "./ir.js";
import { SchemaError } from "./errors.js";

/** Throws a `SchemaError` naming the def for the first naming problem or `$ref` cycle found. */
export function checkIR(ir: SchemaIR, file: string): void {
  checkNames(ir, file);
  checkAliasCycles(ir, file);
}

function checkNames(ir: SchemaIR, file: string): void {
  const owners = new Map<string, string>();
  const claim = (name: string, pointer: string, what: string) => {
    if (!isIdentifier(name)) {
      throw new SchemaError(file, pointer, `${what} "${name}" is not a valid TypeScript identifier (or is a reserved word)`);
    }
    const previous = owners.get(name);
    if (previous !== undefined) {
      throw new SchemaError(file, pointer, `${what} "${name}" collides with ${previous}; rename it in schema/variant-names.json or the schema`);
    }
    owners.set(name, `the type declared at ${pointer}`);
  };
  for (const def of ir.defs) claim(def.name, def.pointer, def.schemaName ? `def "${def.schemaName}", exported as` : "def name");
  for (const def of ir.defs) {
    for (const name of variantNames(def.node)) claim(name, def.pointer, "variant type name");
  }
}

/** Names of the exported variant types found anywhere inside a node. */
function variantNames(node: Node): string[] {
  return nodesWithin(node).flatMap((n) =>
    n.kind === "tagged" ? [...n.variants.map((v) => v.name), ...(n.other ? [n.other.name] : []), ...(n.absent ? [n.absent.name] : [])] : [],
  );
}

/**
 * A `$ref` cycle that never passes through an object property, array item or
 * record value (`A -> B -> A`, or `A = B | null`, `B = A`) describes an
 * infinite value: no JSON instance can be checked against it and TypeScript
 * rejects the alias. Cycles through a property are ordinary recursive types.
 */
function checkAliasCycles(ir: SchemaIR, file: string): void {
  const cycle = findRefCycle(ir.defs, unguardedChildren);
  if (!cycle) return;
  const pointer = defsByName(ir.defs).get(cycle[0]!)?.pointer ?? "";
  throw new SchemaError(file, pointer, `$ref cycle ${cycle.join(" -> ")} with no object in between: the type would be infinite`);
}

/** The nodes inside a node that are not an object property, array item or record value. */
function unguardedChildren(node: Node): Node[] {
  switch (node.kind) {
    case "nullable":
      return [node.inner];
    case "object":
      return node.mixin ? [node.mixin] : [];
    case "tagged":
      return [
        ...node.variants.flatMap((v) => (v.payload ? [v.payload] : [])),
        ...(node.other?.mixin ? [node.other.mixin] : []),
        ...(node.untagged ?? []).map((o) => o.node),
      ];
    case "union":
      return node.options.map((o) => o.node);
    default:
      return [];
  }
}
