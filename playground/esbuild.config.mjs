// `node playground/esbuild.config.mjs`: the playground app built with esbuild, and its agent tree
// written into playground/ (the same tree `vite build` writes; see vite.config.ts).
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import oac from 'unplugin-oac/esbuild'

const root = fileURLToPath(new URL('.', import.meta.url))

/** @type {import('esbuild').BuildOptions} */
const options = {
  // The plugin's root defaults to absWorkingDir, so './agents/registry.ts' and target '.' resolve from here.
  absWorkingDir: root,
  entryPoints: ['src/main.ts'],
  bundle: true,
  format: 'esm',
  outdir: 'dist/esbuild',
  logLevel: 'info',
  plugins: [oac({ registry: './agents/registry.ts:registry', config: 'prod', target: '.' })],
}
export default options

if (process.argv[1] === fileURLToPath(import.meta.url)) await esbuild.build(options)
