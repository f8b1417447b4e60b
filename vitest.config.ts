import { configDefaults, defineConfig } from 'vitest/config';

// Patches React-PDF, pdfkit and fontkit prototypes and checks them before and after: it needs a
// process whose render modules nobody has loaded yet.
const RENDER_INTERNALS = 'test/unit/react-pdf-internals.test.ts';

export default defineConfig({
  // The workspaces' package exports name their compiled dist/ (for plain node in production); the
  // tests run the TypeScript sources, through the paths of tsconfig.json as tsc and tsx do.
  resolve: { tsconfigPaths: true },
  test: {
    pool: 'forks',
    // Two files at once on a 2-core machine: most of a file's time is waiting on PostgreSQL, Redis,
    // child processes and gateways, not CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, RENDER_INTERNALS],
          globalSetup: ['test/support/global-setup.ts'],
          // Every answer a test gets through supertest is checked against /openapi.json.
          setupFiles: ['test/support/validate-answers.ts'],
          // The files of a fork share its loaded modules (docs/operations.md#tests): every file
          // builds its own world (database, queue prefix, keys, API and worker), so what carries
          // over from one file to the next is code, not state.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'render-internals', include: [RENDER_INTERNALS] } },
    ],
  },
});
