/**
 * emitConnection: the method table -> `connection.ts` of one surface: the
 * typed front of the shared JSON-RPC runtime (runtime/connection.ts).
 * `connectAgent` handles the methods whose `x-side` is `agent` and calls the
 * client's, `connectClient` the reverse, and `connectProxy` (where the surface
 * has proxy methods) handles agent and proxy methods and calls client and
 * proxy methods. Each side's table names the `parse` (`parseOwned` for
 * notifications: `parse` without copying the tree the connection's own
 * `JSON.parse` made) and `validate` function of every params and result type, so a new method in the schema is a new
 * typed handler with no hand edit. Also `RequestError` with one static
 * constructor per `ErrorCode` member, `PROTOCOL_VERSION` and
 * `createSessionStore()`.
 */
import type { EmitContext } from "../api.js";
import { block, code, doc, GeneratedFile, join, lines, name, wrapped, type Code } from "../code.js";
import type { EnumNode } from "../ir.js";
import type { MethodEntry } from "../methods.js";
import type { SessionModel, SurfaceModel } from "../model.js";
import { pascalCase } from "../naming.js";
import { handledInterfaceName, typeRef } from "./methods.js";
import { recordsPrompts } from "./session.js";
import { FIRST_ISSUE_MODULE } from "./validators.js";

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

/** JSON-RPC's cancellation notification (not an ACP method of the overlay). */
const CANCEL_METHOD = "$/cancel_request";

/** The namespaces and runtime names the module's code refers to, registered on its file. */
interface Names {
  readonly rt: Code;
  readonly M: Code;
  readonly T: Code;
  readonly parse: Code;
  readonly parseOwned: Code;
  readonly validate: Code;
}

/** Emits the `connection.ts` module body of one surface. */
export function emitConnection(model: SurfaceModel, context: Pick<EmitContext, "runtime">): string {
  const table = model.methods;
  const sides = new Set(table.map((m) => m.side));
  const ends = ENDS.filter((end) => [...end.handles, ...end.calls].every((side) => sides.has(side)));
  const usedSides = [...new Set(ends.flatMap((end) => [...end.handles, ...end.calls]))].sort();
  const cancel = table.find((m) => m.method === CANCEL_METHOD && m.kind === "notification");
  const f = new GeneratedFile();
  const connection = `${context.runtime}/connection.js`;
  const transport = `${context.runtime}/transport.js`;
  const httpServer = `${context.runtime}/http-server.js`;
  const httpNode = `${context.runtime}/http-node.js`;
  const httpClient = `${context.runtime}/http-client.js`;
  const webSocketClient = `${context.runtime}/websocket-client.js`;
  const clientWire = `${context.runtime}/client-wire.js`;
  const names: Names = {
    rt: f.importAll(connection, "rt"),
    M: f.importAll("./methods.js", "M", { type: true }),
    T: f.importAll("./types.js", "T", { type: true }),
    parse: f.importAll("./parse.js", "parse"),
    // Notifications (the stream: session/update) are decoded from the connection's own JSON.parse tree in place,
    // uncopied when nothing changes; requests and results, one per round trip, by `parse`, which saves the bundle the
    // owned checks of every request and result type (README "Benchmark: the connection against the SDK's").
    parseOwned: f.importAll("./parse-owned.js", "parseOwned"),
    // The first-issue checks behind `validate.X`, without the `{ all: true }` collectors a bundle would carry.
    validate: f.importAll(FIRST_ISSUE_MODULE, "first"),
  };
  f.import(transport, "Transport", { type: true });
  f.print(
    lines([
      code`export { inMemoryTransports, ndJsonStream } from ${transport};`,
      code`export type { LineSink, NdJsonOptions, NodeReadable, NodeWritable, Transport, WebReadable, WebWritable } from ${transport};`,
      code`export { createAcpServer } from ${httpServer};`,
      code`export type { AcpRequest, AcpResponse, AcpServer, AcpServerOptions, AgentConnection, ConnectionInfo, HeadersLike, ServerWebSocket, WebSocketUpgrade } from ${httpServer};`,
      code`export { nodeHttpHandler, nodeWebSocketUpgrade } from ${httpNode};`,
      code`export type { NodeHttpOptions, NodeRequest, NodeResponse, NodeSocket, NodeWebSocketServer } from ${httpNode};`,
      code`export { httpTransport } from ${httpClient};`,
      code`export type { ByteStream, FetchInit, FetchLike, FetchResponse, HttpTransportOptions } from ${httpClient};`,
      code`export { webSocketTransport } from ${webSocketClient};`,
      code`export type { WebSocketConstructor, WebSocketLike, WebSocketTransportOptions } from ${webSocketClient};`,
      code`export { createCookieJar } from ${clientWire};`,
      code`export type { CookieJar, CookiePolicy } from ${clientWire};`,
      code`export type { AbortSignalLike, AbortSignalOrLike, ConnectOptions, HandlerContext, Handlers, NotificationHandler, Peer, RequestHandler, RequestOptions } from ${connection};`,
    ]),
    ...(ends.some((end) => end.fn === "connectProxy") ? proxyChainExports(context.runtime) : []),
    protocolVersion(model),
    requestErrorClass(errorCodes(model), names),
    ...usedSides.flatMap((side) => sideTables(side, table, names)),
    cancelSpec(cancel, names),
    requestIdSpec(model, names),
    ...ends.flatMap((end) => endFunctions(end, table, names)),
    ...sessionStore(model.session, table, model.defsByName, recordsPrompts(model), f, context.runtime, names),
  );
  return f.toString();
}

/** Where the surface has proxy methods: the conductor of a chain and the forwarding proxy (runtime chain.ts, proxy.ts). */
function proxyChainExports(runtime: string): Code[] {
  const chain = `${runtime}/chain.js`;
  const proxy = `${runtime}/proxy.js`;
  return [
    code`export { chain, conduct } from ${chain};`,
    code`export type { ChainOptions, Conductor } from ${chain};`,
    code`export { forwardingProxy } from ${proxy};`,
    code`export type { ProxyHooks, ProxyServer } from ${proxy};`,
  ];
}

/** The surface's protocol version: the major version its schema directory is named after (`v2/...` -> 2). */
function protocolVersion(model: SurfaceModel): Code {
  const major = /^v(\d+)(\/|$)/.exec(model.surface)?.[1];
  if (major === undefined) throw new Error(`cannot read a protocol version from surface ${model.surface}`);
  return code`${doc([`The ACP protocol version of this surface (\`${model.surface}\`), to send in \`initialize\`.`])}export const PROTOCOL_VERSION = ${Number(major)};`;
}

/** The members of the schema's `ErrorCode` enum, each with the name of its constructor. */
function errorCodes(model: SurfaceModel): { readonly name: string; readonly code: number; readonly title: string; readonly doc: string | undefined }[] {
  const def = model.defsByName.get("ErrorCode");
  if (def === undefined || def.node.kind !== "enum") return [];
  const node: EnumNode = def.node;
  return node.members.flatMap((member) =>
    typeof member.value === "number" && member.title !== undefined ? [{ name: camelCase(member.title), code: member.value, title: member.title, doc: member.doc.text }] : [],
  );
}

function requestErrorClass(codes: ReturnType<typeof errorCodes>, { rt }: Names): Code {
  const statics = codes.map((c) => {
    const comment = doc([...(c.doc === undefined ? [] : [c.doc]), "", `Code ${c.code}; \`message\` defaults to ${JSON.stringify(c.title)}.`]);
    return code`${comment}${block(code`static ${name(c.name)}(message: string = ${c.title}, data?: unknown): RequestError`, [code`return new RequestError(${c.code}, message, data);`])}`;
  });
  const comment = doc([
    "A JSON-RPC error: what `request` rejects with, and what a handler throws to answer with a chosen error.",
    "`new RequestError(code, message, data?)`, or one static constructor per `ErrorCode` of the schema.",
  ]);
  return lines([
    code`${comment}${block(code`export class RequestError extends ${rt}.RpcError`, [join(statics, code`\n\n`)])}`,
    code``,
    block(code`function requestError(code: number, message: string, data?: unknown): RequestError`, [code`return new RequestError(code, message, data);`]),
  ]);
}

/** The two tables of a side: as its handling end sees them (parse params, validate results) and as its calling end does. */
function sideTables(side: string, table: readonly MethodEntry[], names: Names): Code[] {
  const { parse, parseOwned, validate } = names;
  const handled = (m: MethodEntry): Code =>
    m.kind === "request"
      ? code`{ parseParams: ${decoder(parse, m.params, names)}, validateResult: ${check(validate, m.result, names)} }`
      : code`{ parseParams: ${decoder(parseOwned, m.params, names)} }`;
  const called = (m: MethodEntry): Code =>
    m.kind === "request"
      ? code`{ validateParams: ${check(validate, m.params, names)}, parseResult: ${decoder(parse, m.result, names)} }`
      : code`{ validateParams: ${check(validate, m.params, names)} }`;
  return [
    methodTableFunction(side, "handled", "HandledSpec", `The methods the ${side} side handles, as its own end decodes them.`, handled, table, names),
    methodTableFunction(side, "called", "CalledSpec", `The methods the ${side} side handles, as the end calling them checks them.`, called, table, names),
  ];
}

function methodTableFunction(side: string, role: "handled" | "called", spec: string, comment: string, entry: (m: MethodEntry) => Code, table: readonly MethodEntry[], { rt }: Names): Code {
  const specType = code`${rt}.${name(spec)}`;
  const map = (kind: MethodEntry["kind"], key: string): Code => {
    const rows = table.filter((m) => m.side === side && m.kind === kind).map((m) => code`[${m.method}, ${entry(m)}],`);
    return wrapped(code`${name(key)}: new Map<string, ${specType}>([`, rows, code`]),`);
  };
  // Built on first use and shared by every connection of the module: a connection holds no table of its own.
  const built = name(`${camelCase(side)}${pascalCase(role)}Table`);
  const tableType = code`${rt}.MethodTable<${specType}>`;
  const body = wrapped(code`return (${built} ??= {`, [map("request", "requests"), map("notification", "notifications")], code`});`);
  return lines([
    code`let ${built}: ${tableType} | undefined;`,
    code``,
    code`${doc([comment])}${block(code`function ${tableFunction(side, role)}(): ${tableType}`, [body])}`,
  ]);
}

/** `agentHandled`, `clientCalled`, ... */
function tableFunction(side: string, role: "handled" | "called"): Code {
  return name(`${camelCase(side)}${pascalCase(role)}`);
}

/** `parse.X` or `parseOwned.X`, or a pass-through when the schema names no type. */
function decoder(module: Code, def: string | undefined, { rt }: Names): Code {
  return def === undefined ? code`${rt}.anyValue` : code`${module}.${name(def)}`;
}

/** The first-issue check of `X` (validate-first.ts), or one that passes anything when the schema names no type. */
function check(module: Code, def: string | undefined, { rt }: Names): Code {
  return def === undefined ? code`${rt}.anyValid` : code`${module}.${name(def)}`;
}

function cancelSpec(cancel: MethodEntry | undefined, names: Names): Code {
  const value = cancel === undefined ? code`undefined` : decoder(names.parseOwned, cancel.params, names);
  return code`${doc([`The params parser of \`${CANCEL_METHOD}\`, when this surface has it.`])}const CANCEL: ${names.rt}.Decoder | undefined = ${value};`;
}

/** The check of an incoming request's id: the surface's `RequestId` (v2 excludes `null`, v1 admits it). */
function requestIdSpec(model: SurfaceModel, names: Names): Code {
  const value = model.requestId === undefined ? code`undefined` : check(names.validate, model.requestId, names);
  const what = model.requestId === undefined ? "any JSON-RPC id: the schema names no request id type" : `its schema's \`${model.requestId}\``;
  return code`${doc([`The ids this surface admits in a request (${what}).`])}const REQUEST_ID: ${names.rt}.Check | undefined = ${value};`;
}

/** The handlers type, the peer type and the connect function of one end. */
function endFunctions(end: End, table: readonly MethodEntry[], names: Names): Code[] {
  const { rt } = names;
  const handlers = name(`${end.role}Handlers`);
  const peer = name(`${pascalCase(end.peer)}Peer`);
  const handlesDoc = end.handles.map((s) => `\`x-side: ${s}\``).join(" and ");
  const callsDoc = end.calls.map((s) => `\`x-side: ${s}\``).join(" and ");
  const merge = (sides: readonly string[], role: "handled" | "called"): Code =>
    sides.length === 1 ? code`${tableFunction(sides[0]!, role)}()` : code`${rt}.mergeSides(${join(sides.map((s) => code`${tableFunction(s, role)}()`), code`, `)})`;
  const iface = (sides: readonly string[], kind: MethodEntry["kind"]): Code => interfaces(sides, kind, table, names);
  const connectDoc = doc([
    `Connects the ${end.role.toLowerCase()} end on \`transport\`: incoming methods with ${handlesDoc} go to \`handlers\``,
    "(params decoded by `parse`; invalid ones answered with -32602), and the returned peer calls the other side",
    "(params and handler results checked by `validate` unless `options.validateOutgoing` is false).",
  ]);
  const spec = code`{ inbound: ${merge(end.handles, "handled")}, outbound: ${merge(end.calls, "called")}, cancel: CANCEL, requestId: REQUEST_ID, error: requestError }`;
  const connect = code`return ${rt}.connect(transport, ${spec}, handlers, options);`;
  return [
    code`${doc([`Handlers of the ${end.role.toLowerCase()} end: any subset of the methods with ${handlesDoc}, each typed from the method table.`])}export type ${handlers} = ${rt}.Handlers<${iface(end.handles, "request")}, ${iface(end.handles, "notification")}>;`,
    code`${doc([`The ${end.peer}, as the ${end.role.toLowerCase()} end sees it: \`request\` and \`notify\` the methods with ${callsDoc}.`])}export type ${peer} = ${rt}.Peer<${iface(end.calls, "request")}, ${iface(end.calls, "notification")}>;`,
    code`${connectDoc}${block(code`export function ${name(end.fn)}(transport: Transport, handlers: ${handlers}, options?: ${rt}.ConnectOptions): ${peer}`, [connect])}`,
  ];
}

/** The intersection of the method interfaces of `sides` for one kind, `{}` when none has any. */
function interfaces(sides: readonly string[], kind: MethodEntry["kind"], table: readonly MethodEntry[], { M }: Names): Code {
  const found = sides.filter((side) => table.some((m) => m.side === side && m.kind === kind)).map((side) => code`${M}.${handledInterfaceName(side, kind)}`);
  return found.length === 0 ? code`{}` : join(found, code` & `);
}

/** `createSessionStore()` and the re-export of its types: every notification carrying the session union folded per session. */
/** The request whose params may carry a tool call to apply (S4), and the responses that open a session with its first lists (S20), by type. */
const PERMISSION_REQUEST = "RequestPermissionRequest";
const PROMPT_REQUEST = "PromptRequest";
const OPENING_RESPONSES = ["NewSessionResponse", "LoadSessionResponse", "ResumeSessionResponse", "ForkSessionResponse"];

function sessionStore(session: SessionModel, table: readonly MethodEntry[], defs: SurfaceModel["defsByName"], recordsPrompts: boolean, f: GeneratedFile, runtime: string, { T }: Names): Code[] {
  const store = `${runtime}/session-store.js`;
  const storeFn = f.import(store, "sessionStore");
  const storeType = f.import(store, "SessionStore", { type: true });
  const empty = f.import("./session.js", "emptySessionState");
  const reduce = f.import("./session.js", "reduceSession");
  const reduceOwned = f.import("./session.js", "reduceSessionOwned");
  const state = f.import("./session.js", "SessionState", { type: true });
  const method = session.notification.method;
  const permissionMethod = table.find((m) => m.kind === "request" && m.params === PERMISSION_REQUEST);
  const permission = permissionMethod ? typeRef(T, PERMISSION_REQUEST) : code`never`;
  // Where each opening request's session id is: its result's own `sessionId` (new, fork), else its params' (load, resume).
  const opening = table
    .filter((m) => m.kind === "request" && m.result !== undefined && OPENING_RESPONSES.includes(m.result))
    .map((m) => code`${m.method}: ${hasField(defs, m.result!, "sessionId") ? "result" : "params"}`);
  // S36: the prompt request, recorded by `reducePrompt` when sent (v1: its answer names no message) or when answered (v2).
  const promptMethod = recordsPrompts ? table.find((m) => m.kind === "request" && m.params === PROMPT_REQUEST) : undefined;
  const promptAt = promptMethod?.result !== undefined && hasField(defs, promptMethod.result, "messageId") ? "response" : "sent";
  const prompt = promptMethod ? code`, prompt: { method: ${promptMethod.method}, at: ${promptAt} }` : code``;
  const methods = code`{ ${permissionMethod ? code`permission: ${permissionMethod.method}, ` : code``}opening: { ${join(opening, code`, `)} }${prompt} }`;
  const reducePrompt = promptMethod ? code`, ${f.import("./session.js", "reducePrompt")}` : code``;
  const comment = doc([
    `A store of the client's sessions: every \`${method}\` folded by \`reduceSession\` into a \`SessionState\` per session id.`,
    `Pass \`store.update\` as the \`${method}\` handler (or call it from yours); \`get\` reads a state, \`subscribe\` watches them.`,
    `Passed as the handler itself, it keeps the connection's decoded updates without a copy (\`reduceSessionOwned\`: nobody`,
    "else holds them); called by anyone else, it copies what it keeps and never changes or freezes the caller's object.",
    "As the handler it also learns, in line order, permission requests' tool calls (S4) and the first lists of the results",
    "that open sessions (S20), and records each `session/prompt` it sends as a user message (S36, `reducePrompt`:",
    "on v1 as it is sent, on v2 when its answer names the message, unless the agent echoed it);",
    "`permission(request)` applies a tool call itself.",
  ]);
  return [
    code`export type { SessionListener, SessionStore } from ${store};`,
    code`${comment}${block(code`export function createSessionStore(): ${storeType}<${state}, ${typeRef(T, session.notification.params)}, ${permission}>`, [
      code`return ${storeFn}(${empty}, ${reduce}, ${reduceOwned}, ${session.union.node.tag}, ${methods}${reducePrompt});`,
    ])}`,
  ];
}

/** Whether def `name` is an object with an own field `field`. */
function hasField(defs: SurfaceModel["defsByName"], name: string, field: string): boolean {
  const node = defs.get(name)?.node;
  return node?.kind === "object" && node.fields.some((f) => f.name === field);
}

/** `Parse error` -> `parseError`. */
function camelCase(text: string): string {
  const pascal = pascalCase(text);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}
