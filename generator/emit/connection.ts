/**
 * emitConnection: the method table -> `connection.ts` of one surface: the
 * typed front of the shared JSON-RPC runtime (runtime/connection.ts).
 * `connectAgent` handles the methods whose `x-side` is `agent` and calls the
 * client's, `connectClient` the reverse, and `connectProxy` (where the surface
 * has proxy methods) handles agent and proxy methods and calls client and
 * proxy methods. Each side's table names the `parse` and `validate` function
 * of every params and result type, so a new method in the schema is a new
 * typed handler with no hand edit. Also `RequestError` with one static
 * constructor per `ErrorCode` member, `PROTOCOL_VERSION` and
 * `createSessionStore()`.
 */
import { ident, jsDoc, literal } from "../code.js";
import type { EnumNode, SchemaIR } from "../ir.js";
import { methodTable, type MethodEntry } from "../methods.js";
import { pascalCase } from "../naming.js";
import { handledInterfaceName, typeRef } from "./methods.js";
import { runtimeDir } from "./shared.js";

/** One end of a connection: the sides whose methods it handles and the sides whose methods it calls. */
interface End {
  readonly fn: string;
  readonly role: string;
  readonly handles: readonly string[];
  readonly calls: readonly string[];
  readonly peer: string;
}

const ENDS: readonly End[] = [
  { fn: "connectAgent", role: "Agent", handles: ["agent"], calls: ["client"], peer: "client" },
  { fn: "connectClient", role: "Client", handles: ["client"], calls: ["agent"], peer: "agent" },
  { fn: "connectProxy", role: "Proxy", handles: ["agent", "proxy"], calls: ["client", "proxy"], peer: "conductor" },
];

const CANCEL_METHOD = "$/cancel_request";
const SESSION_UPDATE = "session/update";

/** Emits the `connection.ts` module body of one surface. */
export function emitConnection(ir: SchemaIR): string {
  const table = methodTable(ir, `schema/${ir.file}`);
  const sides = new Set(table.map((m) => m.side));
  const ends = ENDS.filter((end) => [...end.handles, ...end.calls].every((side) => sides.has(side)));
  const usedSides = [...new Set(ends.flatMap((end) => [...end.handles, ...end.calls]))].sort();
  const cancel = table.find((m) => m.method === CANCEL_METHOD && m.kind === "notification");
  const sessionUpdate = table.find((m) => m.method === SESSION_UPDATE && m.side === "client" && m.kind === "notification");
  const runtime = runtimeDir(ir);
  return [
    imports(runtime, sessionUpdate !== undefined),
    protocolVersion(ir),
    requestErrorClass(errorCodes(ir)),
    ...usedSides.map((side) => sideTables(side, table)),
    cancelSpec(cancel),
    ...ends.map((end) => endFunctions(end, table)),
    sessionUpdate === undefined ? "" : sessionStoreFunction(sessionUpdate),
  ].join("\n");
}

function imports(runtime: string, withSessions: boolean): string {
  const lines = [
    `import * as rt from ${literal(`${runtime}/connection.js`)};`,
    ...(withSessions ? [`import { sessionStore, type SessionStore } from ${literal(`${runtime}/session-store.js`)};`] : []),
    `import type { Transport } from ${literal(`${runtime}/transport.js`)};`,
    `import type * as M from "./methods.js";`,
    `import * as parse from "./parse.js";`,
    ...(withSessions ? [`import { emptySessionState, reduceSession, type SessionState } from "./session.js";`] : []),
    `import type * as T from "./types.js";`,
    `import * as validate from "./validate.js";`,
    "",
    `export { inMemoryTransports, ndJsonStream } from ${literal(`${runtime}/transport.js`)};`,
    `export type { LineSink, NdJsonOptions, NodeReadable, NodeWritable, Transport, WebReadable, WebWritable } from ${literal(`${runtime}/transport.js`)};`,
    `export type { AbortSignalLike, ConnectOptions, HandlerContext, Handlers, NotificationHandler, Peer, RequestHandler, RequestOptions } from ${literal(`${runtime}/connection.js`)};`,
    ...(withSessions ? [`export type { SessionListener, SessionStore } from ${literal(`${runtime}/session-store.js`)};`] : []),
    "",
  ];
  return lines.join("\n");
}

/** The surface's protocol version: the major version its schema directory is named after (`v2/...` -> 2). */
function protocolVersion(ir: SchemaIR): string {
  const major = /^v(\d+)(\/|$)/.exec(ir.surface)?.[1];
  if (major === undefined) throw new Error(`cannot read a protocol version from surface ${ir.surface}`);
  const doc = jsDoc([`The ACP protocol version of this surface (\`${ir.surface}\`), to send in \`initialize\`.`]);
  return `${doc}export const PROTOCOL_VERSION = ${literal(Number(major))};\n`;
}

/** The members of the schema's `ErrorCode` enum, each with the name of its constructor. */
function errorCodes(ir: SchemaIR): { readonly name: string; readonly code: number; readonly title: string; readonly doc: string | undefined }[] {
  const def = ir.defs.find((d) => d.name === "ErrorCode");
  if (def === undefined || def.node.kind !== "enum") return [];
  const node: EnumNode = def.node;
  return node.members.flatMap((member) =>
    typeof member.value === "number" && member.title !== undefined
      ? [{ name: ident(camelCase(member.title)), code: member.value, title: member.title, doc: member.doc.text }]
      : [],
  );
}

function requestErrorClass(codes: ReturnType<typeof errorCodes>): string {
  const statics = codes.map((c) => {
    const doc = jsDoc([...(c.doc === undefined ? [] : [c.doc]), "", `Code ${c.code}; \`message\` defaults to ${JSON.stringify(c.title)}.`], "  ");
    return `${doc}  static ${c.name}(message: string = ${literal(c.title)}, data?: unknown): RequestError {\n    return new RequestError(${literal(c.code)}, message, data);\n  }`;
  });
  const doc = jsDoc([
    "A JSON-RPC error: what `request` rejects with, and what a handler throws to answer with a chosen error.",
    "`new RequestError(code, message, data?)`, or one static constructor per `ErrorCode` of the schema.",
  ]);
  return `${doc}export class RequestError extends rt.RpcError {\n${statics.join("\n\n")}\n}\n\nfunction requestError(code: number, message: string, data?: unknown): RequestError {\n  return new RequestError(code, message, data);\n}\n`;
}

/** The two tables of a side: as its handling end sees them (parse params, validate results) and as its calling end does. */
function sideTables(side: string, table: readonly MethodEntry[]): string {
  const handled = (m: MethodEntry): string =>
    m.kind === "request" ? `{ parseParams: ${decoder("parse", m.params)}, validateResult: ${decoder("validate", m.result)} }` : `{ parseParams: ${decoder("parse", m.params)} }`;
  const called = (m: MethodEntry): string =>
    m.kind === "request" ? `{ validateParams: ${decoder("validate", m.params)}, parseResult: ${decoder("parse", m.result)} }` : `{ validateParams: ${decoder("validate", m.params)} }`;
  return [
    methodTableFunction(side, "handled", "HandledSpec", `The methods the ${side} side handles, as its own end decodes them.`, handled, table),
    methodTableFunction(side, "called", "CalledSpec", `The methods the ${side} side handles, as the end calling them checks them.`, called, table),
  ].join("\n");
}

function methodTableFunction(side: string, role: "handled" | "called", spec: string, doc: string, entry: (m: MethodEntry) => string, table: readonly MethodEntry[]): string {
  const rows = (kind: MethodEntry["kind"]): string =>
    table
      .filter((m) => m.side === side && m.kind === kind)
      .map((m) => `      [${literal(m.method)}, ${entry(m)}],`)
      .join("\n");
  return (
    `/** ${doc} */\n` +
    `function ${tableFunction(side, role)}(): rt.MethodTable<rt.${spec}> {\n  return {\n` +
    `    requests: new Map<string, rt.${spec}>([\n${rows("request")}\n    ]),\n` +
    `    notifications: new Map<string, rt.${spec}>([\n${rows("notification")}\n    ]),\n  };\n}\n`
  );
}

/** `agentHandled`, `clientCalled`, ... */
function tableFunction(side: string, role: "handled" | "called"): string {
  return ident(`${camelCase(side)}${pascalCase(role)}`);
}

/** `parse.X` / `validate.X`, or a pass-through when the schema names no type. */
function decoder(module: "parse" | "validate", name: string | undefined): string {
  return name === undefined ? "rt.anyValue" : `${module}.${ident(name)}`;
}

function cancelSpec(cancel: MethodEntry | undefined): string {
  const value = cancel === undefined ? "undefined" : decoder("parse", cancel.params);
  return `/** The params parser of \`${CANCEL_METHOD}\`, when this surface has it. */\nconst CANCEL: rt.Decoder | undefined = ${value};\n`;
}

/** The handlers type, the peer type and the connect function of one end. */
function endFunctions(end: End, table: readonly MethodEntry[]): string {
  const handlers = `${end.role}Handlers`;
  const peer = `${pascalCase(end.peer)}Peer`;
  const handlesDoc = end.handles.map((s) => `\`x-side: ${s}\``).join(" and ");
  const callsDoc = end.calls.map((s) => `\`x-side: ${s}\``).join(" and ");
  const merge = (sides: readonly string[], role: "handled" | "called"): string =>
    sides.length === 1 ? `${tableFunction(sides[0]!, role)}()` : `rt.mergeSides(${sides.map((s) => `${tableFunction(s, role)}()`).join(", ")})`;
  return [
    jsDoc([`Handlers of the ${end.role.toLowerCase()} end: any subset of the methods with ${handlesDoc}, each typed from the method table.`]),
    `export type ${handlers} = rt.Handlers<${interfaces(end.handles, "request", table)}, ${interfaces(end.handles, "notification", table)}>;\n\n`,
    jsDoc([`The ${end.peer}, as the ${end.role.toLowerCase()} end sees it: \`request\` and \`notify\` the methods with ${callsDoc}.`]),
    `export type ${peer} = rt.Peer<${interfaces(end.calls, "request", table)}, ${interfaces(end.calls, "notification", table)}>;\n\n`,
    jsDoc([
      `Connects the ${end.role.toLowerCase()} end on \`transport\`: incoming methods with ${handlesDoc} go to \`handlers\``,
      "(params decoded by `parse`; invalid ones answered with -32602), and the returned peer calls the other side",
      "(params and handler results checked by `validate` unless `options.validateOutgoing` is false).",
    ]),
    `export function ${end.fn}(transport: Transport, handlers: ${handlers}, options?: rt.ConnectOptions): ${peer} {\n` +
      `  return rt.connect(transport, { inbound: ${merge(end.handles, "handled")}, outbound: ${merge(end.calls, "called")}, cancel: CANCEL, error: requestError }, handlers, options);\n}\n`,
  ].join("");
}

/** The intersection of the method interfaces of `sides` for one kind, `{}` when none has any. */
function interfaces(sides: readonly string[], kind: MethodEntry["kind"], table: readonly MethodEntry[]): string {
  const names = sides.filter((side) => table.some((m) => m.side === side && m.kind === kind)).map((side) => `M.${handledInterfaceName(side, kind)}`);
  return names.length === 0 ? "{}" : names.join(" & ");
}

function sessionStoreFunction(sessionUpdate: MethodEntry): string {
  const doc = jsDoc([
    "A store of the client's sessions: every `session/update` folded by `reduceSession` into a `SessionState` per session id.",
    "Pass `store.update` as the `session/update` handler (or call it from yours); `get` reads a state, `subscribe` watches them.",
  ]);
  return `${doc}export function createSessionStore(): SessionStore<SessionState, ${typeRef(sessionUpdate.params)}> {\n  return sessionStore(emptySessionState, reduceSession);\n}\n`;
}

/** `Parse error` -> `parseError`. */
function camelCase(text: string): string {
  const pascal = pascalCase(text);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}
