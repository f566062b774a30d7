/**
 * emitNegotiate: the package-level module `acp-bindings/negotiate` (issue 30):
 * version negotiation at `initialize` between the v1 and v2 surfaces.
 * `serveVersions` is one agent entry taking a v1 and a v2 handler set;
 * `connectVersions` one client entry resolving to `{ version: 1, peer }` or
 * `{ version: 2, peer }`, each peer typed by its surface. The logic is the
 * runtime's (runtime/negotiate.ts); this module ties it to the two surfaces'
 * `connectAgent`/`connectClient`, parsers and error classes.
 */
import { code, doc, GeneratedFile, lines, name, type Code } from "../code.js";
import type { Surface } from "../ir.js";
import type { OutputFile } from "../output.js";

/** The module, without extension: `src/<it>.ts`, built to `dist/<it>.js`. */
export const NEGOTIATE_MODULE = "negotiate/index";

/** The package subpath of the module. */
export const NEGOTIATE_ENTRY = "negotiate";

/** The two surfaces the module negotiates between. */
const SURFACES = { v1: "v1", v2: "v2" } as const satisfies Record<string, Surface>;

/** Whether the run has both surfaces the module needs. */
export function hasNegotiation(surfaces: readonly Surface[]): boolean {
  return Object.values(SURFACES).every((surface) => surfaces.includes(surface));
}

/** The module `acp-bindings/negotiate`. */
export function emitNegotiate(): OutputFile {
  const f = new GeneratedFile(doc(["Version negotiation at `initialize`: one agent entry serving ACP v1 and v2, one client entry speaking both (see runtime/negotiate.ts).", "@module"]));
  const rt = f.importAll("../runtime/negotiate.js", "rt");
  const v1 = f.importAll(`../${SURFACES.v1}/index.js`, "v1");
  const v2 = f.importAll(`../${SURFACES.v2}/index.js`, "v2");
  const names = { rt, v1, v2 };
  f.print(lines([code`export { chooseVersion } from "../runtime/negotiate.js";`, code`export type { HandlersOrFactory, VersionServer } from "../runtime/negotiate.js";`]), ...agentEnd(names), ...clientEnd(names), ...specs(names));
  return { path: `src/${NEGOTIATE_MODULE}.ts`, content: f.toString() };
}

interface Names {
  readonly rt: Code;
  readonly v1: Code;
  readonly v2: Code;
}

function agentEnd({ rt, v1, v2 }: Names): Code[] {
  return [
    code`${doc(["The handler sets an agent serves: either may be absent; each is that surface's `AgentHandlers`, or a function of the client peer making them."])}export interface AgentVersions {
  readonly v1?: ${rt}.HandlersOrFactory<${v1}.AgentHandlers, ${v1}.ClientPeer> | undefined;
  readonly v2?: ${rt}.HandlersOrFactory<${v2}.AgentHandlers, ${v2}.ClientPeer> | undefined;
}`,
    code`${doc(["What the agent end negotiated: the version, the client peer of that surface, and the `initialize` params its handler got."])}export type NegotiatedClient =
  | { readonly version: 1; readonly peer: ${v1}.ClientPeer; readonly initialize: ${v1}.InitializeRequest }
  | { readonly version: 2; readonly peer: ${v2}.ClientPeer; readonly initialize: ${v2}.InitializeRequest };`,
    code`${doc([
      "Serves ACP v1 and v2 on `transport` (stdio, in memory, HTTP, WebSocket: any `Transport`). The first message must be",
      "`initialize`; anything before it is answered as a v1 or v2 agent would (a request -32600, bad JSON -32700, a malformed",
      "`initialize` -32602; notifications and responses go to `onError`) and the connection waits on. The first usable",
      "`initialize` picks the highest configured version not above the requested one (the newest configured when none is),",
      "and from it on the connection is exactly that surface's `connectAgent(transport, handlers, options)`: the `initialize`",
      "handler gets the request with that version as its `protocolVersion` (v2's `info` becomes v1's `clientInfo` and back).",
    ])}export function serveVersions(transport: ${v2}.Transport, versions: AgentVersions, options?: ${v2}.ConnectOptions): ${rt}.VersionServer<NegotiatedClient> {
  const specs = [
    ...(versions.v1 === undefined ? [] : [v1Spec(${v1}.connectAgent, versions.v1, ${v1}.parse.InitializeRequest)]),
    ...(versions.v2 === undefined ? [] : [v2Spec(${v2}.connectAgent, versions.v2, ${v2}.parse.InitializeRequest)]),
  ];
  return ${rt}.serveVersions(transport, specs, options) as ${rt}.VersionServer<NegotiatedClient>;
}`,
  ];
}

function clientEnd({ rt, v1, v2 }: Names): Code[] {
  const v1Handlers = code`${rt}.HandlersOrFactory<${v1}.ClientHandlers, ${v1}.AgentPeer>`;
  const v2Handlers = code`${rt}.HandlersOrFactory<${v2}.ClientHandlers, ${v2}.AgentPeer>`;
  const v2Params = code`Omit<${v2}.InitializeRequest, "protocolVersion">`;
  const v1Params = code`Omit<${v1}.InitializeRequest, "protocolVersion">`;
  const comment = doc([
    "Connects as a client speaking the configured versions: writes `initialize` with `params` and the newest configured",
    "version (v2's params when v2 is configured), and continues on the same connection with the `connectClient` of the",
    "version the agent answered (a v1 answer to a v2 `initialize` goes on as v1). Resolves with `{ version, peer, initialize }`:",
    "a `switch` on `version` narrows `peer` to that surface's `AgentPeer`; `initialize` is the decoded result. Rejects with",
    "the agent's `RequestError`, or when the agent answers a version not configured or closes first (the transport is closed).",
  ]);
  return [
    code`${doc(["The handler sets a client speaks: each that surface's `ClientHandlers`, or a function of the agent peer making them."])}export interface ClientVersions {
  readonly v1?: ${v1Handlers} | undefined;
  readonly v2?: ${v2Handlers} | undefined;
}`,
    code`${doc(["What the client end negotiated: the version, the agent peer of that surface, and the decoded `initialize` result."])}export type NegotiatedAgent =
  | { readonly version: 1; readonly peer: ${v1}.AgentPeer; readonly initialize: ${v1}.InitializeResponse }
  | { readonly version: 2; readonly peer: ${v2}.AgentPeer; readonly initialize: ${v2}.InitializeResponse };`,
    code`${comment}export function connectVersions(transport: ${v2}.Transport, versions: { readonly v1: ${v1Handlers}; readonly v2: ${v2Handlers} }, params: ${v2Params}, options?: ${v2}.ConnectOptions): Promise<NegotiatedAgent>;
export function connectVersions(transport: ${v2}.Transport, versions: { readonly v1?: undefined; readonly v2: ${v2Handlers} }, params: ${v2Params}, options?: ${v2}.ConnectOptions): Promise<Extract<NegotiatedAgent, { readonly version: 2 }>>;
export function connectVersions(transport: ${v2}.Transport, versions: { readonly v1: ${v1Handlers}; readonly v2?: undefined }, params: ${v1Params}, options?: ${v2}.ConnectOptions): Promise<Extract<NegotiatedAgent, { readonly version: 1 }>>;
export function connectVersions(transport: ${v2}.Transport, versions: ClientVersions, params: object, options?: ${v2}.ConnectOptions): Promise<NegotiatedAgent> {
  const specs = [
    ...(versions.v1 === undefined ? [] : [v1Spec(${v1}.connectClient, versions.v1, ${v1}.parse.InitializeResponse)]),
    ...(versions.v2 === undefined ? [] : [v2Spec(${v2}.connectClient, versions.v2, ${v2}.parse.InitializeResponse)]),
  ];
  const check = versions.v2 === undefined ? ${v1}.validate.InitializeRequest : ${v2}.validate.InitializeRequest;
  return ${rt}.connectVersions(transport, specs, params as Readonly<Record<string, unknown>>, check, options) as Promise<NegotiatedAgent>;
}`,
  ];
}

/** The runtime's description of each surface, given the end's connect function, handlers and `initialize` parser. */
function specs({ rt, v1, v2 }: Names): Code[] {
  const spec = (surface: Code, fn: string): Code =>
    code`function ${name(fn)}(connect: ${rt}.VersionSpec["connect"], handlers: unknown, parseInitialize: ${rt}.VersionSpec["parseInitialize"]): ${rt}.VersionSpec {
  return {
    version: ${surface}.PROTOCOL_VERSION,
    connect,
    handlers,
    parseInitialize,
    acceptsId: (id) => ${surface}.validate.RequestId(id).ok,
    error: (code, message, data) => new ${surface}.RequestError(code, message, data),
  };
}`;
  return [spec(v1, "v1Spec"), spec(v2, "v2Spec")];
}
