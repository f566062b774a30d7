/**
 * What `acp-codegen diff` reports: findings with a stable rule id, a category
 * and a severity.
 *
 * Categories:
 * - WIRE: a mixed deployment misbehaves. Peers upgrade independently, so each
 *   change is judged both ways. NEW traffic that a peer built on OLD rejects or
 *   misreads is an error (softened where OLD tolerates it: an open union or
 *   enum keeps unknown values, S27/S28; a default-on-error field drops them,
 *   S23). OLD traffic that a peer built on NEW rejects is an error for
 *   requests and notifications (a handler must keep accepting callers that
 *   have not upgraded) and a warning for results (the caller that asked can
 *   gate on the negotiated version). Which way a type flows comes from
 *   `x-method`/`x-side` (S32); see flow.ts.
 * - API: code written against the bindings generated from OLD no longer
 *   compiles, or behaves differently, when regenerated from NEW.
 */

/** How bad a finding is. */
export type Severity = "error" | "warn" | "info";

/** Who a finding affects: peers on the wire, or code using the generated API. */
export type Category = "WIRE" | "API";

/** Every rule id, with what it detects. Ids are stable: tools may match on them. */
export const RULES = {
  "surface-added": "a surface (v1, v1/unstable, v2, v2/unstable) exists only in NEW",
  "surface-removed": "a surface exists only in OLD",
  "type-added": "a `$defs` type exists only in NEW",
  "type-removed": "a `$defs` type exists only in OLD",
  "type-renamed": "a `$defs` type exists under another name in NEW, with the same shape",
  "type-changed": "the value at a location changed kind (string to object, another referenced type, another constant, ...)",
  "field-added": "an object gained a property (optional: harmless; required: OLD writers do not send it)",
  "field-removed": "an object lost a property",
  "field-renamed": "an object lost a property and gained one of the same type and requiredness under another name",
  "field-became-required": "an optional property became required",
  "field-became-optional": "a required property became optional",
  "nullability-changed": "a value started or stopped accepting `null`",
  "constraint-tightened": "a range, length, item count or pattern accepts less, or `anyOf` became `oneOf`",
  "constraint-loosened": "a range, length, item count or pattern accepts more, or `oneOf` became `anyOf`",
  "format-changed": "a string `format` annotation changed (never asserted, S31)",
  "tolerance-changed": "an `x-deserialize-*` keyword (S23-S25) was added or removed",
  "enum-value-added": "an enum gained a value",
  "enum-value-removed": "an enum lost a value",
  "enum-opened": "a closed enum started accepting any value (S28)",
  "enum-closed": "an open enum stopped accepting unknown values (S28)",
  "variant-added": "a union gained a variant",
  "variant-removed": "a union lost a variant",
  "variant-renamed": "a union variant's exported type name changed",
  "variant-unnamed": "NEW has an untitled variant the naming table does not name: generation fails until it does",
  "union-opened": "a closed union gained a custom variant for unknown tags (S27)",
  "union-closed": "an open union lost its custom variant (S27)",
  "method-added": "a method (`x-method`) exists only in NEW",
  "method-removed": "a method exists only in OLD",
  "method-side-changed": "a method's handling side (`x-side`) changed",
  "stability-changed": "an item moved between stable and **UNSTABLE**",
} as const satisfies Record<string, string>;

/** A rule id. */
export type RuleId = keyof typeof RULES;

/** One reported change. */
export interface Finding {
  readonly rule: RuleId;
  readonly category: Category;
  readonly severity: Severity;
  /** The surface (of NEW, or of OLD when NEW lacks it). */
  readonly surface: string;
  /** Where: `Type`, `Type.field`, `Type.field[]`, `Union["tag"]`, `Union[Option]`, `method session/new`. */
  readonly location: string;
  readonly message: string;
  /** The finding is about an **UNSTABLE** item (left out by `--ignore-unstable`). */
  readonly unstable: boolean;
}

/** `--fail-on` levels, most to least strict. */
export const FAIL_ON_LEVELS = ["error", "warn", "never"] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2 };

/** Orders severities error, warn, info. */
export function compareSeverity(a: Severity, b: Severity): number {
  return SEVERITY_RANK[a] - SEVERITY_RANK[b];
}

/** 1 when some finding is at least as severe as `failOn`, else 0. */
export function exitCodeFor(findings: readonly Finding[], failOn: FailOn): number {
  if (failOn === "never") return 0;
  return findings.some((f) => compareSeverity(f.severity, failOn) <= 0) ? 1 : 0;
}
