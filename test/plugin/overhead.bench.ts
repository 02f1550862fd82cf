// What unplugin-oac costs a build that has already compiled the agents (a rebuild with no agent change):
// `npx vitest bench --run test/plugin/overhead.bench.ts` prints esbuild with and without the plugin on an
// app of 1,000 small modules. The plugin's cost there is the exact-filter virtual module (esbuild never
// calls into JS for the other modules), the freshness check of the definition files and write/'s
// compare-only pass over the tree. esbuild is where a plugin's per-module cost shows most (bundlers.md §6).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import { bench, describe } from 'vitest'
import oacEsbuild from '../../src/esbuild.js'
import { copyProject, repoRoot } from '../util/project.js'

const MODULES = 1000
const registry = './agents/registry.ts:registry'

const root = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-bench-')
await mkdir(join(root, 'src/many'))
for (let i = 0; i < MODULES; i++) await writeFile(join(root, `src/many/m${i}.js`), `export const v${i} = ${i}\n`)
const imports = Array.from({ length: MODULES }, (_, i) => `import { v${i} } from './many/m${i}.js'`).join('\n')
const sum = Array.from({ length: MODULES }, (_, i) => `v${i}`).join(' + ')
await writeFile(join(root, 'src/app.js'), `${imports}\nexport const total = ${sum}\n`)
await writeFile(join(root, 'src/app-oac.js'), `import manifest from 'virtual:oac'\n${imports}\nexport const total = ${sum}\nexport default manifest\n`)

// One plugin instance, warmed up by a first build: later builds reuse its compile.
const esbuildPlugin = oacEsbuild({ registry })

const esbuildOptions = (entry: string): esbuild.BuildOptions => ({
  absWorkingDir: root,
  entryPoints: [entry],
  bundle: true,
  format: 'esm',
  outdir: 'dist-esbuild',
  logLevel: 'silent',
})

await esbuild.build({ ...esbuildOptions('src/app-oac.js'), plugins: [esbuildPlugin] })

describe(`esbuild, ${MODULES} modules`, () => {
  bench('without the plugin', async () => {
    await esbuild.build(esbuildOptions('src/app.js'))
  })
  bench('with unplugin-oac, agents unchanged', async () => {
    await esbuild.build({ ...esbuildOptions('src/app-oac.js'), plugins: [esbuildPlugin] })
  })
})
