/**
 * The real components some tests need (issue 35: a browser, a load balancer),
 * installed from Debian's packages by the test set-up itself, so that a fresh
 * machine and CI get them. A test that cannot have its component fails with
 * a message saying why; it never passes silently.
 */
import { execFileSync, spawnSync } from "node:child_process";

/** The path of `binary`, or undefined when it is not on the PATH. */
function which(binary: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${binary}`], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path !== "" ? path : undefined;
}

/**
 * The path of `binary`, installing Debian's package `pkg` first when it is
 * missing (`apt-get update` and `apt-get install -y`, as root). Throws an
 * error naming the package and what failed when it cannot be had. Installing
 * takes minutes on a fresh machine: call it from a hook with a long timeout.
 */
export function ensureDebianPackage(pkg: string, binary: string): string {
  const present = which(binary);
  if (present !== undefined) return present;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    execFileSync("apt-get", ["update", "-qq"], { env, stdio: "pipe", timeout: 600_000 });
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", pkg], { env, stdio: "pipe", timeout: 900_000 });
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
    throw new Error(`this test needs Debian's package ${pkg} (for ${binary}) and could not install it: ${detail}`);
  }
  const installed = which(binary);
  if (installed === undefined) throw new Error(`Debian's package ${pkg} was installed but ${binary} is not on the PATH`);
  return installed;
}
