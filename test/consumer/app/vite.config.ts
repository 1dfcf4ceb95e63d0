import { defineConfig } from 'vite';
import { climateQuery } from 'climate-query/vite';

// As docs/library.md shows: the plugin puts the service worker at the site's root as sw.js,
// in `vite dev` and `vite build`, and sets the dependency options the library needs.
export default defineConfig({
  base: './',
  plugins: [climateQuery()],
});
