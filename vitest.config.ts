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
    // Test files share each worker's module cache rather than importing the service afresh: on
    // this 2-core machine the whole suite took 540 s isolated and 435 s shared (importing was
    // most of the difference; a subset of 33 files, 23 s -> 10 s). No test mocks modules; the few
    // that fake timers or set TZ put them back when done.
    isolate: false,
  },
});
