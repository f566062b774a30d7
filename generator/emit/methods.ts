/**
 * emitMethods: the method table -> `methods.ts` of one surface: per handling
 * side, an interface mapping each request method to its params and result
 * types and each notification to its params type, plus the same table as data
 * for dispatching to `parse`/`validate` by name (S32). The interfaces are
 * named after the side that handles the methods (`AgentHandledRequests`); the
 * earlier names (`AgentRequests`) remain as deprecated aliases for one release.
 */
import { block, code, doc, GeneratedFile, join, key, name, wrapped, type Code } from "../code.js";
import type { MethodEntry } from "../methods.js";
import type { SurfaceModel } from "../model.js";
import { pascalCase } from "../naming.js";

/** Emits the `methods.ts` module of one surface. */
export function emitMethods(model: SurfaceModel): string {
  const f = new GeneratedFile();
  const types = f.importAll("./types.js", "T", { type: true });
  const ref = (def: string | undefined): Code => typeRef(types, def);
  for (const side of [...new Set(model.methods.map((m) => m.side))]) {
    const requests = model.methods.filter((m) => m.side === side && m.kind === "request");
    const notifications = model.methods.filter((m) => m.side === side && m.kind === "notification");
    if (requests.length) f.print(...methodInterface(side, "request", requests.map((m) => code`${key(m.method)}: { params: ${ref(m.params)}; result: ${ref(m.result)} };`)));
    if (notifications.length) f.print(...methodInterface(side, "notification", notifications.map((m) => code`${key(m.method)}: ${ref(m.params)};`)));
  }
  f.print(dataTable(model.methods));
  return f.toString();
}

/** The name of the interface of the methods of one kind a side handles: `AgentHandledRequests`, `ClientHandledNotifications`. */
export function handledInterfaceName(side: string, kind: MethodEntry["kind"]): Code {
  return name(`${pascalCase(side)}Handled${kind === "request" ? "Requests" : "Notifications"}`);
}

/** The interface of one kind of method a side handles, and its deprecated earlier name. */
function methodInterface(side: string, kind: MethodEntry["kind"], members: readonly Code[]): Code[] {
  const what = kind === "request" ? "Requests" : "Notifications";
  const shape = kind === "request" ? "params and result types" : "params type";
  const interfaceName = handledInterfaceName(side, kind);
  return [
    code`${doc([`${what} handled by the ${side} side: method -> ${shape} (\`x-side: ${side}\`).`])}${block(code`export interface ${interfaceName}`, members)}`,
    code`${doc([`@deprecated Renamed to \`${interfaceName.text}\` (named after the side that handles the methods); this alias goes in the next release.`])}export type ${name(`${pascalCase(side)}${what}`)} = ${interfaceName};`,
  ];
}

/** A def's type in the namespace `types`, or `unknown` when the schema names no type for that role. */
export function typeRef(types: Code, def: string | undefined): Code {
  return def === undefined ? code`unknown` : code`${types}.${name(def)}`;
}

function dataTable(table: readonly MethodEntry[]): Code {
  const rows = table.map((m) => {
    const fields = [code`method: ${m.method}`, code`side: ${m.side}`, code`kind: ${m.kind}`];
    if (m.params !== undefined) fields.push(code`params: ${m.params}`);
    if (m.result !== undefined) fields.push(code`result: ${m.result}`);
    return code`{ ${join(fields, code`, `)} },`;
  });
  const comment = doc([
    "Every method of this surface as data, for dispatch: `parse[entry.params]` decodes its params.",
    "`side` is the side that handles the method (`x-side`, S32).",
  ]);
  return code`${comment}${wrapped(code`export const methods = [`, rows, code`] as const;`)}`;
}
