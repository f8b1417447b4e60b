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
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
