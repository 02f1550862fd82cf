import { createHash } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBuilder, createServer } from 'vite'
import { describe, expect, test } from 'vitest'
import oacVite from '../../src/vite.js'
import { copyProject, repoRoot } from '../util/project.js'
import { exists, readTree } from './bundlers.js'
import { serviceHeld, settle, waitFor } from './watchers.js'

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')

// A registry module that records each time it is loaded, i.e. each compile.
const COUNTED_REGISTRY = `import { appendFileSync } from 'node:fs'

appendFileSync(new URL('../compiles.log', import.meta.url), 'compile\\n')
export { registry } from './registry.ts'
`

const ECHO_TOOL = `import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

export const echo = defineTool({ name: 'echo', description: 'Says the text back.', input: z.object({ text: z.string() }), run: ({ text }) => text })
`

/** Saves a file atomically, as editors do (written beside the project, renamed over the file). */
async function save(file: string, text: string): Promise<void> {
  const temp = join(tmpdir(), `oac-vite-save-${process.pid}-${Math.random().toString(16).slice(2)}`)
  await writeFile(temp, text)
  await rename(temp, file)
}

/** Each file of a tree with a digest of its content: a readable diff when the tree changes. */
async function treeDigest(dir: string): Promise<string[]> {
  return [...(await readTree(dir))].map(([path, text]) => `${path} ${createHash('sha256').update(text).digest('hex').slice(0, 12)}`)
}

async function compiles(root: string): Promise<number> {
  const log = await readFile(join(root, 'compiles.log'), 'utf8').catch(() => '')
  return log.split('\n').filter(Boolean).length
}

async function countedProject(prefix: string): Promise<string> {
  const root = await copyProject(fixture, prefix)
  await writeFile(join(root, 'agents/counted.ts'), COUNTED_REGISTRY)
  return root
}

describe('vite', () => {
  test('a build of the client and ssr environments compiles once and puts the tree beside the client', async () => {
    const root = await countedProject('oac-vite-envs-')
    // A config file, as users have: Vite evaluates it again for each environment, so each gets its own plugin
    // instance unless the plugin is shared during the build. (It calls our plugin through a global because
    // Vite bundles config files and would bundle our TypeScript sources along.)
    const global = globalThis as { oacTestPlugin?: () => unknown }
    global.oacTestPlugin = () => oacVite({ registry: './agents/counted.ts:registry' })
    await writeFile(
      join(root, 'vite.config.mjs'),
      `export default {
  plugins: [globalThis.oacTestPlugin()],
  builder: {},
  environments: {
    client: { build: { outDir: 'dist/client', rollupOptions: { input: 'src/main.js' } } },
    ssr: { build: { outDir: 'dist/server', ssr: 'src/main.js' } },
  },
}
`,
    )
    const builder = await createBuilder({ root, logLevel: 'silent' })
    await builder.buildApp()
    expect(Object.values(builder.environments).map((environment) => environment.isBuilt)).toEqual([true, true])
    expect(await compiles(root)).toBe(1)
    expect(await exists(join(root, 'dist/client/.opencode/tool/weather.ts'))).toBe(true)
    expect([...(await readTree(join(root, 'dist/server'))).keys()].filter((path) => !/\.m?js$/.test(path))).toEqual([])
  })

  test('the dev server keeps the target current and reloads virtual:oac after an edit', async () => {
    const root = await countedProject('oac-vite-dev-')
    const server = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [oacVite({ registry: './agents/counted.ts:registry', target: 'tree' })],
      server: { middlewareMode: true, ws: false },
    })
    try {
      const shim = join(root, 'tree/.opencode/tool/weather.ts')
      await waitFor('the tree written at start', () => exists(shim))
      const description = async () => {
        const module = (await server.ssrLoadModule('virtual:oac')) as { tools: { name: string; description: string }[] }
        return module.tools.find((tool) => tool.name === 'weather')?.description
      }
      expect(await description()).toBe('Report the weather for a city.')
      await settle()
      // Our own writes into the project (which Vite watches) started no compile.
      expect(await compiles(root)).toBe(1)

      const source = join(root, 'agents/tools/weather.ts')
      await save(source, (await readFile(source, 'utf8')).replace('Report the weather for a city.', 'Weather for one city, edited while serving.'))
      await waitFor('the edit in the target', async () => (await readFile(shim, 'utf8')).includes('edited while serving'))
      await waitFor('the edit in virtual:oac', async () => (await description()) === 'Weather for one city, edited while serving.')
      await settle()
      expect(await compiles(root)).toBe(2)

      // The registry starts importing a file that is not there yet; once it is, the dev server picks it up.
      const registryFile = join(root, 'agents/registry.ts')
      await save(
        registryFile,
        (await readFile(registryFile, 'utf8'))
          .replace("import { weather } from './tools/weather.ts'", "import { weather } from './tools/weather.ts'\nimport { echo } from './tools/echo.ts'")
          .replace('tools: [weather],', 'tools: [weather, echo],'),
      )
      await save(join(root, 'agents/tools/echo.ts'), ECHO_TOOL)
      await waitFor('the new tool in the target', () => exists(join(root, 'tree/scripts/echo.mjs')))
      await waitFor('the new tool in virtual:oac', async () => {
        const module = (await server.ssrLoadModule('virtual:oac')) as { tools: { name: string }[] }
        return module.tools.some((tool) => tool.name === 'echo')
      })

      // An edit right before the server closes: the close waits for its update, which writes nothing after it.
      await save(source, (await readFile(source, 'utf8')).replace('edited while serving', 'edited as the server closed'))
      await server.close()
      const closedTree = await treeDigest(join(root, 'tree'))
      await settle()
      expect(await treeDigest(join(root, 'tree'))).toEqual(closedTree)
      // Bounded, not timed: the service ends once the session is released, a round trip to it after the close.
      await waitFor('the esbuild service to end after the server closed', () => !serviceHeld())
    } finally {
      await server.close()
    }
  })
})
