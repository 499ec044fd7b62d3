// How the service process loads its TypeScript: `node --import ./src/boot/ts-loader.mjs src/main.ts`
// (npm start). Each .ts file is transpiled by esbuild as it is imported, with no build step to
// forget and no dist/ folder to keep in step. tsx would do the same, but it always compiles with
// keepNames, which wraps every function created at run time in a name-setting call; on the
// request path that cost about a tenth of the text model's time. Scripts (modctl, training,
// benchmarks) still use tsx. Worker threads inherit this flag, so they load the same way.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
// Lets a worker's plain-JS entry know that it may import .ts files directly.
globalThis[Symbol.for("moderation.ts-loader")] = true;
// Stack traces point at the TypeScript lines (the hooks emit inline source maps).
process.setSourceMapsEnabled(true);
