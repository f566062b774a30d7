/**
 * Version negotiation at `initialize`: one agent entry serving ACP v1 and v2, one client entry speaking both (see runtime/negotiate.ts).
 * @module
 */

import * as rt from "../runtime/negotiate.js";
import * as v1 from "../v1/index.js";
import * as v2 from "../v2/index.js";

export { chooseVersion } from "../runtime/negotiate.js";
export type { HandlersOrFactory, VersionServer } from "../runtime/negotiate.js";

/**
 * The handler sets an agent serves: either may be absent; each is that surface's `AgentHandlers`, or a function of the client peer making them.
 */
export interface AgentVersions {
  readonly v1?: rt.HandlersOrFactory<v1.AgentHandlers, v1.ClientPeer> | undefined;
  readonly v2?: rt.HandlersOrFactory<v2.AgentHandlers, v2.ClientPeer> | undefined;
}

/**
 * What the agent end negotiated: the version, the client peer of that surface, and the `initialize` params its handler got.
 */
export type NegotiatedClient =
  | { readonly version: 1; readonly peer: v1.ClientPeer; readonly initialize: v1.InitializeRequest }
  | { readonly version: 2; readonly peer: v2.ClientPeer; readonly initialize: v2.InitializeRequest };

/**
 * Serves ACP v1 and v2 on `transport` (stdio, in memory, HTTP, WebSocket: any `Transport`). The first message must be
 * `initialize`; anything before it is answered as a v1 or v2 agent would (a request -32600, bad JSON -32700, a malformed
 * `initialize` -32602; notifications and responses go to `onError`) and the connection waits on. The first usable
 * `initialize` picks the highest configured version not above the requested one (the newest configured when none is),
 * and from it on the connection is exactly that surface's `connectAgent(transport, handlers, options)`: the `initialize`
 * handler gets the request with that version as its `protocolVersion` (v2's `info` becomes v1's `clientInfo` and back).
 */
export function serveVersions(transport: v2.Transport, versions: AgentVersions, options?: v2.ConnectOptions): rt.VersionServer<NegotiatedClient> {
  const specs = [
    ...(versions.v1 === undefined ? [] : [v1Spec(v1.connectAgent, versions.v1, v1.parse.InitializeRequest)]),
    ...(versions.v2 === undefined ? [] : [v2Spec(v2.connectAgent, versions.v2, v2.parse.InitializeRequest)]),
  ];
  return rt.serveVersions(transport, specs, options) as rt.VersionServer<NegotiatedClient>;
}

/**
 * The handler sets a client speaks: each that surface's `ClientHandlers`, or a function of the agent peer making them.
 */
export interface ClientVersions {
  readonly v1?: rt.HandlersOrFactory<v1.ClientHandlers, v1.AgentPeer> | undefined;
  readonly v2?: rt.HandlersOrFactory<v2.ClientHandlers, v2.AgentPeer> | undefined;
}

/**
 * What the client end negotiated: the version, the agent peer of that surface, and the decoded `initialize` result.
 */
export type NegotiatedAgent =
  | { readonly version: 1; readonly peer: v1.AgentPeer; readonly initialize: v1.InitializeResponse }
  | { readonly version: 2; readonly peer: v2.AgentPeer; readonly initialize: v2.InitializeResponse };

/**
 * Connects as a client speaking the configured versions: writes `initialize` with `params` and the newest configured
 * version (v2's params when v2 is configured), and continues on the same connection with the `connectClient` of the
 * version the agent answered (a v1 answer to a v2 `initialize` goes on as v1). Resolves with `{ version, peer, initialize }`:
 * a `switch` on `version` narrows `peer` to that surface's `AgentPeer`; `initialize` is the decoded result. Rejects with
 * the agent's `RequestError`, or when the agent answers a version not configured or closes first (the transport is closed).
 */
export function connectVersions(transport: v2.Transport, versions: { readonly v1: rt.HandlersOrFactory<v1.ClientHandlers, v1.AgentPeer>; readonly v2: rt.HandlersOrFactory<v2.ClientHandlers, v2.AgentPeer> }, params: Omit<v2.InitializeRequest, "protocolVersion">, options?: v2.ConnectOptions): Promise<NegotiatedAgent>;
export function connectVersions(transport: v2.Transport, versions: { readonly v1?: undefined; readonly v2: rt.HandlersOrFactory<v2.ClientHandlers, v2.AgentPeer> }, params: Omit<v2.InitializeRequest, "protocolVersion">, options?: v2.ConnectOptions): Promise<Extract<NegotiatedAgent, { readonly version: 2 }>>;
export function connectVersions(transport: v2.Transport, versions: { readonly v1: rt.HandlersOrFactory<v1.ClientHandlers, v1.AgentPeer>; readonly v2?: undefined }, params: Omit<v1.InitializeRequest, "protocolVersion">, options?: v2.ConnectOptions): Promise<Extract<NegotiatedAgent, { readonly version: 1 }>>;
export function connectVersions(transport: v2.Transport, versions: ClientVersions, params: object, options?: v2.ConnectOptions): Promise<NegotiatedAgent> {
  const specs = [
    ...(versions.v1 === undefined ? [] : [v1Spec(v1.connectClient, versions.v1, v1.parse.InitializeResponse)]),
    ...(versions.v2 === undefined ? [] : [v2Spec(v2.connectClient, versions.v2, v2.parse.InitializeResponse)]),
  ];
  const check = versions.v2 === undefined ? v1.validate.InitializeRequest : v2.validate.InitializeRequest;
  return rt.connectVersions(transport, specs, params as Readonly<Record<string, unknown>>, check, options) as Promise<NegotiatedAgent>;
}

function v1Spec(connect: rt.VersionSpec["connect"], handlers: unknown, parseInitialize: rt.VersionSpec["parseInitialize"]): rt.VersionSpec {
  return {
    version: v1.PROTOCOL_VERSION,
    connect,
    handlers,
    parseInitialize,
    acceptsId: (id) => v1.validate.RequestId(id).ok,
    error: (code, message, data) => new v1.RequestError(code, message, data),
  };
}

function v2Spec(connect: rt.VersionSpec["connect"], handlers: unknown, parseInitialize: rt.VersionSpec["parseInitialize"]): rt.VersionSpec {
  return {
    version: v2.PROTOCOL_VERSION,
    connect,
    handlers,
    parseInitialize,
    acceptsId: (id) => v2.validate.RequestId(id).ok,
    error: (code, message, data) => new v2.RequestError(code, message, data),
  };
}
