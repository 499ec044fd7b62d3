import { createPublicKey } from "node:crypto";
import { writeFileSync } from "node:fs";
import { printJson } from "../output.js";
import { parseArgs } from "node:util";
import { readConfig } from "../../config/config.js";
import { ApiError } from "../../errors/api-error.js";
import { hasKeyStore, readKeyManifest, refuseUnpublishedKeys, retireDataDirKey, rotateDataDirKey } from "../../signing/data-dir-key-store.js";
import { generateEd25519KeyPair, publicKeyPem, toPublicJwk } from "../../signing/ed25519-keys.js";
import { toJwk } from "../../signing/key-ring.js";
import { loadSigningKeyRing } from "../../signing/load-key-ring.js";
import { UsageError } from "../usage-error.js";

const USAGE = `usage: modctl signing list | rotate | retire [--force] KID | generate --out FILE
  list      the published keys (active first) as a JWKS, with each key's SPKI PEM
  rotate    DATA_DIR store: new active key; the old one stays published as "retiring"
  retire    DATA_DIR store: stop publishing a retiring key (refused while a server still signs with it, unless --force)
  generate  write a new PKCS#8 Ed25519 private key (mode 0600) for SIGNING_KEY_FILE`;

/** modctl signing list|rotate|retire|generate. Running servers publish changes at once and sign with a new key once restarted. */
export async function runSigningCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = args;
  const print = printJson;

  if (sub === "generate") {
    const { values } = parseArgs({ args: rest, options: { out: { type: "string" } } });
    if (!values.out) throw new UsageError("signing generate needs --out FILE");
    // "-" is stdout by habit: it made a key file named "-" here (audit, session 52). A private key
    // goes to a file of mode 0600, never to a terminal or a pipe's logs.
    if (values.out === "-") throw new UsageError("signing generate writes the private key to a file (mode 0600), never to stdout: give --out a file path");
    const { privateKey, privateKeyPem } = generateEd25519KeyPair();
    try {
      writeFileSync(values.out, privateKeyPem, { mode: 0o600, flag: "wx" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(code === "EEXIST" ? `${values.out} exists; refusing to overwrite a key` : `cannot write ${values.out} (${code ?? "error"})`);
    }
    // Only the public half is printed; the private key goes to the file alone.
    print({ file: values.out, kid: toPublicJwk(privateKey).kid, publicKeyPem: publicKeyPem(privateKey) });
    return 0;
  }

  const config = readConfig(env).signing;
  if (sub === "list") {
    parseArgs({ args: rest, options: {} });
    // Listing reads: a DATA_DIR without a key store yet gets none made (the server makes it).
    if (config.source === "data-dir" && !hasKeyStore(config.dir)) {
      refuseUnpublishedKeys(config.dir);
      print({ source: config.dir, keys: [], note: "no key store here yet: the server creates one when it first starts" });
      return 0;
    }
    const keys = loadSigningKeyRing(config, { signs: false }).publishedKeys;
    print({
      source: config.source === "data-dir" ? config.dir : "SIGNING_KEY_FILE / SIGNING_KEY",
      // Each key's SPKI PEM, from its JWK: what signing.md asks an operator to keep during a rotation.
      keys: keys.map((k) => ({ ...toJwk(k), publicKeyPem: publicKeyPem(createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: k.x }, format: "jwk" })) })),
    });
    return 0;
  }
  if (sub === "rotate" || sub === "retire") {
    if (config.source !== "data-dir") {
      // The configuration says where keys come from: a command that needs the other source is exit 2.
      throw new UsageError(
        sub === "rotate"
          ? "signing keys come from SIGNING_KEY_FILE / SIGNING_KEY: rotate in three restarts (docs/signing.md#rotation): publish a new key (modctl signing generate) in SIGNING_NEXT_KEYS_FILE, then point SIGNING_KEY_FILE at it with the old public key in SIGNING_RETIRING_KEYS_FILE, then drop the old one"
          : "signing keys come from SIGNING_KEY_FILE / SIGNING_KEY: retire a key by removing its public key from SIGNING_RETIRING_KEYS_FILE",
      );
    }
    if (sub === "rotate") {
      parseArgs({ args: rest, options: {} });
      print({ ...rotateDataDirKey(config.dir), note: "running servers publish the new key now; restart each to sign with it" });
      return 0;
    }
    // A kid is a base64url thumbprint and may start with "-", so it is taken as is, not parsed
    // as an option ("--" before it is accepted too). No kid is 7 characters long, so none is "--force".
    // modctl's main joins "--force -5abc" into "--force=-5abc" (a negative number, it thinks).
    const end = rest.indexOf("--");
    const options = (end === -1 ? rest : rest.slice(0, end)).flatMap((arg) => (arg.startsWith("--force=") ? ["--force", arg.slice(8)] : [arg]));
    const force = options.includes("--force");
    const kids = [...options.filter((arg) => arg !== "--force"), ...(end === -1 ? [] : rest.slice(end + 1))];
    if (kids.length !== 1 || !kids[0]) throw new UsageError("signing retire needs exactly one KID");
    // An unknown kid is a not_found like the API's (exit 1, JSON), not a bare message.
    if (hasKeyStore(config.dir) && !readKeyManifest(config.dir).keys.some((k) => k.kid === kids[0])) throw new ApiError("not_found", `No published signing key has kid "${kids[0]}".`);
    const { stillSigning } = retireDataDirKey(config.dir, kids[0], { force });
    print({
      retired: kids[0],
      note:
        stillSigning.length === 0
          ? "running servers stop publishing it now"
          : `forced: ${stillSigning.length} server(s) still sign with it and publish it themselves, but the others no longer do; restart them now`,
    });
    return 0;
  }
  throw new UsageError(USAGE);
}
