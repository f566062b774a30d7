/**
 * Compares one surface of two schemas: its types (added, removed, renamed,
 * changed) and its methods (`x-method`/`x-side`, S32).
 */
import { defsByName, type Def, type SchemaIR, type UnionOption } from "../ir.js";
import type { Finding } from "./findings.js";
import { methodTable, type MethodEntry } from "../methods.js";
import { BOTH_WAYS, flowsOf, mergeFlows } from "./flow.js";
import { compareNodes, compareStability } from "./nodes.js";
import { compareRoots } from "./root.js";
import { nodeShape } from "./shape.js";
import { report, within, type Site } from "./site.js";

/** A surface's IR with the options of its root message union. */
export interface SurfaceIR extends SchemaIR {
  readonly roots: readonly UnionOption[];
}

/** Every finding between two IRs of one surface, labelled `surface`. */
export function compareSurface(old: SurfaceIR, next: SurfaceIR, surface: string): Finding[] {
  const defs = { old: defsByName(old.defs), new: defsByName(next.defs) };
  const findings: Finding[] = [];
  const root: Site = { surface, location: "", flow: BOTH_WAYS, unstable: false, oldDropsMalformed: false, newDropsMalformed: false, defs, following: new Set(), findings };
  compareTypeSets(old.defs, next.defs, root);
  const oldFlows = flowsOf(old);
  const newFlows = flowsOf(next);
  for (const def of old.defs) {
    const match = defs.new.get(def.name);
    // S32: the JSON-RPC dispatch wrappers change exactly when methods do (method-* findings).
    if (!match || def.docsIgnore || match.docsIgnore) continue;
    const at = { ...within(root, def.name, def, match), flow: mergeFlows(oldFlows.get(def.name), newFlows.get(def.name)) };
    compareStability(def.doc, match.doc, at);
    compareNodes(def.node, match.node, at);
  }
  compareMethods(old, next, root);
  compareRoots(old.roots, next.roots, root);
  return findings;
}

/** `type-added`, `type-removed`, and `type-renamed` for a removed type whose exact shape reappears under one new name. */
function compareTypeSets(old: readonly Def[], next: readonly Def[], root: Site): void {
  const removed = old.filter((d) => !root.defs.new.has(d.name));
  const added = next.filter((d) => !root.defs.old.has(d.name));
  const addedByShape = new Map<string, Def[]>();
  for (const def of added) addedByShape.set(shapeKey(def), [...(addedByShape.get(shapeKey(def)) ?? []), def]);
  const renamedTo = new Set<Def>();
  for (const def of removed) {
    const candidates = isScalar(def) ? [] : (addedByShape.get(shapeKey(def)) ?? []);
    const at = within(root, def.name, def);
    if (candidates.length === 1 && !renamedTo.has(candidates[0]!)) {
      renamedTo.add(candidates[0]!);
      report(at, "type-renamed", "API", "error", `now \`${candidates[0]!.name}\` (same shape); code naming \`${def.name}\` no longer compiles`);
    } else {
      report(at, "type-removed", "API", "error", "the type is gone; code naming it no longer compiles");
    }
  }
  for (const def of added) {
    if (!renamedTo.has(def)) report(within(root, def.name, undefined, def), "type-added", "API", "info", "new type");
  }
}

/**
 * A bare string, number or boolean alias (`McpServerAcpId`, `CompactionId`):
 * its shape says nothing about its identity, so it is never taken for a rename.
 */
function isScalar(def: Def): boolean {
  return ["string", "integer", "number", "boolean", "const", "json", "null"].includes(def.node.kind);
}

function shapeKey(def: Def): string {
  return nodeShape(def.node);
}

/** A method and the types that carry it. */
interface MethodTypes {
  readonly side: string;
  readonly defs: readonly Def[];
}

/**
 * The method table (methods.ts) keyed `name (request)` or `name (notification)`:
 * one name can be both, handled by different sides (`mcp/message`). A
 * request's entry also holds its response type.
 */
function methodsOf(ir: SchemaIR, defs: ReadonlyMap<string, Def>): Map<string, MethodTypes> {
  const typesOf = (m: MethodEntry): Def[] => [m.params, m.result].flatMap((name) => (name === undefined ? [] : (defs.get(name) ?? [])));
  return new Map(methodTable(ir, ir.file).map((m) => [`${m.method} (${m.kind})`, { side: m.side, defs: typesOf(m) }]));
}

/** `method-added`, `method-removed`, `method-side-changed`. */
function compareMethods(old: SchemaIR, next: SchemaIR, root: Site): void {
  const oldMethods = methodsOf(old, root.defs.old);
  const newMethods = methodsOf(next, root.defs.new);
  const at = (method: string, entry: MethodTypes): Site => ({
    ...root,
    location: `method ${method}`,
    unstable: entry.defs.some((d) => d.doc.experimental),
  });
  for (const [method, entry] of oldMethods) {
    const match = newMethods.get(method);
    if (!match) {
      report(at(method, entry), "method-removed", "WIRE", "error", `OLD callers may still call it; NEW ${entry.side} handlers answer "method not found"`);
      report(at(method, entry), "method-removed", "API", "error", "the method and its types are gone from the method tables");
    } else if (match.side !== entry.side) {
      report(at(method, entry), "method-side-changed", "WIRE", "error", `handled by the ${match.side} side instead of the ${entry.side} side`);
      report(at(method, entry), "method-side-changed", "API", "error", `moved from the ${entry.side} method table to the ${match.side} one`);
    }
  }
  for (const [method, entry] of newMethods) {
    if (oldMethods.has(method)) continue;
    report(at(method, entry), "method-added", "WIRE", "info", `new method handled by the ${entry.side} side; OLD peers do not offer it`);
    report(at(method, entry), "method-added", "API", "info", "new method");
  }
}
