/**
 * The client side of the idle-connection memory measurement of
 * bench/remote.bench.ts, run in a fresh process with an IPC channel:
 *
 *   node --import tsx --expose-gc bench/remote/idle.ts ours|sdk http|ws <url> <count> <sdk-fold>
 *
 * Opens one warm-up connection (so that every module and code path is loaded
 * before the baseline), sends `{ type: "baseline", heap, rss, external }`
 * after a full GC; on `{ type: "open" }` opens `count` more connections one
 * after another, each initialized with one session made and one
 * `session/set_config_option` answered in it (over HTTP the session's event
 * stream is then open), and sends `{ type: "after", ... }` after a full GC.
 * The connections stay open until the process is ended.
 */
import { gc } from "../harness.js";
import { remoteClient, type RemoteClient, type SdkFoldName, type Side, type Wire } from "./clients.js";

const [side, wire, url, countText, fold] = process.argv.slice(2) as [Side, Wire, string, string, SdkFoldName];
const count = Number(countText);
const held: RemoteClient[] = [];

/** The process's memory after a full GC (twice: weak callbacks and finalizers of the first run too). */
async function memory(type: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { heapUsed, rss, external } = process.memoryUsage();
  process.send!({ type, heap: heapUsed, rss, external });
}

held.push(await remoteClient(side, wire, url, fold));
await memory("baseline");
process.on("message", (message: { type: string }) => {
  if (message.type !== "open") return;
  void (async () => {
    for (let i = 0; i < count; i++) held.push(await remoteClient(side, wire, url, fold));
    await memory("after");
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
process.on("disconnect", () => process.exit(0));
