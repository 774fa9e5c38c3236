import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

const backend = process.env.NETACLAW_BACKEND ?? 'http://127.0.0.1:7001';

// @netaclaw/tool-policy's `browser` entry instantiates its wasm with top-level await and
// `new URL('…wasm', import.meta.url)`: Vite emits the .wasm as an asset on build; the dev
// pre-bundler must leave the package alone so that URL keeps pointing at the real file.
export default defineConfig({
  base: './',
  plugins: [vue()],
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
  },
  optimizeDeps: {
    exclude: ['@netaclaw/tool-policy'],
  },
  server: {
    // the package is a file: dependency (a symlink to ../pkg)
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
    proxy: {
      '/admin': backend,
      '/api': backend,
      '/ws': { target: backend, ws: true },
      '/health': backend,
    },
  },
});
