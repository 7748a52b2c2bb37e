import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API serves the built app, `/trpc` and `/api/chat` on one port; in dev, Vite proxies both to it.
const api = process.env.WEFT_API_URL ?? 'http://127.0.0.1:3001';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/trpc': { target: api, changeOrigin: true },
      '/api/chat': { target: api, changeOrigin: true },
    },
  },
  // One chunk for now (the engine brings zod); splitting the editor is later work.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
});
