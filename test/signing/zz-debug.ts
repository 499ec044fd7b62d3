import { startTestServer } from "/work/main/test/support/test-server.js";
import { mkdtempSync } from "node:fs";
const dataDir = mkdtempSync("/tmp/rotdbg-");
for (let i = 0; i < 2; i++) {
  let t = Date.now();
  const server = await startTestServer({ env: { DATA_DIR: dataDir } });
  console.log("start", Date.now() - t); t = Date.now();
  const k = (await server.createAccount("pro")).key;
  console.log("account", Date.now() - t); t = Date.now();
  const r = await fetch(`${server.httpUrl}/.well-known/jwks.json`); await r.text();
  console.log("fetch", Date.now() - t); t = Date.now();
  await server.close();
  console.log("close", Date.now() - t);
}
