import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { targetOf } from '../../src/compile/target.js'
import type { Harness } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { CodexAppServer, type McpServerStatus } from './codex-app-server.js'
import { BUN, DRIVERS, harnessRun, toolCall } from './drivers.js'
import { offlineRun } from './offline.js'
import { type ScriptedModel, startScriptedModel, type ToolCall } from './scripted-model.js'

/*
 * The plugin folder of test/fixtures/plugin-folder (tools word_count and delete_note, skills counting
 * and the user-only tidy, the command count, the hooks keep (beforeTool on delete_note) and hello
 * (sessionStart)), compiled with --plugin for Codex, pi, oh-my-pi and Gemini CLI (whose root skills/
 * must not reach the first two), installed by each real CLI's own commands in a fresh home, then
 * seen from a folder of the user's that has nothing of ours:
 *   Codex 0.171: `codex plugin marketplace add <dir>`, `codex plugin add`, its list, the app-server's
 *     MCP servers and skills, and a scripted-model run that calls both tools (the hook blocks one) and
 *     gets the session hook's context;
 *   pi 0.73.1: `pi install <dir>`, `pi list`, its SDK loading the package's tools (a call), hooks,
 *     skills and prompts, and a scripted-model run as the Codex one;
 *   oh-my-pi 18.2.3 under bun: `omp plugin install <dir>`, `omp plugin list`, its SDK loading the
 *     native tools (a call; no MCP tool), the hooks' extension, the skills and the command, and a
 *     scripted-model run as the Codex one.
 * What each CLI did is in docs/plugins.md.
 *   npm run build && npx vitest run --config vitest.harness.config.ts test/harness/plugin-codex-pi.test.ts
 */

const PLUGIN = { name: 'word-tools', version: '2.1.0', description: 'Counts words.' }
const cleanup: string[] = []
let out: string
let plan: Plan
/** The user's folder the CLIs run in: a git repository with nothing of ours. */
let work: string

async function temp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  cleanup.push(dir)
  return dir
}

async function home(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const isolated = await isolatedHome()
  cleanup.push(isolated.home)
  return isolated
}

async function cli(id: Harness, extra: string[] = []): Promise<string> {
  const { package: name, version } = harness(id).proof.cli
  return join(await installHarnessPackage(name, version, extra), 'node_modules/.bin')
}

beforeAll(async () => {
  const root = await copyProject(join(repoRoot, 'test/fixtures/plugin-folder'), 'oac-plugin-codex-pi-')
  cleanup.push(root)
  out = join(root, 'out')
  ;({ plan } = await compile({ root, registry: 'agents/registry.ts:registry', target: 'out', plugin: PLUGIN, harnesses: ['codex', 'pi', 'omp', 'gemini'] }))
  work = await temp('oac-plugin-work-')
  await promisify(execFile)('git', ['init', '-q', work])
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/**
 * A scripted-model run of pi or oh-my-pi (its driver) in the user's folder: the model calls word_count,
 * then delete_note on a note the plugin's hook keeps. Returns the tool results the model read, and
 * whether the session hook's context reached a request.
 */
async function scriptedRun(id: 'pi' | 'omp', home: string, env: NodeJS.ProcessEnv): Promise<{ results: string[]; context: boolean }> {
  const model = await startScriptedModel({
    scripts: { main: [{ calls: [toolCall(id, plan, 'word_count', { text: 'one two three' })] }, { calls: [toolCall(id, plan, 'delete_note', { name: 'keep-list' })] }, { text: 'Done.' }] },
    conversationOf: (request) => (request.tools.length > 0 ? 'main' : undefined),
    maxRequests: 10,
  })
  try {
    await DRIVERS[id].install()
    const run = await DRIVERS[id].run(model, { project: work, plan, home, env })
    expect(run.code, run.stderr).toBe(0)
    expect(model.refused).toEqual([])
    const requests = model.conversation('main')
    expect(requests).toHaveLength(3)
    return { results: requests.slice(1).map((request) => request.toolResults[0]!.text), context: requests.some((request) => JSON.stringify(request.body).includes(`Working in ${id}.`)) }
  } finally {
    await model.close()
  }
}

/* ---------------------------------------------------------------- Codex */

describe(`Codex ${harness('codex').proof.cli.version}`, () => {
  let codex: string
  let env: NodeJS.ProcessEnv
  const id = `${PLUGIN.name}@${PLUGIN.name}`

  beforeAll(async () => {
    codex = join(await cli('codex'), 'codex')
    ;({ env } = await home())
    await mkdir(env.CODEX_HOME!, { recursive: true })
  })

  const run = (args: string[]) => offlineRun(codex, [...args, '-c', 'analytics.enabled=false'], { cwd: work, env })

  it('adds the folder as a marketplace from its local path, installs the plugin from it, and lists it', async () => {
    const added = await run(['plugin', 'marketplace', 'add', out])
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`Added marketplace \`${PLUGIN.name}\``)
    const installed = await run(['plugin', 'add', id])
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain(join(env.CODEX_HOME!, 'plugins/cache', PLUGIN.name, PLUGIN.name, PLUGIN.version))
    const listed = await run(['plugin', 'list'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+installed, enabled\\s+${PLUGIN.version.replace(/\./g, '\\.')}\\s+${out}`))
  })

  it("starts the plugin's server for a thread in the user's folder, with both tools, and shows its skills and command under the plugin's name", async () => {
    const server = new CodexAppServer(codex, work, env, { plugins: true })
    try {
      await server.start()
      const { thread } = await server.request<{ thread: { id: string } }>('thread/start', { cwd: work })
      const { data } = await server.request<{ data: Array<McpServerStatus & { pluginId?: string }> }>('mcpServerStatus/list', { threadId: thread.id })
      const ours = data.find((status) => status.name === targetOf(plan).shownServerName('codex'))
      expect(ours?.toolsError ?? null).toBeNull()
      expect(ours?.pluginId).toBe(id)
      expect(Object.keys(ours?.tools ?? {}).sort()).toEqual(['delete_note', 'word_count'])
      const skills = await server.request<{ data: Array<{ skills: Array<{ name: string; path: string; pluginId: string | null }> }> }>('skills/list', { cwds: [work] })
      const fromPlugin = skills.data.flatMap((entry) => entry.skills).filter((skill) => skill.pluginId === id)
      // The skills of codex/skills/ alone: Codex reads the manifest's folder in place of the root skills/ (Gemini CLI's and oh-my-pi's).
      expect(fromPlugin.map((skill) => skill.name).sort()).toEqual([`${PLUGIN.name}:count`, `${PLUGIN.name}:counting`, `${PLUGIN.name}:tidy`])
      for (const skill of fromPlugin) expect(skill.path).toContain('/codex/skills/')
    } finally {
      server.close()
    }
  })

  it("lets the model call the plugin's tools by the names its description gives, in the user's folder, with the plugin's hooks run", async () => {
    const server = targetOf(plan).shownServerName('codex')
    const description = harness('codex')
    const call = (tool: string, input: Record<string, unknown>): ToolCall => ({ name: description.modelToolName(server, tool), namespace: description.toolNamespace!(server), input })
    const model: ScriptedModel = await startScriptedModel({
      scripts: { main: [{ calls: [call('word_count', { text: 'one two three' })] }, { calls: [call('delete_note', { name: 'keep-list' })] }, { text: 'Done.' }] },
      conversationOf: (request) => (request.tools.length > 0 ? 'main' : undefined),
      maxRequests: 10,
    })
    try {
      // The user's config as the install left it (the marketplace, the plugin enabled), and the scripted provider.
      const configFile = join(env.CODEX_HOME!, 'config.toml')
      const config = {
        ...parseToml(await readFile(configFile, 'utf8')),
        model: 'scripted',
        model_provider: 'scripted',
        model_providers: { scripted: { name: 'Scripted', base_url: `${model.url}/v1`, wire_api: 'responses' } },
        projects: { [work]: { trust_level: 'trusted' } },
      }
      expect(config).toMatchObject({ plugins: { [id]: { enabled: true } } })
      await writeFile(configFile, stringifyToml(config))
      // Headless, a plugin's hooks run only trusted: the user trusts them once in `/hooks`.
      const args = ['exec', '--disable', 'remote_plugin', '-c', 'analytics.enabled=false', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', '--json', 'Go.']
      const result = await harnessRun(model, codex, args, { cwd: work, env })
      expect(result.code, result.stderr).toBe(0)
      expect(model.refused).toEqual([])
      const [first, second, third] = model.conversation('main')
      const shown = first!.tools.filter((tool) => tool.namespace === description.toolNamespace!(server)).map((tool) => tool.name)
      expect(shown.sort()).toEqual(['delete_note', 'word_count'])
      expect(JSON.stringify(first!.body)).toContain('Working in codex.')
      expect(second!.toolResults[0]!.text).toContain(`3 words, counted in ${work}.`)
      expect(third!.toolResults[0]!.text).toContain('keep-list is kept')
    } finally {
      await model.close()
    }
  })
})

/* ---------------------------------------------------------------- pi */

/** pi's SDK, started in the user's folder as the CLI starts: what it loaded from the package, and one call. */
const PI_LOAD = `
import { createAgentSession, SessionManager } from ${JSON.stringify(join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/index.js'))}
const cwd = process.argv[2]
const { session, extensionsResult } = await createAgentSession({ cwd, agentDir: process.env.PI_CODING_AGENT_DIR, sessionManager: SessionManager.inMemory() })
const result = await session.getToolDefinition('word_count').execute('call', { text: 'one two three' }, undefined, () => {}, { cwd })
console.log(JSON.stringify({
  errors: extensionsResult.errors,
  extensions: extensionsResult.extensions.map((extension) => extension.path),
  tools: session.getAllTools().map((tool) => ({ name: tool.name, path: tool.sourceInfo?.path })),
  skills: session.resourceLoader.getSkills().skills.map((skill) => ({ name: skill.name, path: skill.filePath, userOnly: skill.disableModelInvocation })),
  prompts: session.promptTemplates.map((prompt) => ({ name: prompt.name, content: prompt.content })),
  result: result.content.map((block) => block.text),
}))
process.exit(0)
`

describe(`pi ${harness('pi').proof.cli.version}`, () => {
  const pi = join(repoRoot, 'node_modules/.bin/pi')
  let homeDir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    ;({ home: homeDir, env } = await home())
  })

  it('installs the folder as a package and lists it', async () => {
    const installed = await offlineRun(pi, ['install', out], { cwd: work, env })
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain(`Installed ${out}`)
    const listed = await offlineRun(pi, ['list'], { cwd: work, env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(out)
  })

  it("loads the package's tools, hooks, skills and prompts in the user's folder, and a tool runs there", async () => {
    const script = join(await temp('oac-plugin-pi-'), 'load.mjs')
    await writeFile(script, PI_LOAD)
    const run = await offlineRun('node', [script, work], { cwd: work, env })
    expect(run.code, run.stderr).toBe(0)
    const loaded = JSON.parse(run.stdout.slice(run.stdout.indexOf('{"errors"'))) as {
      errors: unknown[]
      extensions: string[]
      tools: Array<{ name: string; path?: string }>
      skills: Array<{ name: string; path: string; userOnly: boolean }>
      prompts: Array<{ name: string; content: string }>
      result: string[]
    }
    expect(loaded.errors).toEqual([])
    expect(loaded.extensions).toEqual([join(out, 'pi/extensions/oac-tools.ts'), join(out, 'pi/extensions/oac-tools-hooks.ts')])
    for (const name of ['word_count', 'delete_note']) expect(loaded.tools.find((tool) => tool.name === name)?.path).toBe(join(out, 'pi/extensions/oac-tools.ts'))
    expect(loaded.result).toEqual([`3 words, counted in ${work}.`])
    // pi/skills/ alone: the root skills/ (Gemini CLI's and oh-my-pi's) is not the package's.
    expect(loaded.skills).toEqual([
      { name: 'counting', path: join(out, 'pi/skills/counting/SKILL.md'), userOnly: false },
      { name: 'tidy', path: join(out, 'pi/skills/tidy/SKILL.md'), userOnly: true },
    ])
    expect(loaded.prompts.find((prompt) => prompt.name === 'count')?.content.trim()).toBe('Count the words of $ARGUMENTS.')
  })
  it("lets the model call the package's tools in the user's folder, with the package's hooks run", async () => {
    const { results, context } = await scriptedRun('pi', homeDir, env)
    expect(results[0]).toBe(`3 words, counted in ${work}.`)
    expect(results[1]).toBe('keep-list is kept')
    expect(context).toBe(true)
  })
})

/* ---------------------------------------------------------------- oh-my-pi */

/** omp's SDK under bun, started in the user's folder: what it loaded from the plugin, and one call. */
function ompLoad(prefix: string): string {
  const root = join(prefix, 'node_modules/@oh-my-pi/pi-coding-agent/src')
  return `
const { createAgentSession } = await import(${JSON.stringify(join(root, 'sdk.ts'))})
const { SessionManager } = await import(${JSON.stringify(join(root, 'session/session-manager.ts'))})
const { loadCapability } = await import(${JSON.stringify(join(root, 'capability/index.ts'))})
const cwd = process.argv[2]
const { session, extensionsResult } = await createAgentSession({ cwd, sessionManager: SessionManager.inMemory(cwd) })
const result = await session.getToolByName('word_count').execute('call', { text: 'one two three' }, undefined, () => {})
const named = async (id) => (await loadCapability(id, { cwd })).items.map((item) => ({ name: item.name, path: item.path }))
console.log(JSON.stringify({
  errors: extensionsResult.errors,
  extensions: extensionsResult.extensions.map((extension) => extension.path),
  tools: session.getAllToolNames(),
  skills: await named('skills'),
  commands: await named('slash-commands'),
  result: result.content.map((block) => block.text),
}))
process.exit(0)
`
}

describe(`oh-my-pi ${harness('omp').proof.cli.version} under bun ${BUN}`, () => {
  let bin: string
  let prefix: string
  let homeDir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    bin = await cli('omp', [`bun@${BUN}`])
    prefix = join(bin, '../..')
    ;({ home: homeDir, env } = await home())
    env = { ...env, PATH: `${bin}:${env.PATH}` }
  })

  const omp = (args: string[]) => offlineRun(join(bin, 'bun'), [join(bin, 'omp'), ...args], { cwd: work, env })

  it('installs the folder as a plugin (a link to it) and lists it', async () => {
    const installed = await omp(['plugin', 'install', out])
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain(`Linked ${PLUGIN.name} from ${out}`)
    const listed = await omp(['plugin', 'list'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(`${PLUGIN.name}@${PLUGIN.version}`)
  })

  it("loads the plugin's native tools, hooks' extension, skills and command in the user's folder, and a tool runs there", async () => {
    const script = join(await temp('oac-plugin-omp-'), 'load.ts')
    await writeFile(script, ompLoad(prefix))
    const run = await offlineRun(join(bin, 'bun'), [script, work], { cwd: work, env })
    expect(run.code, run.stderr).toBe(0)
    const loaded = JSON.parse(run.stdout.slice(run.stdout.indexOf('{"errors"'))) as {
      errors: unknown[]
      extensions: string[]
      tools: string[]
      skills: Array<{ name: string; path: string }>
      commands: Array<{ name: string; path: string }>
      result: string[]
    }
    const installed = join(env.HOME!, '.omp/plugins/node_modules', PLUGIN.name)
    expect(loaded.errors).toEqual([])
    expect(loaded.extensions).toContain(join(installed, 'omp/extensions/oac-tools-hooks.ts'))
    // Its tools natively, by the names the description gives them, and none over MCP.
    for (const tool of ['word_count', 'delete_note']) expect(loaded.tools).toContain(harness('omp').modelToolName(targetOf(plan).shownServerName('omp'), tool))
    expect(loaded.tools.filter((name) => name.startsWith('mcp'))).toEqual([])
    expect(loaded.result).toEqual([`3 words, counted in ${work}.`])
    const ours = (items: Array<{ name: string; path: string }>) => items.filter((item) => item.path.startsWith(installed)).map((item) => [item.name, item.path.slice(installed.length + 1)])
    expect(ours(loaded.skills)).toEqual([
      ['counting', 'skills/counting/SKILL.md'],
      ['tidy', 'skills/tidy/SKILL.md'],
    ])
    expect(ours(loaded.commands)).toEqual([['count', 'commands/count.md']])
  })

  it("lets the model call the plugin's tools in the user's folder, with the plugin's hooks run", async () => {
    const { results, context } = await scriptedRun('omp', homeDir, env)
    expect(results[0]).toBe(`3 words, counted in ${work}.`)
    expect(results[1]).toBe('keep-list is kept')
    expect(context).toBe(true)
  })
})
