/**
 * Renders a diff report: text for people, JSON for tools, Markdown for a
 * changelog. Text and Markdown print each change once (changes.ts): a summary
 * first (what breaks, for whom; then what is new; then the rest), then the
 * sections Breaking, New and Other, each with methods before types.
 */
import { changesOf, inSection, surfacesBroken, type Change } from "./changes.js";
import { displayPath, type DiffReport } from "./diff.js";
import { RULES, type Category, type Finding, type RuleId, type Severity } from "./findings.js";

/** Output formats of `acp-codegen diff --format`. */
export const REPORT_FORMATS = ["text", "json", "markdown"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The report in the requested format, ending with a newline. */
export function formatReport(report: DiffReport, format: ReportFormat): string {
  switch (format) {
    case "text":
      return formatText(report);
    case "json":
      return `${JSON.stringify(toJson(report), null, 2)}\n`;
    case "markdown":
      return formatMarkdown(report);
  }
}

/** Counts per severity. */
function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/**
 * `2.0.0 -> 2.4.0 (@agentclientprotocol/sdk)` from the releases (lock files or SDK package.json), else each
 * side as its release or its path as given (relative to the working directory when inside it).
 */
function versions(report: DiffReport, arrow: string): { old: string; new: string; title: string; known: boolean } {
  const [a, b] = [report.oldRelease, report.newRelease];
  const side = (release: typeof a, path: string) => (release ? `${release.package} ${release.version}` : displayPath(path));
  if (!a || !b) return { old: "OLD", new: "NEW", title: `${side(a, report.old)} ${arrow} ${side(b, report.new)}`, known: false };
  const title = a.package === b.package ? `${a.version} ${arrow} ${b.version} (${a.package})` : `${a.package} ${a.version} ${arrow} ${b.package} ${b.version}`;
  return { old: a.version, new: b.version, title, known: true };
}

/** The facts every summary states. */
interface Summary {
  readonly breaking: readonly Change[];
  readonly newChanges: readonly Change[];
  readonly other: readonly Change[];
  readonly wire: { readonly count: number; readonly surfaces: readonly string[] };
  readonly api: { readonly count: number; readonly surfaces: readonly string[] };
  readonly perSurface: readonly (readonly [string, number])[];
  readonly newMethods: number;
  readonly newTypes: number;
}

function summarise(report: DiffReport, changes: readonly Change[]): Summary {
  const breaking = inSection(changes, "breaking");
  const newChanges = inSection(changes, "new");
  const order = report.surfaces.map((s) => s.surface);
  const inOrder = (surfaces: readonly string[]) => order.filter((s) => surfaces.includes(s));
  const breaks = (category: Category) => breaking.filter((c) => c.effects.some((e) => e.category === category && e.severity === "error")).length;
  return {
    breaking,
    newChanges,
    other: inSection(changes, "other"),
    wire: { count: breaks("WIRE"), surfaces: inOrder(surfacesBroken(breaking, "WIRE")) },
    api: { count: breaks("API"), surfaces: inOrder(surfacesBroken(breaking, "API")) },
    perSurface: order.map((s) => [s, breaking.filter((c) => c.surfaces.includes(s)).length] as const),
    newMethods: newChanges.filter((c) => c.rule === "method-added").length,
    newTypes: newChanges.filter((c) => c.rule === "type-added").length,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `error 2, warn 1, info 3` style counts of some changes' severities. */
function severityCounts(changes: readonly Change[]): string {
  const warn = changes.filter((c) => c.severity === "warn").length;
  return `${plural(warn, "warning")}, ${changes.length - warn} information`;
}

function summaryLines(s: Summary, v: { old: string; new: string }): string[] {
  const where = (surfaces: readonly string[]) => (surfaces.length ? ` (${surfaces.join(", ")})` : "");
  return [
    `Breaking: ${plural(s.breaking.length, "change")}`,
    `  on the wire, between a peer on ${v.old} and one on ${v.new}: ${s.wire.count}${where(s.wire.surfaces)}`,
    `  for code written against bindings generated from ${v.old}: ${s.api.count}${where(s.api.surfaces)}`,
    `  per surface: ${s.perSurface.map(([surface, n]) => `${surface} ${n}`).join(", ")}`,
    `New: ${plural(s.newMethods, "method")}, ${plural(s.newTypes, "type")}${s.newChanges.length > s.newMethods + s.newTypes ? `, ${plural(s.newChanges.length - s.newMethods - s.newTypes, "surface")}` : ""}`,
    `Other: ${plural(s.other.length, "change")} (${severityCounts(s.other)})`,
  ];
}

/** Which surfaces were compared, and whether only the stable protocol. */
function scopeLine(report: DiffReport): string {
  const surfaces = report.surfaces.map((x) => x.surface).join(", ") || "(none)";
  return report.stableOnly ? `Surfaces: ${surfaces}; stable protocol only (draft surfaces and **UNSTABLE** items left out).` : `Surfaces: ${surfaces}.`;
}

function surfaceList(change: Change): string {
  return `[${change.surfaces.join(", ")}]`;
}

function formatText(report: DiffReport): string {
  const changes = changesOf(report);
  const v = versions(report, "->");
  const s = summarise(report, changes);
  const lines = [`acp-codegen diff ${v.title}`, scopeLine(report), "", "Summary", ...summaryLines(s, v).map((l) => `  ${l}`)];
  if (s.breaking.length) {
    lines.push("", `Breaking (${s.breaking.length})`);
    for (const c of s.breaking) lines.push(`  ${c.location}  ${c.rule}  ${surfaceList(c)}`, ...c.effects.map((e) => `    ${e.severity.padEnd(5)} ${e.category.padEnd(4)} ${e.message}`));
  }
  if (s.newChanges.length) {
    lines.push("", `New (${s.newChanges.length})`);
    for (const c of s.newChanges.filter((x) => x.rule !== "type-added")) lines.push(`  ${c.location}  ${surfaceList(c)}: ${wireMessage(c)}`);
    for (const [surfaces, names] of newTypesBySurfaces(s.newChanges)) lines.push(...wrap(`  types ${surfaces}: `, names, 100));
  }
  if (s.other.length) {
    lines.push("", `Other (${s.other.length})`);
    for (const c of s.other) lines.push(`  ${c.severity.padEnd(5)} ${c.location}  ${c.rule}  ${surfaceList(c)}: ${c.effects.map((e) => `${e.category}: ${e.message}`).join(" / ")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The WIRE message of a change, else its first. */
function wireMessage(change: Change): string {
  return (change.effects.find((e) => e.category === "WIRE") ?? change.effects[0]!).message;
}

/** New type names grouped by the surfaces they appear on. */
function newTypesBySurfaces(changes: readonly Change[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const c of changes.filter((x) => x.rule === "type-added")) {
    const key = surfaceList(c);
    groups.set(key, [...(groups.get(key) ?? []), c.location]);
  }
  return [...groups];
}

/** `items` after `head`, comma-separated, in lines of at most `width` characters, continuation lines indented. */
function wrap(head: string, items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = head;
  for (const [i, item] of items.entries()) {
    const text = `${item}${i < items.length - 1 ? "," : ""}`;
    if (line.length + text.length + 1 > width && line.trim() !== head.trim()) {
      lines.push(line.trimEnd());
      line = " ".repeat(head.length);
    }
    line += line.endsWith(" ") ? text : ` ${text}`;
  }
  return [...lines, line.trimEnd()];
}

function toJson(report: DiffReport) {
  return {
    old: report.old,
    new: report.new,
    ...(report.oldRelease ? { oldRelease: report.oldRelease } : {}),
    ...(report.newRelease ? { newRelease: report.newRelease } : {}),
    surfaces: report.surfaces,
    summary: countBySeverity(report.findings),
    findings: report.findings,
    changes: changesOf(report),
  };
}

/** Plain words for each rule id, as Markdown shows them. */
const RULE_WORDS: Record<RuleId, string> = {
  "surface-added": "new surface",
  "surface-removed": "surface removed",
  "type-added": "new type",
  "type-removed": "type removed",
  "type-renamed": "type renamed",
  "type-changed": "value changed kind",
  "field-added": "new property",
  "field-removed": "property removed",
  "field-renamed": "property renamed",
  "field-became-required": "property now required",
  "field-became-optional": "property now optional",
  "nullability-changed": "`null` accepted or refused",
  "constraint-tightened": "accepts less",
  "constraint-loosened": "accepts more",
  "format-changed": "format annotation changed",
  "tolerance-changed": "tolerant reading changed",
  "enum-value-added": "new enum value",
  "enum-value-removed": "enum value removed",
  "enum-opened": "enum now open",
  "enum-closed": "enum now closed",
  "variant-added": "new variant",
  "variant-removed": "variant removed",
  "variant-renamed": "variant type renamed",
  "variant-unnamed": "variant needs a name",
  "union-opened": "union now open",
  "union-closed": "union now closed",
  "method-added": "new method",
  "method-removed": "method removed",
  "method-side-changed": "method moved to the other side",
  "stability-changed": "stability changed",
};

const CATEGORY_WORDS: Record<Category, string> = { WIRE: "Wire", API: "API" };
const SEVERITY_WORDS: Record<Severity, string> = { error: "breaks", warn: "warning", info: "note" };

/**
 * A changelog section: title from the lock files' versions, a summary, then
 * Breaking, New and Other (the last two collapsed), and what the rule ids
 * mean, each with an anchor the entries link to. Anchors carry the NEW
 * version, so sections stacked in one changelog stay distinct.
 */
function formatMarkdown(report: DiffReport): string {
  const changes = changesOf(report);
  const v = versions(report, "→");
  const s = summarise(report, changes);
  const anchor = (rule: RuleId) => `acp-${slug(v.new)}-${rule}`;
  const rule = (id: RuleId) => `[${RULE_WORDS[id]}](#${anchor(id)})`;
  const entry = (c: Change) =>
    [`- \`${c.location}\`: ${rule(c.rule)} (${c.surfaces.join(", ")})`, ...c.effects.map((e) => `  - ${CATEGORY_WORDS[e.category]}, ${SEVERITY_WORDS[e.severity]}: ${e.message}`)].join("\n");
  const listed = (list: readonly Change[], item: (c: Change) => string) => bySubject(list).flatMap(([heading, some]) => [`#### ${heading}`, some.map(item).join("\n")]);
  const blocks = [`## ACP schema ${v.title}`, scopeLine(report), summaryLines(s, v).map((l) => (l.startsWith(" ") ? `  - ${l.trim()}` : `- ${l}`)).join("\n"), "### Breaking"];
  blocks.push(...(s.breaking.length ? listed(s.breaking, entry) : ["Nothing breaks."]));
  if (s.newChanges.length) {
    const summary = `${plural(s.newMethods, "new method")}, ${plural(s.newTypes, "new type")}`;
    blocks.push("### New", `<details><summary>${summary}</summary>`, ...listed(s.newChanges, (c) => `- \`${c.location}\` (${c.surfaces.join(", ")}): ${wireMessage(c)}`), "</details>");
  }
  if (s.other.length) {
    blocks.push("### Other", `<details><summary>${plural(s.other.length, "other change")} (${severityCounts(s.other)})</summary>`, ...listed(s.other, entry), "</details>");
  }
  const used = [...new Set([...s.breaking, ...s.other].map((c) => c.rule))].sort();
  if (used.length) {
    blocks.push(
      "<details><summary>What the rule ids mean</summary>",
      used.map((id) => `- <a id="${anchor(id)}"></a>\`${id}\` (${RULE_WORDS[id]}): ${RULES[id]}`).join("\n"),
      `${!v.known ? "" : `OLD is ${v.old} and NEW is ${v.new} (their peers, writers, readers and code). `}Wire: peers on the two versions exchange messages. API: code written against the bindings generated from OLD. *breaks*: a mixed deployment misbehaves or code no longer compiles; *warning*: it works or compiles but behaves differently; *note*: nothing to do.`,
      "</details>",
    );
  }
  return `${blocks.join("\n\n")}\n`;
}

function bySubject(changes: readonly Change[]): [string, Change[]][] {
  const groups: [string, Change[]][] = [
    ["Methods", changes.filter((c) => c.subject === "method")],
    ["Types and messages", changes.filter((c) => c.subject === "type")],
  ];
  return groups.filter(([, list]) => list.length > 0);
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
