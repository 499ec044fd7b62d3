/**
 * modctl's one way to print a result, and what happens when stdout cannot take it. A secret
 * (a new API key, invite codes) is printed once, after it is stored: when stdout failed (a full
 * disk, a pipe closed early: `modctl key create ... | true`) modctl died on an unhandled EPIPE or
 * ENOSPC with a stack trace, the key live and its secret gone. Now it exits 1 with a `modctl:` line
 * that says the change was made and names what to revoke.
 */
let lastPrinted: unknown;
let failure: NodeJS.ErrnoException | undefined;

/** Writes `value` as indented JSON to stdout. */
export function printJson(value: unknown): void {
  lastPrinted = value;
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Call once, before any command prints: stdout's write errors are kept, not thrown as an unhandled 'error'. */
export function watchStdout(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    failure ??= error;
  });
}

/** After a command: waits for stdout to take what was printed, and says what was lost if it did not. */
export async function outputLost(): Promise<string | undefined> {
  if (!failure && !process.stdout.destroyed) await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  if (!failure) return undefined;
  return `could not write the result to stdout (${failure.code ?? failure.message}), but the command was carried out${lostSecrets(lastPrinted)}`;
}

/** What a caller must undo when the secrets in `value` were never seen: a new key's id, or invites' count. */
function lostSecrets(value: unknown): string {
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "object" && v !== null && "code" in v)) {
    return `: ${value.length} invite code(s) were made that no one has seen; they expire unused`;
  }
  if (typeof value === "object" && value !== null && "key" in value && "id" in value) {
    const id = String((value as { id: unknown }).id);
    return `: the new API key ${id} is live and its secret was not shown; revoke it (modctl key revoke ${id}) and create another`;
  }
  return "";
}
