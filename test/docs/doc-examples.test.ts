import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";

const run = promisify(execFile);
const REPO = process.cwd();
const DOCS = ["README.md", ...fs.readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), "bench/RESULTS.md"];

/**
 * Code blocks that another test or script runs as written, by the file and first line of the
 * block. Every other sh, js or ts block in the docs is run here, against a real server.
 */
const RUN_ELSEWHERE: Record<string, string> = {
  "README.md: npm install && npm start    # install, then start on embedded defaults (SQLite under ./data, in-process limits)":
    "npm start: test/edge/graceful-shutdown.test.ts; npm test: .ci/run",
  "docs/signing.md: npx modctl signing rotate    # new active key; the old one becomes \"retiring\" (its private key is deleted)":
    "test/signing/e2e-rotation.test.ts runs modctl signing rotate, list and retire",
  "docs/signing.md: # verify-moderation-response.sh REQ.json JWKS_URL HEADERS.txt BODY.bin [ROUTE [ACCOUNT]]":
    "test/signing/readme-procedure.test.ts runs this script",
};
const RUNNABLE = new Set(["sh", "js", "ts"]);

interface Block { file: string; line: number; lang: string; code: string }

function codeBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  const lines = fs.readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^\s*```\s*$/.test(lines[i]!)) body.push(lines[i]!);
    blocks.push({ file, line: start + 1, lang: open[1]!, code: body.join("\n") });
  }
  return blocks;
}

const blocks = DOCS.flatMap(codeBlocks).filter((b) => RUNNABLE.has(b.lang));
const keyOf = (b: Block) => `${b.file}: ${b.code.split("\n")[0]!.trim()}`;
const toRun = blocks.filter((b) => !(keyOf(b) in RUN_ELSEWHERE));

let server: TestServer;
let key: string;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  key = (await server.createAccount("enterprise", 100_000)).key;
  work = fs.mkdtempSync(path.join(os.tmpdir(), "doc-examples-"));
  // `modctl` as an installed command: the checkout's bin/modctl.mjs.
  fs.mkdirSync(path.join(work, "bin"));
  fs.writeFileSync(path.join(work, "bin", "modctl"), `#!/bin/sh\nexec "${process.execPath}" "${REPO}/bin/modctl.mjs" "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(work, "req.json"), JSON.stringify({ input: [{ type: "text", text: "a request from the docs" }] }));
  env = {
    ...(process.env as Record<string, string>), ...server.env,
    PATH: `${path.join(work, "bin")}:${process.env.PATH}`, KEY: key, NEW_PASSWORD: "a documented new password",
  };
});
afterAll(async () => {
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The docs say localhost:8080 / :8081; the test server listens on ports of its own. */
function pointAtServer(code: string): string {
  const http = new URL(server.httpUrl);
  const grpc = new URL(server.grpcUrl);
  return code.replaceAll("localhost:8080", http.host).replaceAll("localhost:8081", grpc.host);
}

/** Shell lines, continuations joined; placeholders get the ids the block's earlier commands printed. */
async function runShell(block: Block, index: number): Promise<void> {
  const commands = block.code.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  const ids: Record<string, string> = {};
  for (const raw of commands) {
    // Trailing "# → output" comments describe the answer; they are not part of the command.
    let command = pointAtServer(raw.replace(/\s+#\s.*$/, "")).replaceAll("you@example.com", `you+${index}@example.com`);
    command = command.replace(/\b(acct|key)_…/g, (placeholder, kind: string) => {
      if (!ids[kind]) throw new Error(`${block.file}:${block.line}: "${raw}" uses ${placeholder} before any command printed one`);
      return ids[kind]!;
    });
    // `npx modctl` in the checkout resolves to bin/modctl.mjs, which the shim runs without npm's start-up.
    command = command.replaceAll("npx modctl ", "modctl ");
    const cwd = work;
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", command], { cwd, env, timeout: 60_000 }).catch((error: { code: number; stdout: string; stderr: string }) => {
      throw new Error(`${block.file}:${block.line}: "${command}" exited ${error.code}: ${error.stderr || error.stdout}`);
    });
    // An answer the docs show as a success must not be an error (curl -s exits 0 on a 4xx).
    expect(stdout, `${block.file}:${block.line}: ${command}`).not.toMatch(/^\s*\{\s*"error"/);
    for (const kind of ["acct", "key"]) {
      const printed = new RegExp(`"id":\\s*"(${kind}_[A-Za-z0-9_-]+)"`).exec(stdout);
      if (printed && !command.includes(" list")) ids[kind] = printed[1]!;
    }
    if (command.includes("modctl verify")) expect(JSON.parse(stdout)).toMatchObject({ valid: true });
  }
}

/** A JS or TS snippet as a file inside the checkout, so its imports resolve as they would for a user. */
async function runSnippet(block: Block, index: number): Promise<void> {
  const dir = path.join(REPO, "test-artifacts", "doc-examples");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `block-${index}.${block.lang === "ts" ? "ts" : "mjs"}`);
  fs.writeFileSync(file, pointAtServer(block.code).replaceAll('"./gen/', `"${REPO}/gen/`));
  const args = block.lang === "ts" ? ["--import", "tsx", file] : [file];
  const { stdout, stderr } = await run(process.execPath, args, { cwd: REPO, env, timeout: 60_000 });
  expect(stderr, `${block.file}:${block.line}`).toBe("");
  expect(stdout.trim(), `${block.file}:${block.line}`).not.toBe("");
}

describe("the docs' commands and code, run against a real server", () => {
  it("covers every sh, js and ts block: run here, or named with the test that runs it", () => {
    expect(blocks.length).toBeGreaterThan(8);
    const keys = new Set(blocks.map(keyOf));
    for (const mapped of Object.keys(RUN_ELSEWHERE)) expect(keys, `stale RUN_ELSEWHERE entry: ${mapped}`).toContain(mapped);
  });

  it.each(toRun.map((block, index) => ({ block, index, name: `${block.file}:${block.line} (${block.lang})` })))(
    "$name",
    async ({ block, index }) => {
      if (block.lang === "sh") await runShell(block, index);
      else await runSnippet(block, index);
    },
    240_000,
  );
});
