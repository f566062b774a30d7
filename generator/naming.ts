/**
 * Names for union variants. Titled branches are named `<Def><Title>`; untitled
 * tagged variants take their name from the reviewed table
 * `schema/variant-names.json`, so a new variant in a new schema fails
 * generation until someone names it there.
 */
import { isIdentifier } from "./code.js";
import { SchemaError } from "./errors.js";
import { isPlainObject, isPresent, pointerSegment, readJsonFile } from "./load.js";

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
  if (!isPresent(path)) {
    throw new SchemaError(path, "", `no untitled-variant naming table here; add one (\`{}\` if the schema has no untitled variants) or pass --variant-names FILE`);
  }
  const table = readTable(path);
  return {
    lookup(def, tag, missing) {
      const entry = Object.hasOwn(table, def) ? table[def] : undefined;
      return entry !== undefined && Object.hasOwn(entry, tag) ? entry[tag]! : missing();
    },
    missingMessage(def, tag) {
      return `untitled variant "${tag}" of ${def} has no name: add "${def}": { "${tag}": "<TypeName>" } to ${path} (the reviewed naming table)`;
    },
  };
}

/**
 * The table's JSON object, shape-checked: every entry maps tags to type names
 * that are identifiers. A malformed table is a `SchemaError` naming the file
 * and the JSON pointer of the bad entry.
 */
function readTable(path: string): Readonly<Record<string, Readonly<Record<string, string>>>> {
  const table = readJsonFile(path, "the naming table is not valid JSON");
  if (!isPlainObject(table)) throw new SchemaError(path, "", "the naming table must be a JSON object");
  for (const [def, entry] of Object.entries(table)) {
    const at = `/${pointerSegment(def)}`;
    if (!isPlainObject(entry)) throw new SchemaError(path, at, `must map the untitled variants' tags of ${def} to type names ({ "<tag>": "<TypeName>" })`);
    for (const [tag, name] of Object.entries(entry)) {
      if (typeof name !== "string" || !isIdentifier(name)) {
        throw new SchemaError(path, `${at}/${pointerSegment(tag)}`, `the type name of variant "${tag}" of ${def} must be a TypeScript identifier, got ${JSON.stringify(name)}`);
      }
    }
  }
  return table as Record<string, Record<string, string>>;
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
