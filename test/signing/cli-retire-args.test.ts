import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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
    openDataDirKeyRing(signingDir);
    await expect(runSigningCommand(["retire", "-notAKid"], env)).rejects.toThrow("no published key has kid -notAKid");
    await expect(runSigningCommand(["retire", "--", "-notAKid"], env)).rejects.toThrow("no published key has kid -notAKid");
  });

  it("retires a rotated-out key by its kid", async () => {
    const { retiringKid } = rotateDataDirKey(signingDir);
    expect(await runSigningCommand(["retire", retiringKid], env)).toBe(0);
    expect(openDataDirKeyRing(signingDir).publishedKeys.map((k) => k.kid)).not.toContain(retiringKid);
  });
});
