/**
 * The clients of bench/remote.bench.ts, on acp-bindings (`connectClient` over
 * `httpTransport` or `webSocketTransport`, updates folded by
 * `createSessionStore().update`) and on the official SDK (`client()` over
 * `createHttpStream` or `createWebSocketStream`, updates folded in its
 * `session/update` handler by the fold `--sdk-fold` names, see `SDK_FOLDS`),
 * both on ACP v2 unstable, the `ws` package's `WebSocket` in Node.
 */
import * as sdk from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket } from "ws";
import {
  connectClient,
  createSessionStore,
  emptySessionState,
  httpTransport,
  reduceSessionOwned,
  type SessionState,
  type SessionUpdate,
  webSocketTransport,
} from "../../generated/src/v2/unstable/index.js";
import { naiveEmpty, naiveReduceInPlace, type NaiveState } from "../naive-reducer.js";
import { Progress } from "../progress.js";

export type Wire = "http" | "ws";
export type Side = "ours" | "sdk";

/** What the benchmark asks of a client, whichever side and wire. */
export interface RemoteClient {
  readonly name: string;
  /** One `session/set_config_option` in the client's session, awaited. */
  roundTrip(): Promise<unknown>;
  /** A new session (untimed), then one prompt whose `expected` updates are all decoded and reduced; resolves with the seconds from the prompt to the last update and the response. */
  stream(expected: number): Promise<number>;
  /** One prompt answered with one update in the client's session; resolves with the milliseconds from the prompt's send to the update reduced (the response awaited too, untimed). */
  firstUpdate(): Promise<number>;
  close(): void;
}

/** A session-state fold for the SDK's `session/update` handler (zod's output is fresh, nobody else holds it). */
export interface SdkFold {
  readonly name: string;
  fold(sessionId: string, update: unknown): void;
}

/** The folds the SDK's client can use, by `--sdk-fold` name; `makeSdkFold` makes a fresh one (its own states). */
export const SDK_FOLDS = {
  /** The generated reducer, the same one our store runs, taking ownership of zod's output. */
  owned: (): SdkFold => {
    const states = new Map<string, SessionState>();
    return {
      name: "reduceSessionOwned",
      fold: (sessionId, update) => void states.set(sessionId, reduceSessionOwned(states.get(sessionId) ?? emptySessionState(), update as SessionUpdate)),
    };
  },
  /** The hand-written in-place reducer of bench/naive-reducer.ts (no checks, one mutable state per session). */
  naive: (): SdkFold => {
    const states = new Map<string, NaiveState>();
    return {
      name: "hand-written in-place reducer",
      fold(sessionId, update) {
        const state = states.get(sessionId);
        if (state === undefined) states.set(sessionId, naiveReduceInPlace(naiveEmpty(), update as Record<string, unknown>));
        else naiveReduceInPlace(state, update as Record<string, unknown>);
      },
    };
  },
} as const;
export type SdkFoldName = keyof typeof SDK_FOLDS;

const INITIALIZE = { protocolVersion: 2, info: { name: "bench-client", version: "1.0.0" } };
const trip = (sessionId: string) => ({ sessionId, configId: "fast", type: "boolean" as const, value: true });
const promptOf = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: "text" as const, text }] });

/** The requests a measured client makes, whichever library sends them. */
interface ClientRequests {
  /** Opens a session; its id. */
  newSession(): Promise<string>;
  prompt(sessionId: string, text: string): Promise<unknown>;
  roundTrip(sessionId: string): Promise<unknown>;
}

/** The measured operations of a client with one open session, its updates counted by `progress`. */
function measured(name: string, requests: ClientRequests, sessionId: string, progress: Progress, close: () => void): RemoteClient {
  return {
    name,
    roundTrip: () => requests.roundTrip(sessionId),
    async stream(expected) {
      const fresh = await requests.newSession();
      const started = performance.now();
      progress.reset();
      await Promise.all([requests.prompt(fresh, "stream"), progress.until(expected)]);
      return (performance.now() - started) / 1000;
    },
    async firstUpdate() {
      const started = performance.now();
      let ms = 0;
      progress.reset();
      await Promise.all([requests.prompt(sessionId, "first"), progress.until(1).then(() => (ms = performance.now() - started))]);
      return ms;
    },
    close,
  };
}

/** Our client on `wire` at `url` (`ws://` for WebSocket), initialized, with one session. */
export async function oursClient(wire: Wire, url: string): Promise<RemoteClient> {
  const sessions = createSessionStore();
  const progress = new Progress();
  sessions.subscribe(() => progress.reduced());
  const transport = wire === "http" ? httpTransport(url) : webSocketTransport(url, { WebSocket });
  const agent = connectClient(transport, { "session/update": sessions.update });
  await agent.request("initialize", INITIALIZE);
  const requests: ClientRequests = {
    newSession: async () => (await agent.request("session/new", { cwd: "/bench" })).sessionId,
    prompt: (sessionId, text) => agent.request("session/prompt", promptOf(sessionId, text)),
    roundTrip: (sessionId) => agent.request("session/set_config_option", trip(sessionId)),
  };
  const sessionId = await requests.newSession();
  await requests.roundTrip(sessionId);
  return measured(`ours: connectClient + ${wire === "http" ? "httpTransport" : "webSocketTransport"}`, requests, sessionId, progress, () => agent.close());
}

/** The SDK's client on `wire` at `url`, initialized, with one session, folding updates with `fold`. */
export function sdkClient(wire: Wire, url: string, fold: SdkFold): Promise<RemoteClient> {
  const progress = new Progress();
  const app = sdk.client().onNotification("session/update", async ({ params }) => {
    fold.fold(params.sessionId, params.update);
    progress.reduced();
  });
  const stream = wire === "http" ? createHttpStream(url) : createWebSocketStream(url, { WebSocket: WebSocket as never });
  return new Promise((resolve, reject) => {
    let release!: () => void;
    app
      .connectWith(stream, async (agent) => {
        await agent.request("initialize", INITIALIZE);
        const requests: ClientRequests = {
          newSession: async () => (await agent.request("session/new", { cwd: "/bench" })).sessionId,
          prompt: (sessionId, text) => agent.request("session/prompt", promptOf(sessionId, text)),
          roundTrip: (sessionId) => agent.request("session/set_config_option", trip(sessionId)),
        };
        const sessionId = await requests.newSession();
        await requests.roundTrip(sessionId);
        const name = `SDK: client() + ${wire === "http" ? "createHttpStream" : "createWebSocketStream"}, ${fold.name}`;
        resolve(measured(name, requests, sessionId, progress, () => release()));
        await new Promise<void>((done) => (release = done));
      })
      .catch(reject);
  });
}

/** A client of `side` on `wire`. */
export function remoteClient(side: Side, wire: Wire, url: string, sdkFold: SdkFoldName): Promise<RemoteClient> {
  return side === "ours" ? oursClient(wire, url) : sdkClient(wire, url, SDK_FOLDS[sdkFold]());
}
