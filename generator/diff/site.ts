/**
 * The place being compared, and the severity policy every rule shares (see
 * findings.ts for the model).
 */
import type { Def, Doc } from "../ir.js";
import type { Category, Finding, RuleId, Severity } from "./findings.js";
import type { Flow } from "./flow.js";

/** Both schemas' defs by exported name, for following references. */
export interface DefIndex {
  readonly old: ReadonlyMap<string, Def>;
  readonly new: ReadonlyMap<string, Def>;
}

/** Where a comparison stands and where its findings go. */
export interface Site {
  readonly surface: string;
  readonly location: string;
  readonly flow: Flow;
  /** Inside an **UNSTABLE** item. */
  readonly unstable: boolean;
  /** OLD readers drop a malformed value here instead of failing (S23, S26). */
  readonly oldDropsMalformed: boolean;
  /** NEW readers drop a malformed value here instead of failing (S23, S26). */
  readonly newDropsMalformed: boolean;
  readonly defs: DefIndex;
  /** Pairs of referenced types already being compared (recursive types). */
  readonly following: Set<string>;
  readonly findings: Finding[];
}

/**
 * A site one step further in: a property, an item, a variant. A malformed
 * value inside a default-on-error field fails that field only (S26), so the
 * tolerance of the enclosing field carries inward.
 */
export function within(site: Site, location: string, old?: { readonly doc: Doc }, next?: { readonly doc: Doc }): Site {
  const item = old ?? next;
  return { ...site, location, unstable: site.unstable || (item?.doc.experimental ?? false) };
}

/** Records one finding. */
export function report(site: Site, rule: RuleId, category: Category, severity: Severity, message: string): void {
  site.findings.push({ rule, category, severity, surface: site.surface, location: site.location, message, unstable: site.unstable });
}

/**
 * NEW writers may now send something OLD readers reject: an error, or a
 * warning where the OLD field is default-on-error and drops it (S23).
 */
export function whenOldReadersReject(site: Site): Severity {
  return site.oldDropsMalformed ? "warn" : "error";
}

/**
 * OLD writers may still send something NEW readers reject: an error on
 * requests and notifications, a warning on results only, and a warning where
 * the NEW field is default-on-error and drops the value instead (S23).
 */
export function whenNewReadersReject(site: Site): Severity {
  return site.flow.input && !site.newDropsMalformed ? "error" : "warn";
}

/** What NEW readers do with a value they cannot read here: reject it, or drop it (S23). */
export function newReadersReject(site: Site): string {
  return site.newDropsMalformed ? "NEW readers drop (default-on-error, S23)" : "NEW readers reject";
}

/** What OLD readers do with a value they cannot read here: reject it, or drop it (S23). */
export function oldReadersReject(site: Site): string {
  return site.oldDropsMalformed ? "OLD readers drop (default-on-error, S23)" : "OLD readers reject";
}
