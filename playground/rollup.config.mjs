// `npx rollup -c playground/rollup.config.mjs`: the playground app built with Rollup, and its agent tree
// written into playground/ (the same tree `vite build` writes; see vite.config.ts).
import { fileURLToPath } from 'node:url'
import esbuild from 'rollup-plugin-esbuild'
import oac from 'unplugin-oac/rollup'

// Rollup has no project root of its own (it uses the current directory), so the plugin gets one.
const root = fileURLToPath(new URL('.', import.meta.url))

export default {
  input: `${root}src/main.ts`,
  output: { dir: `${root}dist/rollup`, format: 'es' },
  plugins: [oac({ registry: './agents/registry.ts:registry', config: 'prod', target: '.', root }), esbuild({ target: 'es2022' })],
}
