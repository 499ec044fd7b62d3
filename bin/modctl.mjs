#!/usr/bin/env node
// modctl runs the TypeScript sources through tsx, so there is no build step to forget.
import { register } from "tsx/esm/api";

register();
const { runModctl } = await import("../src/cli/main.ts");
process.exitCode = await runModctl(process.argv.slice(2));
