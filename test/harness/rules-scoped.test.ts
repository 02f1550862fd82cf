import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Plan } from '../../src/compile/plan.js'
import { harness } from '../../src/compile/harnesses/index.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, installQwen } from './drivers.js'
import { offlineRun } from './offline.js'
import type { SeenRequest, Turn } from './scripted-model.js'

/*
 * Rules beyond a project's always-on block, through the real CLIs against the scripted model:
 * - a path rule (test/fixtures/rules's `scopedProof`, for `src/**\/*.ts`) compiled into a git project:
 *   absent from the first request that shows the model its tools, and there exactly once in the request
 *   after the model reads `src/app.ts` (each CLI loads it once a matching file is touched); oh-my-pi lists
 *   it from the start and hands over its text when the model reads `rule://<name>`;
 * - a user-scope install (`scope: 'user'`) of the `proof` registry, for every harness at once, into a home
 *   where the user's own instruction file already holds their text: in each CLI, started in a fresh git
 *   project, the first request with tools carries the rule once and the user's text once;
 * - a plugin folder, installed as an extension (below);
 * - a user's nested `sub/AGENTS.md`, in Claude Code, opencode and Codex (below).
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
 * Each run: the CLI, the harnesses the rule is compiled for (into the project, or with `home` into the
 * user's home), and the file the CLI names as the rule's source. Copilot loads `.claude/rules` by `paths:`
 * as well as its own `.github/instructions`, so beside Claude Code it is served from Claude's folder
 * alone, and by itself through `applyTo`; in a home it reads no `~/.claude/rules`.
 */
const PATH_RUNS: ReadonlyArray<{ id: Harness; compiled: Harness[]; from: string; home?: true }> = [
  { id: 'claude', compiled: ['claude', 'copilot', 'qwen'], from: '.claude/rules/birds.md' },
  { id: 'qwen', compiled: ['claude', 'copilot', 'qwen'], from: '.qwen/rules/birds.md' },
  { id: 'copilot', compiled: ['claude', 'copilot', 'qwen'], from: '.claude/rules/birds.md' },
  { id: 'copilot', compiled: ['copilot'], from: '.github/instructions/birds.instructions.md' },
  { id: 'claude', compiled: ['claude', 'copilot', 'qwen'], from: '.claude/rules/birds.md', home: true },
  { id: 'qwen', compiled: ['claude', 'copilot', 'qwen'], from: '.qwen/rules/birds.md', home: true },
  { id: 'copilot', compiled: ['claude', 'copilot', 'qwen'], from: '.copilot/instructions/birds.instructions.md', home: true },
]

/** A git project (the fixture's registries in it) holding `src/app.ts`, the file the path rule is for. */
async function projectWithSource(prefix: string): Promise<string> {
  const project = await realpath(await copyProject(join(repoRoot, 'test/fixtures/rules'), prefix))
  cleanup.push(project)
  await exec('git', ['init', '-q', project])
  await mkdir(join(project, 'src'))
  await writeFile(join(project, 'src/app.ts'), 'export const answer = 42\n')
  return project
}

/** The model reads `src/app.ts` with the CLI's own read tool, then ends. */
const readApp = (id: Harness, project: string): Turn[] => [{ calls: [{ name: harness(id).hooks.builtins.read![0]!, input: READS[id]!(join(project, 'src/app.ts')) }] }, { text: 'done' }]

/** The path rule's count in the first request with tools, and in the request after the read, whose tool result must be the file's. */
function pathRuleCounts(requests: SeenRequest[]): { first: number; afterRead: number } {
  const [first, afterRead] = requests
  expect(afterRead!.toolResults.map((result) => result.text).join('\n')).toContain('answer = 42')
  return { first: count(bodyOf(first), PATH_RULE), afterRead: count(bodyOf(afterRead), PATH_RULE) }
}

describe('a path rule, loaded once a matching file is read', () => {
  for (const { id, compiled, from, home: inHome } of PATH_RUNS) {
    const driver = DRIVERS[id]
    it(`${driver.title}, compiled for ${compiled.join(', ')}${inHome ? " into the user's home" : ''}: not in the first request, once (from ${from}) in the request after the read`, async () => {
      await driver.install()
      const project = await projectWithSource(`oac-rules-scoped-${id}-`)
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const { plan } = await compile({ root: project, registry: 'agents/registries.ts:scopedProof', harnesses: compiled, ...(inHome && { scope: 'user' as const, target: home }) })
      const model = await converse(driver, { project, plan, home, env }, { main: readApp(id, project) })
      expect(pathRuleCounts(model.conversation('main'))).toEqual({ first: 0, afterRead: 1 })
      expect(bodyOf(model.conversation('main')[1])).toContain(from)
    })
  }
})

/**
 * oh-my-pi 18.2.3 loads no path rule when a matching file is read: its system prompt lists each rule that
 * has a description, from the start, as `- <name> (<globs>): <description>` (its `<domain-rules>`;
 * capability/rule-buckets.ts, prompts/system/system-prompt.md), and the model reads the rule's text
 * through `rule://<name>` with its read tool when it judges the rule relevant (a rule with globs and no
 * description is dropped). The same from a project's `.omp/rules` and from its agent folder's `rules/`.
 */
describe(`${DRIVERS.omp.title}: a path rule listed by its globs and description, its text read through rule://`, () => {
  for (const inHome of [false, true]) {
    it(`${inHome ? "in the user's agent folder" : 'in the project'}: listed in the first request, not loaded by the read of a matching file, once in the request after the model reads rule://birds`, async () => {
      const driver = DRIVERS.omp
      await driver.install()
      const project = await projectWithSource('oac-rules-scoped-omp-')
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      // oh-my-pi's own agent folder, as a user has it (the tier's home points it at pi's).
      const runEnv = inHome ? { ...env, PI_CODING_AGENT_DIR: join(home, '.omp/agent') } : env
      const { plan } = await compile({ root: project, registry: 'agents/registries.ts:scopedProof', harnesses: ['omp'], ...(inHome && { scope: 'user' as const, target: home }) })
      const read = (path: string): Turn => ({ calls: [{ name: harness('omp').hooks.builtins.read![0]!, input: { path } }] })
      const model = await converse(driver, { project, plan, home, env: runEnv }, { main: [read(join(project, 'src/app.ts')), read('rule://birds'), { text: 'done' }] })
      const [first, afterApp, afterRule] = model.conversation('main')
      expect(count(bodyOf(first), '- birds (src/**/*.ts): How we name variables in src.')).toBe(1)
      expect(count(bodyOf(first), PATH_RULE)).toBe(0)
      expect(afterApp!.toolResults.map((result) => result.text).join('\n')).toContain('answer = 42')
      expect(count(bodyOf(afterApp), PATH_RULE)).toBe(0)
      expect(afterRule!.toolResults.map((result) => result.text).join('\n')).toContain(PATH_RULE)
      expect(count(bodyOf(afterRule), PATH_RULE)).toBe(1)
    })
  }
})

/**
 * A user's nested `sub/AGENTS.md`, which unplugin-oac never writes (docs/instructions.md): whether a CLI
 * started in the project's root loads it once the model reads a file in `sub/` (with its own read tool; Codex
 * has none and reads with its shell). Claude Code (no CLAUDE file in the project) and opencode hand it over
 * with the read's result; Codex reads nested files only on the way from the root to the folder it starts in.
 */
const NESTED = 'The nested codeword is birch.'
const NESTED_RUNS: ReadonlyArray<{ id: Harness; read: (file: string) => { name: string; input: Record<string, unknown> }; loads: boolean }> = [
  { id: 'claude', read: (file) => ({ name: 'Read', input: { file_path: file } }), loads: true },
  { id: 'opencode', read: (file) => ({ name: 'read', input: { filePath: file } }), loads: true },
  { id: 'codex', read: (file) => ({ name: 'exec_command', input: { cmd: `cat ${file}` } }), loads: false },
]

describe("a user's nested sub/AGENTS.md, the CLI started in the project's root", () => {
  for (const { id, read, loads } of NESTED_RUNS) {
    const driver = DRIVERS[id]
    it(`${driver.title}: not in the first request; ${loads ? 'once, with the result, in the request after the model reads sub/app.ts' : 'nor after the model reads sub/app.ts'}`, async () => {
      await driver.install()
      const project = await projectWithSource(`oac-rules-nested-${id}-`)
      await mkdir(join(project, 'sub'))
      await writeFile(join(project, 'sub/AGENTS.md'), `# Sub\n\n${NESTED}\n`)
      await writeFile(join(project, 'sub/app.ts'), 'export const answer = 42\n')
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const { plan } = await compile({ root: project, registry: 'agents/registries.ts:scopedProof', harnesses: [id] })
      const model = await converse(driver, { project, plan, home, env }, { main: [{ calls: [read(join(project, 'sub/app.ts'))] }, { text: 'done' }] })
      const [first, afterRead] = model.conversation('main')
      const result = afterRead!.toolResults.map((toolResult) => toolResult.text).join('\n')
      expect(result).toContain('answer = 42')
      expect(count(bodyOf(first), NESTED)).toBe(0)
      expect(count(bodyOf(afterRead), NESTED)).toBe(loads ? 1 : 0)
      if (loads) expect(result).toContain(`${join(project, 'sub/AGENTS.md')}`)
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
      // Installed for every harness: each CLI must read its own home file alone.
      const { plan } = await compile({ root: source, registry: 'agents/registries.ts:proof', harnesses: [...HARNESSES], scope: 'user', target: home })
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

/**
 * A plugin folder of the `pluginProof` registry (the always-on rule and the path rule), installed as an
 * extension with each CLI's own command into a fresh home: the always-on rule comes from the extension's
 * context file, once, in the first request; Qwen Code loads the path rule from the extension's `rules/`
 * once the model reads a matching file.
 */
describe('rules in a plugin folder, installed as an extension', () => {
  let plugin: string
  let plan: Plan

  beforeAll(async () => {
    const source = await copyProject(join(repoRoot, 'test/fixtures/rules'), 'oac-rules-plugin-src-')
    plugin = await tempDir('oac-rules-plugin-')
    cleanup.push(source, plugin)
    ;({ plan } = await compile({ root: source, registry: 'agents/registries.ts:pluginProof', harnesses: ['gemini', 'qwen'], plugin: { name: 'house-rules', version: '1.0.0', description: 'Our rules.' }, target: plugin }))
  })

  /** A fresh home with the folder installed by the CLI's `extensions install`, whose output must say so. */
  async function installed(command: string, args: string[]): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
    const { home, env } = await isolatedHome()
    cleanup.push(home)
    // Gemini CLI asks apart whether to trust the folder: answered as a user would.
    const run = await offlineRun(command, [...args, 'extensions', 'install', plugin, '--consent'], { cwd: home, env, stdin: 'y\n' })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout + run.stderr).toContain('Extension "house-rules" installed successfully and enabled.')
    return { home, env }
  }

  it(`${DRIVERS.gemini.title}: the always-on rule once, from the extension's GEMINI.md`, async () => {
    await DRIVERS.gemini.install()
    const bin = join(await installHarnessPackage(harness('gemini').proof.cli.package, harness('gemini').proof.cli.version), 'node_modules/.bin/gemini')
    const { home, env } = await installed(bin, [])
    const project = await projectWithSource('oac-rules-plugin-gemini-')
    const model = await converse(DRIVERS.gemini, { project, plan, home, env }, { main: [{ text: 'done' }] })
    expect(count(bodyOf(model.conversation('main')[0]), RULE)).toBe(1)
  })

  it(`${DRIVERS.qwen.title}: the always-on rule once in the first request, the path rule once after the read`, async () => {
    const { node, cli } = await installQwen()
    const { home, env } = await installed(node, [cli])
    const project = await projectWithSource('oac-rules-plugin-qwen-')
    const model = await converse(DRIVERS.qwen, { project, plan, home, env }, { main: readApp('qwen', project) })
    const requests = model.conversation('main')
    expect(count(bodyOf(requests[0]), RULE)).toBe(1)
    expect(pathRuleCounts(requests)).toEqual({ first: 0, afterRead: 1 })
    expect(bodyOf(requests[1])).toContain('house-rules:rules/birds.md')
  })
})
