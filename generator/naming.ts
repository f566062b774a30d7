/**
 * Names for union variants. Titled branches are named `<Def><Title>`; untitled
 * tagged variants take their name from the reviewed table
 * `schema/variant-names.json`, so a new variant in a new schema fails
 * generation until someone names it there.
 */
import { readFileSync } from "node:fs";
import { isPlainObject } from "./load.js";

/** File name of the reviewed naming table inside the schema directory. */
export const VARIANT_NAMES_FILE = "variant-names.json";

/** Lookup in the reviewed naming table. */
export interface VariantNames {
  /** The reviewed name of variant `tag` of `def`, or the result of `missing()`. */
  lookup(def: string, tag: string, missing: () => never): string;
  /** The error text for a variant the table does not name. */
  missingMessage(def: string, tag: string): string;
}

/** Reads the naming table: `{ "<Def>": { "<tag>": "<TypeName>" } }`. */
export function loadVariantNames(path: string): VariantNames {
  const table: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!isPlainObject(table)) throw new Error(`${path}: the naming table must be a JSON object`);
  return {
    lookup(def, tag, missing) {
      const entry = Object.hasOwn(table, def) ? table[def] : undefined;
      const name = isPlainObject(entry) && Object.hasOwn(entry, tag) ? entry[tag] : undefined;
      return typeof name === "string" ? name : missing();
    },
    missingMessage(def, tag) {
      return `untitled variant "${tag}" of ${def} has no name: add "${def}": { "${tag}": "<TypeName>" } to schema/${VARIANT_NAMES_FILE} (the reviewed naming table)`;
    },
  };
}

/** `<Def><Title in PascalCase>`, e.g. `IdleStateUpdate` + `none` -> `IdleStateUpdateNone`. */
export function variantTypeName(def: string, title: string): string {
  return def + pascalCase(title);
}

/** `agent_thought_chunk` / `Parse error` / `other` -> `AgentThoughtChunk` / `ParseError` / `Other`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
}
