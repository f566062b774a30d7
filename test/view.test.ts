/**
 * `acp-bindings view` in headless Chromium (Debian's `chromium`, installed by
 * the set-up when missing; the test fails saying why when it cannot be had),
 * driven with `puppeteer-core`. A session is recorded with `record` between
 * our example client and agent, two bad lines are appended, and the page is
 * read back from the DOM: transcript, tool call states, permission choice,
 * marked findings, keyboard navigation. A 20,000-message trace renders (the
 * time it took is printed, not asserted). Screenshots go to test/output/.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptJson } from "../generated/src/runtime/view.js";
import { ensureDebianPackage } from "./support/system-packages.js";
import { tempDir } from "./support/temp-dirs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUTPUT = join(ROOT, "test/output");
const BIN = "generated/src/bin/acp-bindings.ts";
const WAIT_MS = 120_000;

let browser: Browser;
let dir: string;

/** Runs the bin (as `npx acp-bindings` would, from the sources) in the repository root. */
function bin(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  const chromium = ensureDebianPackage("chromium", "chromium");
  browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-dev-shm-usage"] });
  mkdirSync(OUTPUT, { recursive: true });
  dir = tempDir("view");
}, 900_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(html: string): Promise<{ page: Page; ms: number }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("request", (request) => {
    if (!request.url().startsWith("file:")) errors.push(`network request ${request.url()}`);
  });
  const started = performance.now();
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT_MS });
  const ms = performance.now() - started;
  expect(errors).toEqual([]);
  return { page, ms };
}

const texts = (page: Page, selector: string) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent ?? ""));
const selectedLine = (page: Page) => page.$eval("tr.message.selected", (tr) => Number(tr.getAttribute("data-line")));

describe("acp-bindings view", () => {
  it("shows a recorded session's transcript, tool calls, permission and marked findings; keys navigate", async () => {
    const trace = join(dir, "session.ndjson");
    const recorded = spawnSync("npx", ["tsx", "examples/v2-client.ts", process.execPath, "--import", "tsx", BIN, "record", "--out", trace, "--", process.execPath, "--import", "tsx", "examples/v2-agent.ts"], { cwd: ROOT, encoding: "utf8" });
    expect(recorded.status, recorded.stderr).toBe(0);
    const t = Date.now();
    const bad = [
      { t, dir: "agent->client", line: JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }) },
      { t, dir: "agent->client", line: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"session-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"late-1","content":{"type":"text","text":"</script><b>not markup</b>"}}}}' },
    ];
    appendFileSync(trace, bad.map((b) => `${JSON.stringify(b)}\n`).join(""));
    const lines = readFileSync(trace, "utf8").trimEnd().split("\n").length;
    const html = join(dir, "session.html");
    const viewed = bin(["view", trace, "-o", html]);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).not.toContain("</script><b>");

    const { page } = await open(html);
    const transcript = await texts(page, "section.session[data-session=session-1] ol.transcript li");
    expect(transcript.slice(0, 5)).toEqual(["User:hello agent", "Thought:Planning the answer.", "Plan:Read the prompt [completed]", "Tool call:Read the prompt (completed)", "Agent:You said: hello agent"]);
    expect(transcript).toContain("User:a long task");
    expect(transcript.some((entry) => entry.includes("</script><b>not markup</b>"))).toBe(true);
    expect(await page.$$("b")).toHaveLength(0);
    expect(await page.$$eval("tr.tool-call", (rows) => rows.map((r) => r.getAttribute("data-status")))).toEqual(["completed"]);
    expect(await texts(page, "tr.permission td.chosen")).toEqual(["Allow"]);
    const findings = await texts(page, "#findings li");
    expect(findings.some((f) => f.startsWith(`line ${lines - 1} protocol /id: response to no request`))).toBe(true);
    expect(findings.some((f) => f.startsWith(`line ${lines} protocol /params/update: agent_message_chunk after the prompt`))).toBe(true);
    expect(await page.$eval(`tr.message[data-line="${lines - 1}"]`, (tr) => tr.classList.contains("bad"))).toBe(true);
    expect(await texts(page, "tr.turn td:nth-child(4)")).toEqual(["end_turn", "cancelled"]);

    await page.keyboard.press("j");
    expect(await selectedLine(page)).toBe(2);
    await page.keyboard.press("j");
    expect(await selectedLine(page)).toBe(3);
    await page.keyboard.press("k");
    expect(await selectedLine(page)).toBe(2);
    await page.keyboard.press("Enter");
    expect(await texts(page, "tr.detail pre")).toEqual([expect.stringContaining('"method": "initialize"')]);
    await page.keyboard.press("]");
    expect(await selectedLine(page)).toBe(lines - 1);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-line"))).toBe(String(lines - 1));
    await page.select("#filter-method", "session/prompt");
    expect(await page.$$eval("tr.message", (rows) => rows.map((r) => r.children[4]!.textContent))).toEqual(["session/prompt", "session/prompt"]);
    await page.screenshot({ path: join(OUTPUT, "view-session.png"), fullPage: true });
    process.stdout.write(`screenshot: ${join(OUTPUT, "view-session.png")}\n`);
    await page.close();
  }, 180_000);

  it("renders a 20,000-message trace, paged", async () => {
    const trace = join(dir, "big.ndjson");
    const t = 1_700_000_000_000;
    const line = (n: number, dir: string, message: unknown) => JSON.stringify({ t: t + n, dir, line: JSON.stringify(message) });
    const out = [
      line(0, "client->agent", { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2, info: { name: "c", version: "1" } } }),
      line(1, "agent->client", { jsonrpc: "2.0", id: 1, result: { protocolVersion: 2, info: { name: "a", version: "1" } } }),
      line(2, "client->agent", { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/" } }),
      line(3, "agent->client", { jsonrpc: "2.0", id: 2, result: { sessionId: "s" } }),
    ];
    for (let i = 0; out.length < 20_000; i++) {
      out.push(line(4 + i, "agent->client", { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: `m${i % 500}`, content: { type: "text", text: `chunk ${i} ` } } } }));
    }
    writeFileSync(trace, `${out.join("\n")}\n`);
    const html = join(dir, "big.html");
    const started = performance.now();
    const viewed = bin(["view", trace, "-o", html]);
    const built = performance.now() - started;
    expect(viewed.code, viewed.stderr).toBe(0);
    const { page, ms } = await open(html);
    process.stdout.write(`20,000-message trace: page built in ${built.toFixed(0)} ms (bin), rendered in ${ms.toFixed(0)} ms\n`);
    expect(await page.$eval("#pager", (p) => p.textContent)).toBe("Page 1 of 200 (20000 messages)");
    expect(await page.$$("tr.message")).toHaveLength(100);
    await page.keyboard.press("n");
    expect(await page.$eval("#pager", (p) => p.textContent)).toContain("Page 2 of 200");
    expect(await selectedLine(page)).toBe(101);
    await page.screenshot({ path: join(OUTPUT, "view-20000.png") });
    await page.close();
  }, 300_000);

  it("puts wire text in the page as JSON that cannot close its script element", () => {
    const json = scriptJson({ text: "</script><!-- \u2028" });
    expect(json).not.toMatch(/[<>\u2028]/);
    expect(JSON.parse(json)).toEqual({ text: "</script><!-- \u2028" });
  });
});
