import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { copyProject, repoRoot } from '../util/project.js'
import { APP_BUNDLE, BUNDLERS, type BundlerName, exists, readTree } from './bundlers.js'
import { backdate, settle, startWatch, waitFor, type Watching } from './watchers.js'

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')
const registry = './agents/registry.ts:registry'

const OLD_DESCRIPTION = 'Report the weather for a city.'
const NEW_DESCRIPTION = 'Report the weather for one city (edited while watching).'
/** Every top folder of the tree holds some file naming a tool: its script, shim, agent prompt or server entry. */
const HARNESS_FOLDERS = ['.claude', '.codex', '.opencode', '.pi', '.omp', '.gemini', '.github', '.qwen', '.kilo', '.cline', 'prompts', 'scripts']

const ECHO_TOOL = `import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

export const echo = defineTool({
  name: 'echo',
  description: 'Says the text back.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
})
`

/**
 * Saves a file the way editors do, atomically: written beside the project and renamed over the file, so a
 * watcher sees one change, not a truncation and a write (which some watchers report as two edits).
 */
async function save(file: string, text: string): Promise<void> {
  const temp = join(tmpdir(), `oac-save-${process.pid}-${Math.random().toString(16).slice(2)}`)
  await writeFile(temp, text)
  await rename(temp, file)
}

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8')
  if (!text.includes(from)) throw new Error(`${file} does not contain ${JSON.stringify(from)}`)
  await save(file, text.replace(from, to))
}


/** Files holding `text`; shared chunks are counted as one `scripts/chunks/*` entry, since their names are content hashes. */
async function filesContaining(dir: string, text: string): Promise<string[]> {
  const paths = [...(await readTree(dir))].filter(([, content]) => content.includes(text)).map(([path]) => path)
  return [...new Set(paths.map((path) => (path.startsWith('scripts/chunks/') ? 'scripts/chunks/*' : path)))]
}

/**
 * One watch session per bundler. Every wait is bounded (waitFor's timeout); after a change shows, the
 * session waits for the build to end, then lets the watcher go quiet before counting builds, so a second
 * build an event would cause has shown up by then. No assertion is about time.
 */
describe.each(BUNDLERS)('%s in watch mode', (bundler: BundlerName) => {
  test('one rebuild per edit, updating every harness file; new imported files picked up; deleted tools removed; no rebuild from our writes', async () => {
    const root = await copyProject(fixture, `oac-watch-${bundler}-`)
    await backdate(root)
    const outDir = join(root, 'dist')
    const watching: Watching = await startWatch(bundler, { root, outDir, options: { registry } })

    /** Waits for `what` and the end of the build that made it, then checks it was the only build since `builds`. */
    async function oneBuild(what: string, check: () => Promise<boolean>): Promise<void> {
      const before = watching.builds
      await waitFor(what, async () => watching.builds > before && (await check()))
      await settle()
      expect(watching.builds, `builds after ${what}`).toBe(before + 1)
    }

    try {
      await waitFor('the first build', async () => watching.builds >= 1 && (await exists(join(outDir, 'scripts/weather.mjs'))))
      await settle()
      expect(watching.lastError).toBe('')
      // Writing the tree (and the bundle) did not trigger a build of its own.
      expect(watching.builds).toBe(1)

      // An edit to a tool reaches every file that describes it, and the app's manifest, in one rebuild.
      const holders = await filesContaining(outDir, OLD_DESCRIPTION)
      expect(new Set(holders.map((path) => path.split('/')[0]))).toEqual(new Set([...HARNESS_FOLDERS, APP_BUNDLE]))
      await edit(join(root, 'agents/tools/weather.ts'), OLD_DESCRIPTION, NEW_DESCRIPTION)
      await oneBuild('the new description in every file that had the old one', async () => {
        const now = await filesContaining(outDir, NEW_DESCRIPTION)
        return holders.every((path) => now.includes(path))
      })
      expect(await filesContaining(outDir, OLD_DESCRIPTION)).toEqual([])

      // An edit to a file a tool imports rebuilds its script.
      await edit(join(root, 'agents/tools/format.ts'), ".replace(/\\s+/g, ' ')", ".replace(/\\s+/g, ' ').toUpperCase()")
      await oneBuild('the helper edit in the weather script', async () => (await filesContaining(join(outDir, 'scripts'), 'toUpperCase()')).length > 0)

      // The registry imports a file that does not exist yet: that build fails; creating the file fixes it.
      const registryFile = join(root, 'agents/registry.ts')
      const registryText = await readFile(registryFile, 'utf8')
      await save(
        registryFile,
        registryText
          .replace("import { weather } from './tools/weather.ts'", "import { weather } from './tools/weather.ts'\nimport { echo } from './tools/echo.ts'")
          .replace('tools: [weather],', 'tools: [weather, echo],'),
      )
      await oneBuild('the failed build', async () => watching.failures === 1)
      expect(watching.lastError).toMatch(/echo\.ts/)
      await save(join(root, 'agents/tools/echo.ts'), ECHO_TOOL)
      await oneBuild('the new tool in the tree', async () => exists(join(outDir, 'scripts/echo.mjs')))
      expect(await exists(join(outDir, '.opencode/tool/echo.ts'))).toBe(true)

      // Deleting a tool removes its files.
      await edit(registryFile, 'tools: [add, weather]', 'tools: [weather]')
      await oneBuild('the add tool gone', async () => !(await exists(join(outDir, 'scripts/add.mjs'))))
      for (const gone of ['.opencode/tool/add.ts', '.omp/tools/add/index.ts', '.omp/tools/add']) expect(await exists(join(outDir, gone)), gone).toBe(false)
      expect(watching.failures).toBe(1)
    } finally {
      await watching.close()
    }
  })
})

describe.each(BUNDLERS)('%s in watch mode, writing the tree into the project root', (bundler: BundlerName) => {
  test('our writes into the watched project trigger no build; an edit triggers one', async () => {
    const root = await copyProject(fixture, `oac-watch-root-${bundler}-`)
    await backdate(root)
    const watching = await startWatch(bundler, { root, outDir: join(root, 'dist'), options: { registry, target: '.' } })
    try {
      await waitFor('the first build', async () => watching.builds >= 1 && (await exists(join(root, '.opencode/tool/weather.ts'))))
      await settle()
      expect(watching.lastError).toBe('')
      expect(watching.builds, `builds; the watcher reported changed: ${watching.triggers.join('; ') || 'nothing'}`).toBe(1)
      await edit(join(root, 'agents/tools/weather.ts'), OLD_DESCRIPTION, NEW_DESCRIPTION)
      await waitFor('the edit in the root tree', async () => watching.builds > 1 && (await readFile(join(root, '.opencode/tool/weather.ts'), 'utf8')).includes(NEW_DESCRIPTION))
      await settle()
      expect(watching.builds).toBe(2)
    } finally {
      await watching.close()
    }
  })
})
