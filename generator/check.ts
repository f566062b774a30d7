/**
 * Stage 4 of the pipeline: the IR must make sense as TypeScript before any
 * emitter runs. Every exported name must be a valid, unique identifier, and
 * no type may be defined only in terms of itself.
 */
import { isIdentifier } from "./code.js";
import { childNodes, defsByName, type Def, type Node, type SchemaIR } from "./ir.js";
import { SchemaError } from "./load.js";

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
  const own =
    node.kind === "tagged"
      ? [...node.variants.map((v) => v.name), ...(node.other ? [node.other.name] : []), ...(node.absent ? [node.absent.name] : [])]
      : [];
  return [...own, ...childNodes(node).flatMap(variantNames)];
}

/**
 * A `$ref` cycle that never passes through an object property, array item or
 * record value (`A -> B -> A`, or `A = B | null`, `B = A`) describes an
 * infinite value: no JSON instance can be checked against it and TypeScript
 * rejects the alias. Cycles through a property are ordinary recursive types.
 */
function checkAliasCycles(ir: SchemaIR, file: string): void {
  const byName = defsByName(ir.defs);
  const done = new Set<string>();
  const visit = (def: Def, path: readonly string[]): void => {
    if (done.has(def.name)) return;
    const start = path.indexOf(def.name);
    if (start !== -1) {
      const cycle = [...path.slice(start), def.name].join(" -> ");
      throw new SchemaError(file, def.pointer, `$ref cycle ${cycle} with no object in between: the type would be infinite`);
    }
    for (const target of unguardedRefs(def.node)) {
      const next = byName.get(target);
      if (next) visit(next, [...path, def.name]);
    }
    done.add(def.name);
  };
  for (const def of ir.defs) visit(def, []);
}

/** Defs a node refers to without an object property, array item or record value in between. */
function unguardedRefs(node: Node): string[] {
  switch (node.kind) {
    case "ref":
      return [node.name];
    case "nullable":
      return unguardedRefs(node.inner);
    case "object":
      return node.mixin ? unguardedRefs(node.mixin) : [];
    case "tagged":
      return [
        ...node.variants.flatMap((v) => (v.payload ? unguardedRefs(v.payload) : [])),
        ...(node.other?.mixin ? unguardedRefs(node.other.mixin) : []),
        ...(node.untagged ?? []).flatMap((o) => unguardedRefs(o.node)),
      ];
    case "union":
      return node.options.flatMap((o) => unguardedRefs(o.node));
    default:
      return [];
  }
}
