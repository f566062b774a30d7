/**
 * Pieces the benches share: quantiles of sample times, the optional GC
 * (`--expose-gc`), and a measurement run in a fresh process of the same
 * script (as JMH forks per benchmark: one part's type feedback never shapes
 * the code another part runs), with the `--processes` option saying how many.
 */
import { fork } from "node:child_process";

/** The `q` quantile of `sorted` (ascending), interpolated between neighbours. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The median of `times` (any order). */
export function median(times: readonly number[]): number {
  return quantile([...times].sort((a, b) => a - b), 0.5);
}

/** A full GC when the process runs with `--expose-gc`; nothing otherwise. */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs `script` in a fresh process with this process's flags (tsx's loader,
 * `--expose-gc`) and arguments plus `args`, and resolves with the one message it sends back (`process.send`);
 * rejects, naming `label`, when it exits otherwise.
 */
export function inFreshProcess<T>(script: string, args: readonly string[], label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [...process.argv.slice(2), ...args], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result: T | undefined;
    child.on("message", (message) => (result = message as T));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 && result !== undefined ? resolve(result) : reject(new Error(`${label}: its process exited with ${code}`))));
  });
}

/** The `--processes N` option (how many fresh processes measure each part), `fallback` when absent; throws unless a whole number of at least 1. */
export function processesArg(fallback: number): number {
  const i = process.argv.indexOf("--processes");
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--processes takes a whole number of at least 1, not ${JSON.stringify(process.argv[i + 1] ?? "")}`);
  return n;
}
