import { defineConfig } from 'vite';

// Relative base so the built site works from any static host and sub-path.
export default defineConfig({
  base: './',
  build: { target: 'es2022' },
  worker: { format: 'es' },
});
