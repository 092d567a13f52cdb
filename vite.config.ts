import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiTarget = `http://127.0.0.1:${process.env.PORT ?? '3000'}`;

export default defineConfig({
  root: 'src/web',
  plugins: [react(), tailwindcss()],
  // `@/…` is `src/…`, for web and server alike (tsconfig.json `paths`; esbuild and tsx read it there).
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: {
      '/api': {
        target: apiTarget,
        // The API answers only to its own Host (127.0.0.1:PORT) and compares Origin with it: a
        // same-origin request of this dev server is passed on as one of the API's.
        changeOrigin: true,
        configure: (proxy) => {
          proxy.on('proxyReq', (proxyReq, req) => {
            const origin = req.headers.origin;
            if (origin && URL.canParse(origin) && new URL(origin).host === req.headers.host) {
              proxyReq.setHeader('origin', apiTarget);
            }
          });
        },
      },
      // The clone URL and MCP shown by the dev server's pages reach the API too.
      '/git': { target: apiTarget, changeOrigin: true },
      '/mcp': { target: apiTarget, changeOrigin: true },
    },
  },
});
