/**
 * The version policy of `acp-codegen update`: which step the package version
 * takes for a schema change, read from the diff of the old pinned schemas
 * against the new ones (the README's "When ACP releases a new schema").
 *
 * - major: a break of the stable protocol (surface `v1`, no **UNSTABLE**
 *   item) on the wire or in the API: an `error` finding there;
 * - minor: any other finding: a break of a draft (`v1/unstable`, all of
 *   `v2`; `@experimental` in the package, outside the semver promise), a new
 *   type, method, field, variant or enum value, a warning or a note;
 * - patch: no finding at all: the schemas changed in descriptions (or not at
 *   all, only the release number).
 *
 * Under 1.0.0 (`0.y.z`) a major takes the minor step (`0.y+1.0`): a caret
 * range `^0.y.z` does not cross it, and leaving 0.x is a person's decision,
 * not a schema release's. A draft break is a minor both before and after
 * 1.0.0; under 1.0.0 that minor step is also the one `^0.y.z` does not
 * cross, so draft users are not upgraded into it silently.
 */
import type { DiffReport } from "../diff/diff.js";
import { isStableSurface } from "../diff/diff.js";
import type { Finding } from "../diff/findings.js";

/** The three steps of a version number. */
export type BumpLevel = "major" | "minor" | "patch";

/** What the policy chose, and why. */
export interface Bump {
  readonly level: BumpLevel;
  readonly reason: string;
}

/** Breaks of the stable protocol: errors on a stable surface about a stable item. */
function stableBreaks(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === "error" && isStableSurface(f.surface) && !f.unstable);
}

/** The findings once per rule and location (a change shows on several surfaces). */
function distinct(findings: readonly Finding[]): Finding[] {
  const seen = new Map<string, Finding>();
  for (const f of findings) if (!seen.has(`${f.rule} ${f.location}`)) seen.set(`${f.rule} ${f.location}`, f);
  return [...seen.values()];
}

/** `N things <where>, e.g. \`Location\` (rule, surface)`. */
function counted(findings: readonly Finding[], what: string, where: string): string {
  const list = distinct(findings);
  const first = list[0]!;
  return `${list.length} ${what}${list.length === 1 ? "" : "s"} ${where}, e.g. \`${first.location}\` (${first.rule}, ${first.surface})`;
}

/** The step the policy takes for a diff of the pinned schemas against the new ones. */
export function chooseBump(report: DiffReport): Bump {
  const stable = stableBreaks(report.findings);
  if (stable.length) return { level: "major", reason: counted(stable, "break", "of the stable protocol (v1) on the wire or in the API") };
  const draft = report.findings.filter((f) => f.severity === "error");
  if (draft.length) return { level: "minor", reason: `nothing stable breaks; ${counted(draft, "break", "of the drafts (v1/unstable, v2: @experimental)")}` };
  if (report.findings.length) return { level: "minor", reason: `nothing breaks; ${counted(report.findings, "new or changed item", "(types, methods, fields, variants, values)")}` };
  return { level: "patch", reason: "no type, method or field changed (descriptions only)" };
}

/** A parsed `X.Y.Z` version (a pre-release or build suffix is kept and sorts before its release). */
interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly suffix: string;
}

/** Parses `X.Y.Z[-pre]`; undefined for anything else. */
export function parseVersion(text: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)([-+].*)?$/.exec(text.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), suffix: match[4] ?? "" };
}

/** Orders two versions (negative: `a` is older); a version that does not parse throws. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  if (!x || !y) throw new Error(`not a version: ${JSON.stringify(x ? b : a)}`);
  const bySuffix = x.suffix === y.suffix ? 0 : x.suffix === "" ? 1 : y.suffix === "" ? -1 : x.suffix < y.suffix ? -1 : 1;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch || bySuffix;
}

/** The version after `bump`, with the step actually taken (a major under 1.0.0 takes the minor step). */
export function nextVersion(current: string, level: BumpLevel): { version: string; step: BumpLevel } {
  const v = parseVersion(current);
  if (!v) throw new Error(`not a version: ${JSON.stringify(current)}`);
  const step: BumpLevel = v.major === 0 && level === "major" ? "minor" : level;
  const version = step === "major" ? `${v.major + 1}.0.0` : step === "minor" ? `${v.major}.${v.minor + 1}.0` : `${v.major}.${v.minor}.${v.patch + 1}`;
  return { version, step };
}
