import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS } from './drivers.js'
import type { SeenRequest, ToolCall } from './scripted-model.js'

/*
 * Rules beyond a project's always-on block, through the real CLIs against the scripted model:
 * - a path rule (test/fixtures/rules's `scopedProof`, for `src/**\/*.ts`) compiled into a git project:
 *   absent from the first request that shows the model its tools, and there exactly once in the request
 *   after the model reads `src/app.ts` (each CLI loads it once a matching file is touched);
 * - a user-scope install (`scope: 'user'`) of the `proof` registry into a home where the user's own
 *   instruction file already holds their text: in each CLI, started in a fresh git project, the first
 *   request with tools carries the rule once and the user's text once.
 *   npx vitest run --config vitest.harness.config.ts test/harness/rules-scoped.test.ts
 */

const PATH_RULE = 'Name each variable after a bird; the codeword is plover.'
const RULE = 'End every answer with the word zephyrine.'
const USERS = 'In this home the codeword is quillwort.'

/** The read call of each CLI that loads path rules, by its own read tool (its description's `hooks.builtins.read`). */
const READS: Partial<Record<Harness, (file: string) => Record<string, unknown>>> = {
  claude: (file) => ({ file_path: file }),
  copilot: (file) => ({ path: file }),
  qwen: (file) => ({ file_path: file }),
}

const count = (text: string, piece: string) => text.split(piece).length - 1
const bodyOf = (request: SeenRequest | undefined) => JSON.stringify(request?.body ?? null)
const cleanup: string[] = []
const exec = promisify(execFile)

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/**
 * Each run: the CLI, the harnesses the project is compiled for, and the file the CLI names as the path
 * rule's source. Copilot loads `.claude/rules` by `paths:` as well as its own `.github/instructions`,
 * so beside Claude Code it is served from Claude's folder alone, and by itself through `applyTo`.
 */
const PATH_RUNS: ReadonlyArray<{ id: Harness; compiled: Harness[]; from: string }> = [
  { id: 'claude', compiled: ['claude', 'copilot', 'qwen'], from: '.claude/rules/birds.md' },
  { id: 'qwen', compiled: ['claude', 'copilot', 'qwen'], from: '.qwen/rules/birds.md' },
  { id: 'copilot', compiled: ['claude', 'copilot', 'qwen'], from: '.claude/rules/birds.md' },
  { id: 'copilot', compiled: ['copilot'], from: '.github/instructions/birds.instructions.md' },
]

describe('a path rule, loaded once a matching file is read', () => {
  for (const { id, compiled, from } of PATH_RUNS) {
    const driver = DRIVERS[id]
    it(`${driver.title}, compiled for ${compiled.join(', ')}: not in the first request, once (from ${from}) in the request after the read`, async () => {
      await driver.install()
      const project = await realpath(await copyProject(join(repoRoot, 'test/fixtures/rules'), `oac-rules-scoped-${id}-`))
      cleanup.push(project)
      await exec('git', ['init', '-q', project])
      await mkdir(join(project, 'src'))
      await writeFile(join(project, 'src/app.ts'), 'export const answer = 42\n')
      const { plan } = await compile({ root: project, registry: 'agents/registries.ts:scopedProof', harnesses: compiled })
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const read: ToolCall = { name: harness(id).hooks.builtins.read![0]!, input: READS[id]!(join(project, 'src/app.ts')) }
      const model = await converse(driver, { project, plan, home, env }, { main: [{ calls: [read] }, { text: 'done' }] })
      const [first, afterRead] = model.conversation('main')
      expect(afterRead!.toolResults.map((result) => result.text).join('\n')).toContain('answer = 42')
      expect({ first: count(bodyOf(first), PATH_RULE), afterRead: count(bodyOf(afterRead), PATH_RULE) }).toEqual({ first: 0, afterRead: 1 })
      expect(bodyOf(afterRead)).toContain(from)
    })
  }
})

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  describe(`${driver.title}, user scope`, () => {
    let first: SeenRequest | undefined
    let file: string

    beforeAll(async () => {
      await driver.install()
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      // oh-my-pi's own agent folder, as a user has it (the tier's home points it at pi's).
      const runEnv = id === 'omp' ? { ...env, PI_CODING_AGENT_DIR: join(home, '.omp/agent') } : env
      file = join(home, harness(id).instructions.home.file)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, `# Mine\n\n${USERS}\n`)
      const source = await copyProject(join(repoRoot, 'test/fixtures/rules'), `oac-rules-home-src-${id}-`)
      cleanup.push(source)
      const { plan } = await compile({ root: source, registry: 'agents/registries.ts:proof', harnesses: [id], scope: 'user', target: home })
      const project = await mkdtemp(join(tmpdir(), `oac-rules-home-${id}-`))
      cleanup.push(project)
      await exec('git', ['init', '-q', project])
      const model = await converse(driver, { project, plan, home, env: runEnv }, { main: [{ text: 'done' }] }, 10)
      first = model.conversation('main')[0]
    })

    it("carries the home's rule exactly once, and the user's own text there exactly once", async () => {
      expect(await readFile(file, 'utf8')).toContain(RULE)
      expect({ rule: count(bodyOf(first), RULE), users: count(bodyOf(first), USERS) }).toEqual({ rule: 1, users: 1 })
    })
  })
}
