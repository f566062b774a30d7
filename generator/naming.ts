/**
 * Names for union variants. Titled branches are named `<Def><Title>`; untitled
 * tagged variants take their name from the reviewed table
 * `schema/variant-names.json`, so a new variant in a new schema fails
 * generation until someone names it there.
 */
import { existsSync, readFileSync } from "node:fs";
import { isIdentifier } from "./code.js";
import { isPlainObject, SchemaError } from "./load.js";

/** File name of the reviewed naming table inside the schema directory. */
export const VARIANT_NAMES_FILE = "variant-names.json";

/** Lookup in the reviewed naming table. */
export interface VariantNames {
  /** The reviewed name of variant `tag` of `def`, or the result of `missing()`. */
  lookup(def: string, tag: string, missing: () => never): string;
  /** The error text for a variant the table does not name. */
  missingMessage(def: string, tag: string): string;
}

/**
 * Reads the naming table: `{ "<Def>": { "<tag>": "<TypeName>" } }`. A missing
 * or malformed table is a `SchemaError` naming the file.
 */
export function loadVariantNames(path: string): VariantNames {
  if (!existsSync(path)) {
    throw new SchemaError(path, "", `no untitled-variant naming table here; add one (\`{}\` if the schema has no untitled variants) or pass --variant-names FILE`);
  }
  const table = readTable(path);
  return {
    lookup(def, tag, missing) {
      const entry = Object.hasOwn(table, def) ? table[def] : undefined;
      const name = isPlainObject(entry) && Object.hasOwn(entry, tag) ? entry[tag] : undefined;
      return typeof name === "string" ? name : missing();
    },
    missingMessage(def, tag) {
      return `untitled variant "${tag}" of ${def} has no name: add "${def}": { "${tag}": "<TypeName>" } to ${path} (the reviewed naming table)`;
    },
  };
}

/** The table's JSON object; a `SchemaError` naming the file when it is not one. */
function readTable(path: string): Record<string, unknown> {
  let table: unknown;
  try {
    table = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SchemaError(path, "", `the naming table is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(table)) throw new SchemaError(path, "", "the naming table must be a JSON object");
  return table;
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

/**
 * The exported TypeScript name of a `$defs` key. ACP keys are PascalCase
 * identifiers and are used verbatim; a key that is not a usable identifier
 * (`foo-bar`, `1st`, a reserved word such as `string`) is mapped to PascalCase
 * words (`FooBar`, `_1st`, `String`). Collisions this creates are reported by
 * check.ts, naming both keys.
 */
export function typeNameFor(defKey: string): string {
  if (isIdentifier(defKey)) return defKey;
  const words = pascalCase(defKey);
  return isIdentifier(words) ? words : `_${words}`;
}
