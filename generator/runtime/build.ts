import { put } from "./decode.js";

/*
 * The builder behind every `build.X` (S33, after the Rust crate's
 * conventions): the entry takes the required fields in declaration order,
 * each optional field has a chainable setter named after it, and `.build()`
 * returns the value. Setters take a value, `null` (written as `null`: clears
 * a three-state field, S1) or `undefined` (the key is omitted). Builders are
 * immutable: a setter returns a new builder, so a partly built one can be
 * reused as a template. One small generic runtime; the generated code only
 * adds per-type key lists and typings.
 */

/** The optional keys of `T`, without index signatures. */
export type OptionalKeys<T> = {
  [K in keyof T]-?: string extends K ? never : number extends K ? never : {} extends Pick<T, K> ? K : never;
}[keyof T];

/**
 * A builder of `T`: one setter per key in `S` (default: the optional keys),
 * each returning a new builder, and `build()`.
 */
export type Builder<T, S extends keyof T = OptionalKeys<T>> = {
  readonly [K in keyof T as K extends S ? K : never]-?: (value: T[K] | undefined) => Builder<T, S>;
} & {
  /** The built value: a fresh plain object, keys in declaration order, no `undefined` value. */
  build(): T;
};

/** `T` without the keys `K` a builder sets itself; distributes over unions (the union-typed part of a value). */
export type Rest<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The keys of a built type: all declared keys in declaration order (tag first), and those that have setters. */
export interface BuilderSpec {
  readonly keys: readonly string[];
  readonly setters: readonly string[];
}

const FIELDS = Symbol("fields");
const REST = Symbol("rest");

/** A builder instance: the fields set so far and the union-typed rest, behind symbols. */
interface Instance {
  readonly [FIELDS]: ReadonlyMap<string, unknown>;
  readonly [REST]: object | undefined;
}

const prototypes = new WeakMap<BuilderSpec, object>();

/**
 * A builder of `spec` holding `fields` (tag and required fields) and, for a
 * value with a union-typed part, `rest`: its properties follow the declared
 * ones unless the builder sets the same key.
 */
export function start<T, S extends keyof T = OptionalKeys<T>>(spec: BuilderSpec, fields: Readonly<Record<string, unknown>>, rest?: object): Builder<T, S> {
  return instance(spec, new Map(Object.entries(fields)), rest) as unknown as Builder<T, S>;
}

function instance(spec: BuilderSpec, fields: ReadonlyMap<string, unknown>, rest: object | undefined): Instance {
  const self = Object.create(prototypeOf(spec)) as { [FIELDS]: ReadonlyMap<string, unknown>; [REST]: object | undefined };
  self[FIELDS] = fields;
  self[REST] = rest;
  return Object.freeze(self);
}

/** The shared prototype of a spec's builders: one setter per optional key, and `build`. */
function prototypeOf(spec: BuilderSpec): object {
  let proto = prototypes.get(spec);
  if (proto === undefined) {
    proto = {};
    for (const key of spec.setters) {
      const setter = function (this: Instance, value: unknown): Instance {
        const fields = new Map(this[FIELDS]);
        if (value === undefined) fields.delete(key);
        else fields.set(key, value);
        return instance(spec, fields, this[REST]);
      };
      Object.defineProperty(proto, key, { value: setter });
    }
    Object.defineProperty(proto, "build", { value: build(spec) });
    prototypes.set(spec, proto);
  }
  return proto;
}

function build(spec: BuilderSpec): (this: Instance) => Record<string, unknown> {
  return function (this: Instance) {
    const out: Record<string, unknown> = {};
    const fields = this[FIELDS];
    for (const key of spec.keys) {
      const value = fields.get(key);
      if (value !== undefined) put(out, key, value);
    }
    const rest = this[REST] as Record<string, unknown> | undefined;
    for (const key of rest === undefined ? [] : Object.keys(rest)) {
      if (!fields.has(key) && rest![key] !== undefined) put(out, key, rest![key]);
    }
    return out;
  };
}
