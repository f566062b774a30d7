/**
 * A conductor on stdio: spawns each argument (a command, split on spaces) as a
 * child process, the last one the agent and the others proxies in order, and
 * serves the chain to its own client as one agent.
 *
 *   npx tsx examples/chain.ts "npx tsx examples/note-proxy.ts A" "npx tsx examples/v2-agent.ts"
 */
import { spawn } from "node:child_process";
import { conduct, ndJsonStream, type Transport } from "acp-bindings/v2/unstable";

const commands = process.argv.slice(2).map((command) => command.split(" ").filter((word) => word !== ""));
if (commands.length === 0) {
  process.stderr.write("usage: chain.ts \"proxy command\"... \"agent command\"\n");
  process.exit(2);
}
const children = commands.map(([program, ...args]) => spawn(program!, args, { stdio: ["pipe", "pipe", "inherit"] }));
const transports: Transport[] = children.map((child) => ndJsonStream({ readable: child.stdout, writable: child.stdin }));
const conductor = conduct(ndJsonStream({ readable: process.stdin, writable: process.stdout }), transports.slice(0, -1), transports.at(-1)!, {
  onError: (error) => process.stderr.write(`chain: ${error.message}\n`),
});
await conductor.closed;
for (const child of children) child.kill();
process.exit(0);
