import { defineConfig } from 'vite';

// A static bundle with no inline script or style, so the page runs under a CSP without
// 'unsafe-inline': the module preload polyfill (the one thing Vite may inline) is off, and
// small assets are never inlined as data: URLs.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
