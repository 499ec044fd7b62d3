import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { runSigningCommand } from "../../src/cli/commands/signing.js";
import { openDataDirKeyRing, rotateDataDirKey } from "../../src/signing/data-dir-key-store.js";

// Key ids are base64url JWK thumbprints, so about one in 32 starts with "-": the CLI must not
// read such a kid as an option (CI once failed exactly that way).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "signing-cli-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };
const signingDir = path.join(dataDir, "signing");

describe("modctl signing retire KID", () => {
  it("takes a kid that starts with '-' as the kid, not as an option", async () => {
    // Opened as a reader: a ring opened to sign would keep its kid from being retired below.
    openDataDirKeyRing(signingDir, { signs: false });
    await expect(runSigningCommand(["retire", "-notAKid"], env)).rejects.toThrow('No published signing key has kid "-notAKid".');
    await expect(runSigningCommand(["retire", "--", "-notAKid"], env)).rejects.toThrow('No published signing key has kid "-notAKid".');
  });

  it("retires a rotated-out key by its kid", async () => {
    const { retiringKid } = rotateDataDirKey(signingDir);
    expect(await runSigningCommand(["retire", retiringKid], env)).toBe(0);
    expect(openDataDirKeyRing(signingDir, { signs: false }).publishedKeys.map((k) => k.kid)).not.toContain(retiringKid);
  });
});

describe("modctl signing retire while a server still signs with the key", () => {
  /** A server's key ring in another process, on the shared store; resolves once it has opened it. */
  async function otherServer(): Promise<ChildProcess> {
    const script = `import { openDataDirKeyRing } from ${JSON.stringify(path.join(process.cwd(), "src/signing/data-dir-key-store.ts"))};
      openDataDirKeyRing(${JSON.stringify(signingDir)}); process.stdout.write("open"); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      child.once("exit", (code) => reject(new Error(`the key ring process exited ${code}`)));
    });
    return child;
  }
  const killed = (child: ChildProcess) => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGKILL")));

  it("refuses, naming the process, until that process is gone", async () => {
    const server = await otherServer();
    const { retiringKid } = rotateDataDirKey(signingDir);
    try {
      await expect(runSigningCommand(["retire", retiringKid], env)).rejects.toThrow(
        `key ${retiringKid} still signs on 1 running server(s) (${os.hostname()} pid ${server.pid})`,
      );
      expect(openDataDirKeyRing(signingDir, { signs: false }).publishedKeys.map((k) => k.kid)).toContain(retiringKid);
    } finally {
      // Killed without a word (SIGKILL): its file stays, but its pid no longer runs on this host.
      await killed(server);
    }
    expect(await runSigningCommand(["retire", retiringKid], env)).toBe(0);
  }, 30_000);

  it("retires it anyway with --force, before or after the kid", async () => {
    for (const args of [["--force"], ["KID", "--force"]]) {
      const server = await otherServer();
      const { retiringKid } = rotateDataDirKey(signingDir);
      try {
        const line = args.map((arg) => (arg === "KID" ? retiringKid : arg));
        expect(await runSigningCommand(["retire", ...line, ...(line.includes(retiringKid) ? [] : [retiringKid])], env)).toBe(0);
        expect(openDataDirKeyRing(signingDir, { signs: false }).publishedKeys.map((k) => k.kid)).not.toContain(retiringKid);
      } finally {
        await killed(server);
      }
    }
  }, 30_000);
});

describe("modctl signing list", () => {
  /** What `list` printed, parsed. */
  async function list(listEnv: Record<string, string>): Promise<{ keys: { kid: string; publicKeyPem?: string }[]; note?: string }> {
    const writes: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      expect(await runSigningCommand(["list"], listEnv)).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    return JSON.parse(writes.join(""));
  }

  it("makes no key store where there is none", async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "signing-list-"));
    try {
      expect(await list({ DATA_DIR: empty, LOG_LEVEL: "silent" })).toMatchObject({ keys: [], note: expect.stringContaining("no key store") });
      expect(fs.existsSync(path.join(empty, "signing"))).toBe(false);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("prints each key's public PEM, for SIGNING_KEY_FILE too", async () => {
    const file = path.join(dataDir, "key.pem");
    await runSigningCommand(["generate", "--out", file], env).catch(() => undefined);
    const printed = await list({ SIGNING_KEY_FILE: file, DATA_DIR: dataDir, LOG_LEVEL: "silent" });
    expect(printed.keys).toHaveLength(1);
    expect(printed.keys[0]!.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const stored = await list(env);
    expect(stored.keys.every((k) => k.publicKeyPem?.startsWith("-----BEGIN PUBLIC KEY-----"))).toBe(true);
  });
});

// Found by an audit (session 52): "--out -" wrote the private key to a file named "-".
it("refuses to write a generated private key to '-' (stdout by habit), writing nothing", async () => {
  const cwd = process.cwd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "signing-generate-"));
  process.chdir(dir);
  try {
    await expect(runSigningCommand(["generate", "--out", "-"], { DATA_DIR: dir, LOG_LEVEL: "silent" })).rejects.toThrow(/never to stdout/);
    expect(fs.existsSync(path.join(dir, "-"))).toBe(false);
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
