import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import { afterEach, describe, expect, test } from 'vitest'
import oacEsbuild from '../../src/esbuild.js'
import { copyProject, repoRoot } from '../util/project.js'
import { backdate, waitFor } from './watchers.js'

// esbuild hands `onResolve` an entry point written as `src/main.js` as `./src/main.js`; the plugin's watch
// lists ride on the entry's resolution, so every way of writing an entry must reach them. The entry here
// does not import virtual:oac, so nothing but the entry's resolution makes esbuild watch the registry.

const AGENT_DESCRIPTION = 'Answers weather questions. Use for anything about the weather.'
const EDITED = 'Answers weather questions, edited while watching.'

const projects: string[] = []
afterEach(async () => {
  for (const dir of projects.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function save(file: string, text: string): Promise<void> {
  const temp = join(tmpdir(), `oac-save-${process.pid}-${Math.random().toString(16).slice(2)}`)
  await writeFile(temp, text)
  await rename(temp, file)
}

type EntryPoints = esbuild.BuildOptions['entryPoints']

const FORMS: Array<[string, (root: string) => EntryPoints]> = [
  ['relative without ./', () => ['src/plain.js']],
  ['relative with ./', () => ['./src/plain.js']],
  ['absolute', (root) => [join(root, 'src/plain.js')]],
  ['object form { in, out }', () => [{ in: 'src/plain.js', out: 'plain' }]],
  ['record form', () => ({ plain: 'src/plain.js' })],
]

describe('esbuild watch mode rebuilds on a registry edit, whichever way the entry point is written', () => {
  test.each(FORMS)('%s', async (_form, entries) => {
    const root = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-esbuild-entry-')
    projects.push(root)
    await writeFile(join(root, 'src/plain.js'), 'export const plain = 1\n')
    await backdate(root)
    const warnings: string[] = []
    let builds = 0
    const context = await esbuild.context({
      absWorkingDir: root,
      entryPoints: entries(root),
      bundle: true,
      format: 'esm',
      outdir: join(root, 'dist'),
      logLevel: 'silent',
      plugins: [
        oacEsbuild({ registry: './agents/registry.ts:registry', target: '.' }),
        {
          name: 'count-builds',
          setup(build) {
            build.onEnd((result) => {
              warnings.push(...result.warnings.map((warning) => warning.text))
              builds++
            })
          },
        },
      ],
    })
    try {
      await context.watch()
      const agentFile = join(root, '.claude/agents/forecaster.md')
      await waitFor('the first build', async () => builds >= 1 && (await readFile(agentFile, 'utf8').catch(() => '')).includes(AGENT_DESCRIPTION))
      const registryFile = join(root, 'agents/registry.ts')
      await save(registryFile, (await readFile(registryFile, 'utf8')).replace(AGENT_DESCRIPTION, EDITED))
      // The tree is written in the plugin's onEnd, before the counting plugin's: both are waited for.
      await waitFor('the rebuild after the registry edit', async () => builds >= 2 && (await readFile(agentFile, 'utf8').catch(() => '')).includes(EDITED), 20_000)
      // esbuild warns when a resolve callback returns watch lists without a path.
      expect(warnings.filter((text) => text.includes('watchFiles'))).toEqual([])
    } finally {
      await context.dispose()
    }
  })
})
