/** Helpers for the apply and session suites: fixture markers, deep freezing, state as plain JSON. */
import type { Surface } from "../../generator/ir.js";
import { ENTRIES } from "./surfaces.js";

/** Fixture marker for a key or value that is absent (`undefined`). */
export const ABSENT = "<absent>";

/** `"<absent>"` as `undefined`. */
export function orAbsent(value: unknown): unknown {
  return value === ABSENT ? undefined : value;
}

/** Freezes a value and everything inside it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** A session state as plain JSON data: maps become objects keyed by id (own properties, S34). */
export function plainState(state: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) {
    const isMap = typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as Map<string, unknown>).entries === "function";
    out[key] = isMap ? Object.fromEntries((value as Map<string, unknown>).entries()) : value;
  }
  return out;
}

type AnyFn = (...args: never[]) => unknown;

/** A generated namespace member by name (`apply.X`, `build.X`), or a clear failure. */
export function member<F extends AnyFn>(surface: Surface, namespace: string, name: string): F {
  const ns = (ENTRIES[surface] as unknown as Record<string, Record<string, unknown>>)[namespace];
  const fn = ns && Object.hasOwn(ns, name) ? ns[name] : undefined;
  if (typeof fn !== "function") throw new Error(`no ${namespace}.${name} on ${surface}`);
  return fn as F;
}

/** The session entry points of a surface. */
export function sessionOf(surface: Surface): {
  emptySessionState(): object;
  reduceSession(state: object, update: unknown): object;
  applyMeta(stored: unknown, patch: unknown): unknown;
} {
  return ENTRIES[surface] as never;
}
