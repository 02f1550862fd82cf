// One `vite build` of playground/ in its own process, as a person runs it (node start and vite's
// import included), for plugin_overhead. Usage:
//   node bench/vite-build.mjs plugin <outDir> <target> <manifestModuleFile>   with unplugin-oac (the bench's
//        snapshot of dist/vite.js);
//        writes the code the plugin served for `virtual:oac` to <manifestModuleFile>
//   node bench/vite-build.mjs stub <outDir> <manifestModuleFile>              without it: `virtual:oac` is served
//        from <manifestModuleFile>, so both builds bundle the same app
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'vite'
import { repoRoot } from './generate.mjs'
import { distDir } from './lib.mjs'

// The id the plugin resolves `virtual:oac` to (src/plugin/virtual.ts).
const VIRTUAL_OAC = '\0virtual:oac'
const [mode, outDir, ...rest] = process.argv.slice(2)
const root = join(repoRoot, 'playground')

let plugins
if (mode === 'plugin') {
  const [target, manifestFile] = rest
  const { default: oac } = await import(pathToFileURL(join(distDir, 'vite.js')).href)
  plugins = [
    oac({ registry: './agents/registry.ts:registry', config: 'prod', target }),
    {
      name: 'bench-capture-virtual-oac',
      transform(code, id) {
        if (id === VIRTUAL_OAC) writeFileSync(manifestFile, code)
      },
    },
  ]
} else if (mode === 'stub') {
  const [manifestFile] = rest
  const code = readFileSync(manifestFile, 'utf8')
  plugins = [
    {
      name: 'bench-stub-virtual-oac',
      resolveId: (id) => (id === 'virtual:oac' ? VIRTUAL_OAC : undefined),
      load: (id) => (id === VIRTUAL_OAC ? code : undefined),
    },
  ]
} else {
  throw new Error(`usage: node bench/vite-build.mjs plugin <outDir> <target> <manifestModuleFile> | stub <outDir> <manifestModuleFile>`)
}

await build({ root, configFile: false, logLevel: 'silent', plugins, build: { outDir, emptyOutDir: true } })
