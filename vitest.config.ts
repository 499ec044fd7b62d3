import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Fails the run at once, with what to do, when PostgreSQL or Redis cannot be reached.
    globalSetup: ["test/support/check-services.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files start real servers; two at a time matches the machine's two cores.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
