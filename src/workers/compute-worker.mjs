// Entry of a compute worker thread. Plain JavaScript so that it starts the same whether or not
// the parent runs under a TypeScript loader (npm start does; vitest's workers do not): it loads
// the TypeScript job runner through tsx's own API.
import { tsImport } from "tsx/esm/api";

await tsImport("./compute-worker-main.ts", import.meta.url);
