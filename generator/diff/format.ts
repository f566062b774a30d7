/**
 * Renders a diff report: text for people, JSON for tools, Markdown for a
 * changelog. Every format lists the same findings in the same order.
 */
import type { DiffReport } from "./diff.js";
import type { Finding, Severity } from "./findings.js";

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

function summaryLine(findings: readonly Finding[]): string {
  const c = countBySeverity(findings);
  return `${findings.length} finding(s): ${c.error} error(s), ${c.warn} warning(s), ${c.info} info`;
}

function bySurface(report: DiffReport): [string, Finding[]][] {
  return report.surfaces.map((s) => [s.surface, report.findings.filter((f) => f.surface === s.surface)]);
}

function formatText(report: DiffReport): string {
  const lines = [`acp-codegen diff ${report.old} -> ${report.new}`];
  for (const [surface, findings] of bySurface(report)) {
    lines.push("", `${surface}: ${summaryLine(findings)}`);
    for (const f of findings) lines.push(`  ${f.severity.padEnd(5)} ${f.category.padEnd(4)} ${f.rule}  ${f.location}: ${f.message}`);
  }
  lines.push("", summaryLine(report.findings));
  return `${lines.join("\n")}\n`;
}

function toJson(report: DiffReport) {
  return {
    old: report.old,
    new: report.new,
    surfaces: report.surfaces,
    summary: countBySeverity(report.findings),
    findings: report.findings,
  };
}

function formatMarkdown(report: DiffReport): string {
  const lines = [`## Schema changes: \`${report.old}\` → \`${report.new}\``, "", summaryLine(report.findings)];
  for (const [surface, findings] of bySurface(report)) {
    lines.push("", `### ${surface}`, "");
    if (findings.length === 0) {
      lines.push("No changes.");
      continue;
    }
    lines.push("| Severity | Category | Rule | Where | What |", "| --- | --- | --- | --- | --- |");
    for (const f of findings) lines.push(`| ${f.severity} | ${f.category} | \`${f.rule}\` | \`${cell(f.location)}\` | ${cell(f.message)} |`);
  }
  return `${lines.join("\n")}\n`;
}

/** Table cell text: pipes escaped, line breaks flattened. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
