/**
 * Findings grouped into changes, the unit a person reads: one change is one
 * rule at one location, with its effect in each category (WIRE, API) and the
 * surfaces where it shows the same way. The 2.0.0 -> 2.4.0 report shows most
 * v2 changes again on v2/unstable; grouped, each is printed once.
 */
import type { DiffReport } from "./diff.js";
import { compareSeverity, type Category, type Finding, type RuleId, type Severity } from "./findings.js";

/** What a change does in one category. */
export interface Effect {
  readonly category: Category;
  readonly severity: Severity;
  readonly message: string;
}

/** Where a reader looks a change up. */
export type Subject = "method" | "type";

/** Which part of the report a change belongs to. */
export type Section = "breaking" | "new" | "other";

/** One change: a rule at a location, with the same effects on every surface listed. */
export interface Change {
  readonly rule: RuleId;
  readonly location: string;
  readonly surfaces: readonly string[];
  /** WIRE first, then API. */
  readonly effects: readonly Effect[];
  /** The worst severity of its effects. */
  readonly severity: Severity;
  readonly subject: Subject;
  readonly section: Section;
}

/** The rules whose changes are listed under "New". */
const NEW_RULES: ReadonlySet<RuleId> = new Set(["method-added", "type-added", "surface-added"]);

/** The changes of a report: grouped, sectioned, and ordered by subject (methods first), severity and location. */
export function changesOf(report: DiffReport): Change[] {
  const bySite = new Map<string, Finding[]>();
  for (const f of report.findings) {
    const key = `${f.surface}\u0000${f.rule}\u0000${f.location}`;
    bySite.set(key, [...(bySite.get(key) ?? []), f]);
  }
  const grouped = new Map<string, { first: Finding; effects: Effect[]; surfaces: string[] }>();
  for (const findings of bySite.values()) {
    const first = findings[0]!;
    const effects = findings.map(({ category, severity, message }) => ({ category, severity, message })).sort(byCategory);
    const key = JSON.stringify([first.rule, first.location, effects]);
    const entry = grouped.get(key);
    if (entry) entry.surfaces.push(first.surface);
    else grouped.set(key, { first, effects, surfaces: [first.surface] });
  }
  const surfaceOrder = report.surfaces.map((s) => s.surface);
  return [...grouped.values()].map(({ first, effects, surfaces }) => changeOf(first, effects, sortBy(surfaces, surfaceOrder))).sort(byReadingOrder);
}

function changeOf(first: Finding, effects: readonly Effect[], surfaces: readonly string[]): Change {
  const severity = effects.map((e) => e.severity).sort(compareSeverity)[0]!;
  return {
    rule: first.rule,
    location: first.location,
    surfaces,
    effects,
    severity,
    subject: first.location.startsWith("method ") ? "method" : "type",
    section: severity === "error" ? "breaking" : NEW_RULES.has(first.rule) ? "new" : "other",
  };
}

function byCategory(a: Effect, b: Effect): number {
  return (a.category === "WIRE" ? 0 : 1) - (b.category === "WIRE" ? 0 : 1);
}

function sortBy(values: readonly string[], order: readonly string[]): string[] {
  return [...values].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

const SUBJECT_ORDER: Record<Subject, number> = { method: 0, type: 1 };

function byReadingOrder(a: Change, b: Change): number {
  return (
    SUBJECT_ORDER[a.subject] - SUBJECT_ORDER[b.subject] ||
    compareSeverity(a.severity, b.severity) ||
    a.location.localeCompare(b.location, "en") ||
    a.rule.localeCompare(b.rule, "en")
  );
}

/** The changes of one section, in reading order. */
export function inSection(changes: readonly Change[], section: Section): Change[] {
  return changes.filter((c) => c.section === section);
}

/** The surfaces where some change breaks something in `category`, in report order. */
export function surfacesBroken(changes: readonly Change[], category: Category): string[] {
  const broken = changes.filter((c) => c.effects.some((e) => e.category === category && e.severity === "error"));
  return [...new Set(broken.flatMap((c) => c.surfaces))];
}
