import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspaces' package exports name their compiled dist/ (for plain node in production); the
  // tests run the TypeScript sources, through the paths of tsconfig.json as tsc and tsx do.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Every answer a test gets through supertest is checked against /openapi.json.
    setupFiles: ['test/support/validate-answers.ts'],
    pool: 'forks',
    // Two files at once on a 2-core machine: most of a file's time is waiting on PostgreSQL, Redis,
    // child processes and gateways, not CPU. Measured on the full suite (1,355 tests, every file with
    // its own database and queue prefix): one fork 470-479 s, two forks 394 s and 417 s, all green.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
