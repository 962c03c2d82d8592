import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./packages/reins/src/${path}`, import.meta.url));

// Tests run against the TypeScript sources, not dist/, so a stale build can never hide a bug.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^reins$/, replacement: src('index.ts') },
      { find: /^reins\/testing$/, replacement: src('testing.ts') },
      { find: /^reins\/node$/, replacement: src('node/index.ts') },
      {
        find: /^@reins\/mcp$/,
        replacement: fileURLToPath(new URL('./packages/mcp/src/index.ts', import.meta.url)),
      },
      {
        find: /^@reins\/stores$/,
        replacement: fileURLToPath(new URL('./packages/stores/src/index.ts', import.meta.url)),
      },
      {
        find: /^@reins\/models$/,
        replacement: fileURLToPath(new URL('./packages/models/src/index.ts', import.meta.url)),
      },
      {
        find: /^@reins\/kitchen$/,
        replacement: fileURLToPath(new URL('./apps/kitchen/src/index.ts', import.meta.url)),
      },
      {
        find: /^@reins\/server\/tracing$/,
        replacement: fileURLToPath(new URL('./packages/server/src/run-tracing.ts', import.meta.url)),
      },
      {
        find: /^@reins\/server$/,
        replacement: fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20_000,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.ci/vitest-report.json' } : undefined,
  },
});
