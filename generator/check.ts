/**
 * Stage 4 of the pipeline: the IR must make sense as TypeScript before any
 * emitter runs. Every exported name must be a valid, unique identifier.
 */
import { isIdentifier } from "./code.js";
import type { Node, SchemaIR } from "./ir.js";
import { SchemaError } from "./load.js";

/** Throws a `SchemaError` naming the def for the first naming problem found. */
export function checkIR(ir: SchemaIR, file: string): void {
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
  for (const def of ir.defs) claim(def.name, def.pointer, "def name");
  for (const def of ir.defs) {
    for (const name of variantNames(def.node)) claim(name, def.pointer, "variant type name");
  }
}

/** Names of the exported variant types found anywhere inside a node. */
function variantNames(node: Node): string[] {
  switch (node.kind) {
    case "nullable":
      return variantNames(node.inner);
    case "array":
      return variantNames(node.items);
    case "record":
      return variantNames(node.values);
    case "object":
      return [...node.fields.flatMap((f) => variantNames(f.node)), ...(node.mixin ? variantNames(node.mixin) : [])];
    case "tagged":
      return [
        ...node.variants.flatMap((v) => [v.name, ...v.fields.flatMap((f) => variantNames(f.node)), ...(v.payload ? variantNames(v.payload) : [])]),
        ...(node.other ? [node.other.name] : []),
        ...(node.absent ? [node.absent.name] : []),
        ...(node.untagged ?? []).flatMap((o) => variantNames(o.node)),
      ];
    case "union":
      return node.options.flatMap((o) => variantNames(o.node));
    default:
      return [];
  }
}
