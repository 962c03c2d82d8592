import { defineConfig } from 'vite';

// A static bundle with no inline script or style, so the page runs under a CSP without
// 'unsafe-inline': the module preload polyfill (the one thing Vite may inline) is off, and
// small assets are never inlined as data: URLs.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  // `npm run dev -w @reins/web`: the pages with hot reload, the APIs from a running kitchen
  // (`npm start`, port 8787 unless KITCHEN_URL says otherwise).
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(
      ['/api', '/v1', '/health'].map((path) => [path, process.env['KITCHEN_URL'] ?? 'http://127.0.0.1:8787']),
    ),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
