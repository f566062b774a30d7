/** The generated entry points of every surface, imported from source. */
import * as v1 from "../../generated/src/v1/index.js";
import * as v1Unstable from "../../generated/src/v1/unstable/index.js";
import * as v2 from "../../generated/src/v2/index.js";
import * as v2Unstable from "../../generated/src/v2/unstable/index.js";
import type { Surface } from "../../generator/ir.js";

export const ENTRIES = { v1, "v1/unstable": v1Unstable, v2, "v2/unstable": v2Unstable } as const satisfies Record<Surface, unknown>;

type AnyCheck = (value: unknown) => { ok: boolean; value?: unknown; issues?: { path: string; message: string }[] };

/** A per-type function of a surface's namespace (`validate`, `parse`, `parseOwned`), by type name. */
function checkOf(surface: Surface, namespace: "validate" | "parse" | "parseOwned", type: string): AnyCheck {
  const fn = (ENTRIES[surface][namespace] as unknown as Record<string, AnyCheck>)[type];
  if (typeof fn !== "function") throw new Error(`no ${namespace}.${type} on ${surface}`);
  return fn;
}

/** `validate.X` of a surface, by type name. */
export function validatorOf(surface: Surface, type: string): AnyCheck {
  return checkOf(surface, "validate", type);
}

/** `parse.X` of a surface, by type name. */
export function parserOf(surface: Surface, type: string): AnyCheck {
  return checkOf(surface, "parse", type);
}

/** `parseOwned.X` of a surface, by type name. */
export function ownedParserOf(surface: Surface, type: string): AnyCheck {
  return checkOf(surface, "parseOwned", type);
}
