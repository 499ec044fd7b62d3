import { spawn } from "node:child_process";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/modctl.mjs as an operator would, in a clean environment, with optional stdin. */
export function modctl(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/modctl.mjs", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

/** A successful run: exit 0, one JSON document on stdout. */
export function json(run: Run): any {
  if (run.code !== 0) throw new Error(`modctl exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
