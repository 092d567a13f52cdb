import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const alias = { '@': fileURLToPath(new URL('./src', import.meta.url)) };

const shared = {
  environment: 'node' as const,
  testTimeout: 30_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
};

export default defineConfig({
  // `@/…` is `src/…` (tsconfig.json `paths`).
  resolve: { alias },
  test: {
    reporters: ['default'],
    projects: [
      {
        resolve: { alias },
        // Module and API tests over the real app and a real database.
        test: {
          ...shared,
          name: 'server-and-web',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
          globalSetup: ['tests/pglite-template.setup.ts'],
        },
      },
      {
        resolve: { alias },
        // Browser journeys: the real server serving the built web app, driven in Chromium.
        test: {
          ...shared,
          name: 'e2e',
          include: ['tests/**/*.test.ts'],
          globalSetup: ['tests/e2e/build-web.setup.ts'],
          // A page reacts within a second on a quiet machine, but a journey shares a busy one with the
          // rest of the suite (a project's git init, a run's commits): wait up to 15 s by default.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
