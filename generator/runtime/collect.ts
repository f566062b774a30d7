import type { Issue } from "./result.js";

/**
 * How many of a union's alternatives hold, each asked through its all-issues
 * collector (an alternative holds when it collects no issue). The collectors
 * of `validate.X(value, { all: true })` decide unions this way, so that they
 * need none of the fast checks (validators.ts keeps those in their own module).
 */
export function holding(alternatives: readonly ((into: Issue[]) => void)[]): number {
  let n = 0;
  for (const collect of alternatives) {
    const found: Issue[] = [];
    collect(found);
    if (found.length === 0) n++;
  }
  return n;
}
