// Module hooks for ts-loader.mjs (they run on Node's loader thread).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

/** Sources import each other as "./x.js" (what the compiled file would be called): try x.ts. */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (error?.code !== "ERR_MODULE_NOT_FOUND" || !relative || !specifier.endsWith(".js") || !context.parentURL) throw error;
    const candidate = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (!existsSync(fileURLToPath(candidate))) throw error;
    return { url: candidate.href, format: "module", shortCircuit: true };
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, "utf8"), {
    loader: "ts",
    format: "esm",
    target: `node${process.versions.node}`,
    sourcemap: "inline",
    sourcefile: path,
  });
  return { format: "module", source: code, shortCircuit: true };
}
