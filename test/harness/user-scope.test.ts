import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { writeOutputs } from '../../src/write/index.js'
import { copyProject, repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome, pluginTemplate, preinstallPlugin } from './cache.js'
import { BUN, DRIVERS, installQwen, KILO_PLUGIN } from './drivers.js'
import { offlineRun } from './offline.js'
import { startScriptedModel, type Turn } from './scripted-model.js'

/*
 * User scope in the real CLIs: the two registries of test/fixtures/user-scope (`writing`: word_count,
 * delete_note, the agent editor, the skill counting, the command count; `travel`: forecast, planner,
 * packing, trip), installed side by side with `scope: 'user'` into one temp home that already holds the
 * user's own settings, its ~/.config a link to a dotfiles checkout. Each CLI, started offline in an
 * unrelated folder with that HOME and none of its override variables (Cline: against the scripted model,
 * which it has no list without), must see both registries' tools;
 * then `travel` is removed and each must see `writing` alone. That the files land byte for byte and go again is test/api/user-scope.test.ts; the
 * scripted-model runs are test/harness/user-scope-model.test.ts. What each CLI did is in docs/user-scope.md.
 *   npm run build && npx vitest run --config vitest.harness.config.ts test/harness/user-scope.test.ts
 */

/** Each registry's server name, and a tool and the agent given it. */
const REGISTRIES = { writing: { server: 'writing-tools', tool: 'word_count', agent: 'editor' }, travel: { server: 'travel-tools', tool: 'forecast', agent: 'planner' } } as const
type Registry = keyof typeof REGISTRIES

const cleanup: string[] = []
let home: string
/** HOME, PATH and TMPDIR alone: every CLI finds its user folders from the home, as on a user's machine. */
let env: NodeJS.ProcessEnv
/** The folder each CLI starts in: a user's folder that holds nothing of ours. */
let work: string
/** What a CLI printed last, for the message of a test that fails. */
let lastOutput = ''
/** The plan of the registry `writing` (a driver's run takes one). */
let writingPlan: Plan

async function temp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  cleanup.push(dir)
  return dir
}

async function bin(id: Harness, name: string, extra: string[] = []): Promise<string> {
  const { package: pkg, version } = harness(id).proof.cli
  return join(await installHarnessPackage(pkg, version, extra), 'node_modules/.bin', name)
}

beforeAll(async () => {
  const root = await copyProject(join(repoRoot, 'test/fixtures/user-scope'), 'oac-user-scope-cli-')
  cleanup.push(root)
  const isolated = await isolatedHome()
  home = isolated.home
  cleanup.push(home)
  env = { PATH: process.env.PATH, HOME: home, TMPDIR: isolated.env.TMPDIR }
  work = await temp('oac-user-work-')
  // ~/.config links to a dotfiles checkout, as dotfiles managers make it: opencode's and Kilo's files are
  // written through the link, and their tool files find the scripts from the home, not from where they really are.
  const dotfiles = await temp('oac-user-dotfiles-')
  await symlink(dotfiles, join(home, '.config'), 'dir')
  // The user's own settings, which the install merges into.
  const own: Record<string, string> = {
    '.claude.json': '{\n  "numStartups": 1\n}\n',
    '.codex/config.toml': '# mine\nmodel = "o3"\n',
    '.gemini/settings.json': '{ "security": { "auth": { "selectedType": "gemini-api-key" } } }\n',
    '.config/opencode/opencode.json': '{ "$schema": "https://opencode.ai/config.json" }\n',
  }
  for (const [path, text] of Object.entries(own)) {
    await mkdir(join(home, path, '..'), { recursive: true })
    await writeFile(join(home, path), text)
  }
  for (const [registry, { server }] of Object.entries(REGISTRIES)) {
    const { plan } = await compile({ root, registry: `agents/registry.ts:${registry}`, scope: 'user', target: home, serverName: server })
    if (registry === 'writing') writingPlan = plan
  }
  // Offline, opencode and Kilo would wait to install their plugin package into their config folder.
  await preinstallPlugin(await pluginTemplate('@opencode-ai/plugin', harness('opencode').proof.cli.version), join(home, '.config/opencode'))
  await preinstallPlugin(await pluginTemplate('@kilocode/plugin', KILO_PLUGIN), join(home, '.config/kilo'))
}, 600_000)

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** Runs a CLI offline in the user's folder; its output (on `stream`), having checked it exited 0. */
async function run(command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, stream: 'stdout' | 'stderr' = 'stdout'): Promise<string> {
  const result = await offlineRun(command, args, { cwd: work, env: { ...env, ...extraEnv } })
  lastOutput = `${command} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`
  expect(result.code, lastOutput).toBe(0)
  return result[stream]
}

/** pi's SDK in the user's folder: its tools, and a call of each listed. */
const PI_LOAD = `
import { createAgentSession, SessionManager } from ${JSON.stringify(join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/index.js'))}
const [cwd, calls] = process.argv.slice(2)
const { session, extensionsResult } = await createAgentSession({ cwd, sessionManager: SessionManager.inMemory() })
const results = []
for (const [tool, input] of JSON.parse(calls)) results.push((await session.getToolDefinition(tool).execute('call', input, undefined, () => {}, { cwd })).content.map((block) => block.text).join(''))
console.log(JSON.stringify({ errors: extensionsResult.errors, tools: session.getAllTools().map((tool) => tool.name), results }))
process.exit(0)
`

/** oh-my-pi's SDK under bun in the user's folder, the same. */
function ompLoad(prefix: string): string {
  const src = join(prefix, 'node_modules/@oh-my-pi/pi-coding-agent/src')
  return `
const { createAgentSession } = await import(${JSON.stringify(join(src, 'sdk.ts'))})
const { SessionManager } = await import(${JSON.stringify(join(src, 'session/session-manager.ts'))})
const [cwd, calls] = process.argv.slice(2)
const { session, extensionsResult } = await createAgentSession({ cwd, sessionManager: SessionManager.inMemory(cwd) })
const results = []
for (const [tool, input] of JSON.parse(calls)) results.push((await session.getToolByName(tool).execute('call', input, undefined, () => {})).content.map((block) => block.text).join(''))
console.log(JSON.stringify({ errors: extensionsResult.errors, tools: session.getAllToolNames(), results }))
process.exit(0)
`
}

/** The JSON object a loader script printed last. */
function printed<T>(stdout: string): T {
  return JSON.parse(stdout.slice(stdout.lastIndexOf('\n{') + 1)) as T
}

/** Each tool's input for a call in a loader, and the text its script gives back from the user's folder. */
const CALLS: Record<Registry, [string, Record<string, string>, () => string]> = {
  writing: ['word_count', { text: 'one two three' }, () => `3 words, counted in ${work}.`],
  travel: ['forecast', { city: 'Oslo' }, () => 'Sunny in Oslo.'],
}

/**
 * Which registries `id`, started in the user's folder, shows: for each, whether its server is listed
 * connected (MCP harnesses) or its tool loaded and ran there (native ones).
 */
const SEES: Record<Harness, () => Promise<Registry[]>> = {
  async claude() {
    const listed = await run(await bin('claude', 'claude'), ['mcp', 'list'])
    return registries((server) => new RegExp(`^${server}: .* - ✔ Connected$`, 'm').test(listed))
  },
  async codex() {
    const listed = await run(await bin('codex', 'codex'), ['mcp', 'list', '-c', 'analytics.enabled=false'])
    return registries((server) => new RegExp(`^${server}\\s.*\\senabled\\s`, 'm').test(listed))
  },
  async gemini() {
    // Gemini CLI shows user MCP servers only in a folder the user trusts (docs/user-scope.md).
    // It prints the list on standard error.
    const listed = await run(await bin('gemini', 'gemini'), ['mcp', 'list'], { GEMINI_CLI_TRUST_WORKSPACE: 'true' }, 'stderr')
    return registries((server) => new RegExp(`✓ ${server}: .* - Connected$`, 'm').test(listed))
  },
  async qwen() {
    const { node, cli } = await installQwen()
    const listed = await run(node, [cli, 'mcp', 'list'], { PATH: `${join(node, '..')}:${env.PATH}` })
    return registries((server) => new RegExp(`✓\\S* ${server}: .* - Connected$`, 'm').test(listed))
  },
  async copilot() {
    const { mcpServers } = JSON.parse(await run(await bin('copilot', 'copilot'), ['mcp', 'list', '--json'])) as { mcpServers: Record<string, { source?: string; enabled?: boolean }> }
    return registries((server) => mcpServers[server]?.source === 'user' && mcpServers[server].enabled === true)
  },
  opencode: () => opencodeFamily('opencode'),
  kilo: () => opencodeFamily('kilo'),
  async pi() {
    const script = join(await temp('oac-user-pi-'), 'load.mjs')
    await writeFile(script, PI_LOAD)
    return loaded(await run('node', [script, work, JSON.stringify(calls())]))
  },
  async omp() {
    const dir = await bin('omp', 'omp', [`bun@${BUN}`])
    const script = join(await temp('oac-user-omp-'), 'load.ts')
    await writeFile(script, ompLoad(join(dir, '../../..')))
    return loaded(await run(join(dir, '../bun'), [script, work, JSON.stringify(calls())], { PATH: `${join(dir, '..')}:${env.PATH}` }))
  },
  // No command lists Cline's plugins without a terminal (docs/cline.md): a run against the scripted model
  // (loopback only) in the user's folder shows the tools its plugins registered, and calls one of each registry it has.
  async cline() {
    const main: Turn[] = [...present.map((registry) => ({ calls: [{ name: CALLS[registry][0], input: CALLS[registry][1] }] })), { text: 'done' }]
    const model = await startScriptedModel({ scripts: { main }, conversationOf: (request) => (request.tools.length > 0 ? 'main' : undefined), maxRequests: 10 })
    try {
      await DRIVERS.cline.install()
      const result = await DRIVERS.cline.run(model, { project: work, plan: writingPlan, home, env })
      lastOutput = `${result.stdout}\n${result.stderr}`
      expect(result.code, lastOutput).toBe(0)
    } finally {
      await model.close()
    }
    const [first, ...rest] = model.conversation('main')
    expect(rest.map((request) => request.toolResults.map((result) => result.text).join(''))).toEqual(present.map((registry) => CALLS[registry][2]()))
    const tools = first!.tools.map((tool) => tool.name)
    return registries((server) => tools.includes(Object.values(REGISTRIES).find((registry) => registry.server === server)!.tool))
  },
}

/** The registries whose server `listed` says is there. */
function registries(listed: (server: string) => boolean): Registry[] {
  return (Object.keys(REGISTRIES) as Registry[]).filter((registry) => listed(REGISTRIES[registry].server))
}

/** The calls a loader makes: one tool of each registry it has (a loader calls only the tools it lists). */
let present: Registry[] = ['writing', 'travel']
const calls = () => present.map((registry) => CALLS[registry].slice(0, 2))

/** What a loader printed: no load errors, and each registry whose tool it has and whose call gave the script's text. */
function loaded(stdout: string): Registry[] {
  const { errors, tools, results } = printed<{ errors: unknown[]; tools: string[]; results: string[] }>(stdout)
  expect(errors).toEqual([])
  expect(results).toEqual(present.map((registry) => CALLS[registry][2]()))
  return registries((server) => tools.includes(Object.values(REGISTRIES).find((registry) => registry.server === server)!.tool))
}

/** opencode or Kilo: each registry's agent has its tool (`debug agent`), and the tool runs in the user's folder. */
async function opencodeFamily(id: 'opencode' | 'kilo'): Promise<Registry[]> {
  const cli = await bin(id, id)
  const quiet = { [`${id.toUpperCase()}_DISABLE_AUTOUPDATE`]: '1', [`${id.toUpperCase()}_DISABLE_MODELS_FETCH`]: '1' }
  const seen: Registry[] = []
  for (const registry of Object.keys(REGISTRIES) as Registry[]) {
    const { agent, tool } = REGISTRIES[registry]
    const result = await offlineRun(cli, ['debug', 'agent', agent], { cwd: work, env: { ...env, ...quiet } })
    if (result.code !== 0 || !new RegExp(`"${tool}":\\s*true`).test(result.stdout)) continue
    const [, input, expected] = CALLS[registry]
    const ran = await run(cli, ['debug', 'agent', agent, '--tool', tool, '--params', JSON.stringify(input)], quiet)
    expect(ran).toContain(expected())
    seen.push(registry)
  }
  return seen
}

describe.each(['both registries', 'writing alone, once travel is removed'])('%s', (round) => {
  const expected: Registry[] = round === 'both registries' ? ['writing', 'travel'] : ['writing']

  beforeAll(async () => {
    if (expected.length === 2) return
    const removed = await writeOutputs([], { target: home, mode: 'write', force: false, owner: REGISTRIES.travel.server })
    expect(removed.diagnostics).toEqual([])
    present = expected
  })

  it.each(HARNESSES.map((id) => [`${harness(id).title} ${harness(id).proof.cli.version}`, id] as const))('%s, started in an unrelated folder, sees them', async (_title, id) => {
    expect(await SEES[id](), lastOutput).toEqual(expected)
  })
})
