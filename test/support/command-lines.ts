/**
 * Command lines run as a user types them, in the repository root, for the
 * tests that run the README's programs over child processes (the stdio
 * interop test, the version negotiation matrix).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterEach } from "vitest";

const ROOT = new URL("../..", import.meta.url);

/** Runs a command line to its end; its exit code and output. */
export function runCommandLine(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: ROOT, shell: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A starter of command lines whose stdio carries ACP: each started child has
 * its stdin ended after the test that started it (registered as an `afterEach`
 * of the calling test file).
 */
export function commandLineStarter(): (command: string) => ChildProcessWithoutNullStreams {
  const children: ChildProcessWithoutNullStreams[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.stdin.end();
  });
  return (command) => {
    const child = spawn(command, { cwd: ROOT, shell: true });
    children.push(child);
    return child;
  };
}
