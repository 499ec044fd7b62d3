// Entry of a compute worker thread. Plain JavaScript, so that it starts whatever loads the
// parent's TypeScript: under npm start the worker inherits src/boot/ts-loader.mjs and imports
// the runner directly; elsewhere (vitest's workers have no TypeScript loader) it goes through
// tsx's API.
if (globalThis[Symbol.for("moderation.ts-loader")]) {
  await import("./compute-worker-main.js");
} else {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport("./compute-worker-main.ts", import.meta.url);
}
