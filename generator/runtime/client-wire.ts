/**
 * What the network clients (http-client.ts, websocket-client.ts) share: the
 * cookies they keep, and how they call a sink without letting it throw into
 * a stream reader or a socket's event dispatch.
 *
 * Cookies are kept by the clients themselves: Node's `fetch` and the `ws` package keep none, and a load
 * balancer's affinity cookie must come back on every request of a connection
 * (and of the next one, after a reconnect). Only `name=value` is kept;
 * attributes are ignored, except that `Max-Age=0` or less removes the cookie.
 * In a browser the platform's cookie jar does this work (it hides
 * `Set-Cookie` and drops a `Cookie` header), so the jar stays empty there.
 */
import { errorMessage } from "./describe.js";
import type { LineSink } from "./transport.js";

/** Where a network transport keeps cookies; pass one (`createCookieJar()`) to several transports to keep affinity across reconnects. */
export interface CookieJar {
  /** Keeps the cookies of a response's `Set-Cookie` header values (one cookie each). */
  store(setCookies: readonly string[]): void;
  /** The `Cookie` header value to send, or `undefined` when the jar is empty. */
  header(): string | undefined;
  /** Forgets every cookie. */
  clear(): void;
}

/** Whether a transport keeps and sends cookies (`"include"`, the default) or neither (`"omit"`); also passed to `fetch` as `credentials`. */
export type CookiePolicy = "include" | "omit";

/** An empty in-memory `CookieJar`. */
export function createCookieJar(): CookieJar {
  const cookies = new Map<string, string>();
  return {
    store(setCookies) {
      for (const setCookie of setCookies) keepCookie(cookies, setCookie);
    },
    header: () => (cookies.size === 0 ? undefined : [...cookies].map(([name, value]) => `${name}=${value}`).join("; ")),
    clear: () => cookies.clear(),
  };
}

/** Keeps (or, for `Max-Age=0`, removes) the cookie of one `Set-Cookie` value; a value without `name=` is ignored. */
function keepCookie(cookies: Map<string, string>, setCookie: string): void {
  const [pair = "", ...attributes] = setCookie.split(";");
  const equals = pair.indexOf("=");
  const name = pair.slice(0, Math.max(equals, 0)).trim();
  if (name === "") return;
  const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*(-\d+|0+)\s*$/i.test(attribute));
  if (expired) cookies.delete(name);
  else cookies.set(name, pair.slice(equals + 1).trim());
}

/**
 * The `Set-Cookie` values of a response's headers: `getSetCookie()` where the
 * headers have it (Node 20, browsers), else the joined `set-cookie` header
 * split at the commas that start a new cookie.
 */
export function setCookieValues(headers: { get(name: string): string | null; getSetCookie?: () => string[] }): string[] {
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie();
  const joined = headers.get("set-cookie");
  return joined === null ? [] : splitJoinedSetCookie(joined);
}

/** Splits a comma-joined `Set-Cookie` header (`a=1; Path=/, b=2`); a comma inside `Expires=Thu, 01 Jan ...` is not a split. */
export function splitJoinedSetCookie(joined: string): string[] {
  return joined
    .split(/,(?=\s*[^;,\s=]+=)/)
    .map((value) => value.trim())
    .filter((value) => value !== "");
}

/** The `Cookie` header to send: the jar's cookies, then the caller's own `Cookie` header (its cookies win by coming last). */
export function cookieHeader(jar: CookieJar, callerCookie: string | undefined): string | undefined {
  const kept = jar.header();
  if (kept === undefined) return callerCookie;
  return callerCookie === undefined || callerCookie.trim() === "" ? kept : `${kept}; ${callerCookie}`;
}

/** Runs `callback` (a sink call, an event's work); what it throws is reported to `sink.problem`, never thrown on. */
export function contained(sink: LineSink | undefined, callback: () => void): void {
  try {
    callback();
  } catch (error) {
    sink?.problem(`a transport callback threw: ${errorMessage(error)}`); // a sink the transport wrapped with containedSink: never throws
  }
}
