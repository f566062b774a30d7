/**
 * The root of a schema file: the union of every JSON-RPC message a peer may
 * send (`Agent`, `Client`, `ProtocolLevel`, 2.0.0's v2 batches, v1/unstable's
 * `Proxy` from 2.4.0). It is no `$defs` entry and no exported type, so it is
 * compared on the wire only: a kind of message removed is a break for peers
 * that still send it; one added is information, like a new method (its
 * methods are reported as `method-added`).
 */
import type { Def, UnionOption } from "../ir.js";
import { isPlainObject, type LoadedSchema } from "../load.js";
import { typeNameFor } from "../naming.js";
import { BOTH_WAYS } from "./flow.js";
import { compareNodes } from "./nodes.js";
import { report, whenNewReadersReject, within, type Site } from "./site.js";

/** The `$defs` key under which the root union is recognised next to the real defs. */
export const ROOT_DEF = "(JSON-RPC message)";

/** The schema with its root union added as the def `ROOT_DEF`; the schema itself when the root has no union. */
export function withRootDef(schema: LoadedSchema): LoadedSchema {
  const key = ["anyOf", "oneOf"].find((k) => Array.isArray(schema.root[k]));
  if (!key) return schema;
  const union = { [key]: withoutDocsIgnore(schema.root[key]) };
  return { ...schema, defs: new Map([...schema.defs, [ROOT_DEF, union]]) };
}

/**
 * The root's options carry `x-docs-ignore` (S32), which the recogniser only
 * accepts on a def; it changes no accepted value. (Schema text, not wire
 * data: its depth is that of the published schema.)
 */
/** The option's schema title: its variant name without the root's type-name prefix. */
function titleOf(option: UnionOption): string {
  const prefix = typeNameFor(ROOT_DEF);
  return option.name.startsWith(prefix) ? option.name.slice(prefix.length) : option.name;
}

function withoutDocsIgnore(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDocsIgnore);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "x-docs-ignore").map(([key, v]) => [key, withoutDocsIgnore(v)]));
}

/** The options of the recognised root union (none when the schema has no root union). */
export function rootOptions(root: Def | undefined): readonly UnionOption[] {
  return root?.node.kind === "union" ? root.node.options : [];
}

/** Compares the root unions' options by title; findings go to `site.findings`, WIRE only. */
export function compareRoots(old: readonly UnionOption[], next: readonly UnionOption[], site: Site): void {
  const findings: typeof site.findings = [];
  const at = (option: UnionOption): Site => ({ ...within(site, `${ROOT_DEF}[${titleOf(option)}]`), flow: BOTH_WAYS, findings });
  const newByName = new Map(next.map((o) => [o.name, o]));
  const oldNames = new Set(old.map((o) => o.name));
  for (const option of old) {
    const match = newByName.get(option.name);
    if (match) compareNodes(option.node, match.node, at(option));
    else report(at(option), "variant-removed", "WIRE", whenNewReadersReject(at(option)), "OLD peers may still send this kind of message; NEW peers reject it");
  }
  for (const option of next) {
    if (!oldNames.has(option.name)) {
      report(at(option), "variant-added", "WIRE", "info", "a new kind of message; OLD peers do not know it, as they do not know a new method (see its method-added findings)");
    }
  }
  site.findings.push(...findings.filter((f) => f.category === "WIRE"));
}
