/**
 * emitMethods: IR -> `methods.ts` of one surface: per handling side, an
 * interface mapping each request method to its params and result types and
 * each notification to its params type, plus the same table as data for
 * dispatching to `parse`/`validate` by name (S32). The interfaces are named
 * after the side that handles the methods (`AgentHandledRequests`); the
 * earlier names (`AgentRequests`) remain as deprecated aliases for one release.
 */
import { ident, jsDoc, literal, propertyKey } from "../code.js";
import type { SchemaIR } from "../ir.js";
import { methodTable, type MethodEntry } from "../methods.js";
import { pascalCase } from "../naming.js";

/** Emits the `methods.ts` module of one surface. */
export function emitMethods(ir: SchemaIR): string {
  const table = methodTable(ir, `schema/${ir.file}`);
  const sides = [...new Set(table.map((m) => m.side))];
  const parts = [`import type * as T from "./types.js";\n`];
  for (const side of sides) {
    const requests = table.filter((m) => m.side === side && m.kind === "request");
    const notifications = table.filter((m) => m.side === side && m.kind === "notification");
    if (requests.length) parts.push(requestInterface(side, requests));
    if (notifications.length) parts.push(notificationInterface(side, notifications));
  }
  parts.push(dataTable(table));
  return parts.join("\n");
}

/** The name of the interface of the methods of one kind a side handles: `AgentHandledRequests`, `ClientHandledNotifications`. */
export function handledInterfaceName(side: string, kind: MethodEntry["kind"]): string {
  return ident(`${pascalCase(side)}Handled${kind === "request" ? "Requests" : "Notifications"}`);
}

function requestInterface(side: string, entries: readonly MethodEntry[]): string {
  const doc = jsDoc([`Requests handled by the ${side} side: method -> params and result types (\`x-side: ${side}\`).`]);
  const lines = entries.map((m) => `  ${propertyKey(m.method)}: { params: ${typeRef(m.params)}; result: ${typeRef(m.result)} };`);
  const name = handledInterfaceName(side, "request");
  return `${doc}export interface ${name} {\n${lines.join("\n")}\n}\n${deprecatedAlias(`${pascalCase(side)}Requests`, name)}`;
}

function notificationInterface(side: string, entries: readonly MethodEntry[]): string {
  const doc = jsDoc([`Notifications handled by the ${side} side: method -> params type (\`x-side: ${side}\`).`]);
  const lines = entries.map((m) => `  ${propertyKey(m.method)}: ${typeRef(m.params)};`);
  const name = handledInterfaceName(side, "notification");
  return `${doc}export interface ${name} {\n${lines.join("\n")}\n}\n${deprecatedAlias(`${pascalCase(side)}Notifications`, name)}`;
}

/** The earlier name of a method interface, kept for one release. */
function deprecatedAlias(oldName: string, name: string): string {
  return `${jsDoc([`@deprecated Renamed to \`${name}\` (named after the side that handles the methods); this alias goes in the next release.`])}export type ${ident(oldName)} = ${name};\n`;
}

/** A def's type, or `unknown` when the schema names no type for that role. */
export function typeRef(name: string | undefined): string {
  return name === undefined ? "unknown" : `T.${ident(name)}`;
}

function dataTable(table: readonly MethodEntry[]): string {
  const doc = jsDoc([
    "Every method of this surface as data, for dispatch: `parse[entry.params]` decodes its params.",
    "`side` is the side that handles the method (`x-side`, S32).",
  ]);
  const rows = table.map((m) => {
    const fields = [`method: ${literal(m.method)}`, `side: ${literal(m.side)}`, `kind: ${literal(m.kind)}`];
    if (m.params !== undefined) fields.push(`params: ${literal(m.params)}`);
    if (m.result !== undefined) fields.push(`result: ${literal(m.result)}`);
    return `  { ${fields.join(", ")} },`;
  });
  return `${doc}export const methods = [\n${rows.join("\n")}\n] as const;\n`;
}
