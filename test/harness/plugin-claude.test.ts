import { execFile } from 'node:child_process'
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, harnessRun } from './drivers.js'
import { offlineRun } from './offline.js'
import type { BoundedRun } from './project.js'
import { type ScriptedModel, startScriptedModel, type Turn } from './scripted-model.js'

/*
 * The Claude Code plugin format of a plugin folder (src/emit/plugin/claude.ts), in the real CLIs that
 * install it: Claude Code and the Copilot CLI. test/fixtures/plugin-claude (two agents, two tools, a
 * guard hook, an agent's own hook, a skill, a command) compiled with `--plugin` for both; each CLI runs
 * in an unrelated git folder (the user's project) with a fresh home:
 *   - `claude plugin validate`; Claude Code with `--plugin-dir`, and installed from the folder as a
 *     local marketplace, lists the tools, agents, skill and command (its stream-json init event);
 *   - `copilot plugin install <dir>`, and the folder as a local marketplace, then `plugin list` and `skill list`;
 *   - with the scripted model, each calls the plugin's `forecast` by the name the description gives
 *     (`plugin.serverName`) and gets its result, the tool working in the user's folder; Claude Code's
 *     plugin hook blocks a call; a command runs as the plugin's agent.
 * What each CLI did is in docs/plugins.md.
 *   npm run build && npx vitest run --config vitest.harness.config.ts test/harness/plugin-claude.test.ts
 */

const FIXTURE = join(repoRoot, 'test/fixtures/plugin-claude')
const PLUGIN = 'trip-kit'
const CITY = 'Lisbon'

let plugin: string
let plan: Plan
/** The user's project: an unrelated git folder the CLIs run in. */
let work: string
const cleanup: string[] = []

beforeAll(async () => {
  const source = await copyProject(FIXTURE, 'oac-plugin-src-')
  plugin = await tempDir('oac-plugin-claude-')
  work = await tempDir('oac-plugin-work-')
  cleanup.push(source, plugin, work)
  await promisify(execFile)('git', ['init', '-q', work])
  ;({ plan } = await compile({ root: source, registry: 'agents/registry.ts:registry', target: plugin, harnesses: ['claude', 'copilot'], plugin: {} }))
  expect(plan.plugin?.name).toBe(PLUGIN)
  await DRIVERS.claude.install()
  await DRIVERS.copilot.install()
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

async function home(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const isolated = await isolatedHome()
  cleanup.push(isolated.home)
  return isolated
}

async function bin(id: Harness): Promise<string> {
  const { cli } = harness(id).proof
  return join(await installHarnessPackage(cli.package, cli.version), 'node_modules/.bin', cli.bin)
}

/** The name the model sees for one of the plugin's tools in `id`, from the description (what the prompts document). */
const shown = (id: Harness, tool: string) => harness(id).modelToolName(harness(id).plugin.serverName(PLUGIN, plan.serverName), tool)

/** What the tool prints when run directly in the user's folder: what the harness must hand back. */
const expected = () => `Sunny in ${CITY}, asked from ${work}.`

/* ---------------------------------------------------------------- Claude Code */

const CLAUDE_ENV = {
  ANTHROPIC_API_KEY: 'scripted-model-key',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  MCP_CONNECTION_NONBLOCKING: 'false',
  ENABLE_TOOL_SEARCH: 'false',
}

/** Claude Code headless in the user's folder against `model`, as the driver runs it, keeping the user settings a plugin install wrote. */
async function claude(model: ScriptedModel, env: NodeJS.ProcessEnv, args: string[], prompt = 'Go.'): Promise<BoundedRun> {
  const run = await harnessRun(model, await bin('claude'), ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', ...args], {
    cwd: work,
    env: { ...env, ...CLAUDE_ENV, ANTHROPIC_BASE_URL: model.url },
  })
  expect(run.timedOut, run.stderr).toBe(false)
  return run
}

interface ClaudeInit {
  tools: string[]
  mcp_servers: Array<{ name: string; status: string }>
  agents: string[]
  skills: string[]
  slash_commands: string[]
  plugins: Array<{ name: string; path: string }>
  plugin_errors?: unknown[]
}

/** Claude Code's stream-json init event of one run that answers at once. */
async function claudeInit(env: NodeJS.ProcessEnv, args: string[]): Promise<ClaudeInit> {
  const model = await startScriptedModel({ scripts: { main: [{ text: 'ok' }] }, conversationOf: conversationOf(plan), maxRequests: 10 })
  try {
    const run = await claude(model, env, args)
    const line = run.stdout.split('\n').find((text) => text.includes('"subtype":"init"'))
    expect(line, `${run.stdout}\n${run.stderr}`).toBeDefined()
    return JSON.parse(line!) as ClaudeInit
  } finally {
    await model.close()
  }
}

function expectListed(init: ClaudeInit): void {
  expect(init.plugin_errors ?? []).toEqual([])
  expect(init.plugins.find((entry) => entry.name === PLUGIN)).toBeDefined()
  expect(init.tools).toEqual(expect.arrayContaining([shown('claude', 'forecast'), shown('claude', 'pack')]))
  expect(init.mcp_servers).toContainEqual({ name: `plugin:${PLUGIN}:${plan.serverName}`, status: 'connected', source: 'plugin' })
  expect(init.agents).toEqual(expect.arrayContaining([`${PLUGIN}:planner`, `${PLUGIN}:packer`]))
  expect(init.skills).toContain(`${PLUGIN}:trip-reports`)
  expect(init.slash_commands).toContain(`${PLUGIN}:plan-trip`)
}

describe(`${DRIVERS.claude.title}: the plugin`, () => {
  it('passes `claude plugin validate`, manifest and marketplace', async () => {
    const { env } = await home()
    const run = await offlineRun(await bin('claude'), ['plugin', 'validate', plugin], { cwd: work, env })
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    expect(run.stdout).toContain('Validating marketplace manifest')
    expect(run.stdout).toContain(`agents: ${PLUGIN}:planner`)
    expect(run.stdout).toContain(`mcpServers: ${plan.serverName} stdio node`)
    // No warning: the author (and license, repository, homepage, keywords) come from package.json. The plugin
    // directory's submission checks (README, icon) are listed apart and, as the CLI says, do not change the result.
    expect(run.stdout).toMatch(/✔ Validation passed\n/)
    expect(run.stdout).not.toContain('Validation passed with warnings')
    expect(run.stdout).not.toContain('No author information')
  })

  it('started with --plugin-dir, shows its tools, agents, skill and command', async () => {
    const { env } = await home()
    expectListed(await claudeInit(env, ['--plugin-dir', plugin]))
  })

  it('installed from the folder as a local marketplace, lists it and shows the same', async () => {
    const { env } = await home()
    const cli = await bin('claude')
    for (const args of [['plugin', 'marketplace', 'add', plugin], ['plugin', 'install', `${PLUGIN}@${PLUGIN}`, '--scope', 'user']]) {
      const run = await offlineRun(cli, args, { cwd: work, env })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    }
    const list = await offlineRun(cli, ['plugin', 'list'], { cwd: work, env })
    expect(list.stdout).toMatch(new RegExp(`${PLUGIN}@${PLUGIN}\\n\\s+Version: ${plan.plugin!.version}[\\s\\S]*?Status: ✔ enabled`))
    expectListed(await claudeInit(env, []))
    // And the installed plugin's tool, called by the model, works in the user's folder.
    const name = shown('claude', 'forecast')
    const main: Turn[] = [{ calls: [{ name, input: { city: CITY } }] }, { text: 'done' }]
    const model = await startScriptedModel({ scripts: { main }, conversationOf: conversationOf(plan), maxRequests: 20 })
    try {
      const run = await claude(model, env, ['--allowedTools', name])
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    expect(DRIVERS.claude.resultText(model.conversation('main')[1]!.toolResults[0]!.text).trim()).toBe(expected())
  })

  it("reads the manifest's agents and commands in place of a root agents/ and commands/, but a root skills/ and hooks/hooks.json as well", async () => {
    // Another format's files at the root, as a Gemini extension in the same folder has them.
    const shared = await tempDir('oac-plugin-shared-')
    await cp(plugin, shared, { recursive: true })
    const file = async (path: string, content: string) => {
      await mkdir(dirname(join(shared, path)), { recursive: true })
      await writeFile(join(shared, path), content)
    }
    await file('agents/other-agent.md', '---\nname: other-agent\ndescription: Another format\'s agent.\n---\nHi.\n')
    await file('commands/other-command.md', '---\ndescription: Another format\'s command.\n---\nHi.\n')
    await file('skills/other-skill/SKILL.md', '---\nname: other-skill\ndescription: Another format\'s skill.\n---\nHi.\n')
    const log = join(shared, 'session-start.log')
    await file('hooks/hooks.json', JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `echo "$CLAUDE_PLUGIN_ROOT" >> ${log}` }] }] } }))
    const { env } = await home()
    const init = await claudeInit(env, ['--plugin-dir', shared])
    expect(init.agents).not.toContain(`${PLUGIN}:other-agent`)
    expect(init.slash_commands).not.toContain(`${PLUGIN}:other-command`)
    expect(init.agents).toContain(`${PLUGIN}:planner`)
    // Loaded whatever the manifest says (docs/plugins.md: the root skills/ and hooks/ are shared ground).
    expect(init.skills).toContain(`${PLUGIN}:other-skill`)
    expect(init.skills).toContain(`${PLUGIN}:trip-reports`)
    expect((await readFile(log, 'utf8')).trim()).toBe(shared)
  })

  it("the model calls the plugin's tool by its documented name and gets the result, from the user's folder", async () => {
    const { env } = await home()
    const name = shown('claude', 'forecast')
    const main: Turn[] = [{ calls: [{ name, input: { city: CITY } }] }, { calls: [{ name, input: { city: 'Atlantis' } }] }, { text: 'done' }]
    const model = await startScriptedModel({ scripts: { main }, conversationOf: conversationOf(plan), maxRequests: 20 })
    try {
      const run = await claude(model, env, ['--plugin-dir', plugin, '--allowedTools', name])
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const requests = model.conversation('main')
    expect(requests).toHaveLength(main.length)
    expect(DRIVERS.claude.resultText(requests[1]!.toolResults[0]!.text).trim()).toBe(expected())
    // The plugin's PreToolUse hook, found from ${CLAUDE_PLUGIN_ROOT}, blocks the second call with its reason.
    expect(requests[2]!.toolResults[0]!.text).toContain('Atlantis has no weather')
  })

  it("takes the plugin's skill up and runs its documented command from the skill's folder, in the user's folder", async () => {
    const { env } = await home()
    const folder = join(plugin, 'skills/trip-reports')
    const main: Turn[] = [
      { calls: [{ name: 'Skill', input: { skill: `${PLUGIN}:trip-reports` } }] },
      { calls: [{ name: 'Bash', input: { command: `node ${folder}/scripts/forecast.mjs --city ${CITY}`, description: 'Run the forecast' } }] },
      { text: 'done' },
    ]
    const model = await startScriptedModel({ scripts: { main }, conversationOf: conversationOf(plan), maxRequests: 20 })
    try {
      // The user lets the Skill tool run; the skill's `allowed-tools` lets Bash run its command.
      const run = await claude(model, env, ['--plugin-dir', plugin, '--allowedTools', 'Skill'])
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const requests = model.conversation('main')
    expect(requests).toHaveLength(main.length)
    const instructions = JSON.stringify(requests[1]!.body)
    expect(instructions).toContain('Write a trip report for each city the user names')
    expect(instructions).toContain(folder)
    expect(instructions).toContain('node scripts/forecast.mjs --city <string>')
    expect(DRIVERS.claude.resultText(requests[2]!.toolResults[0]!.text).trim()).toBe(expected())
  })

  it("runs the plugin's command as the plugin's agent (`agent: <plugin>:<agent>`)", async () => {
    const { env } = await home()
    const scripts = { main: [{ text: 'done' }, { text: 'done' }], planner: [{ text: 'done' }, { text: 'done' }] }
    const model = await startScriptedModel({ scripts, conversationOf: conversationOf(plan), maxRequests: 20 })
    try {
      const run = await claude(model, env, ['--plugin-dir', plugin], `/${PLUGIN}:plan-trip ${CITY}`)
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const holding = model.requests.filter((request) => request.conversation !== undefined && JSON.stringify(request.body).includes(`Plan a trip to ${CITY}.`))
    expect(holding.length).toBeGreaterThan(0)
    expect(holding[0]!.conversation).toBe('planner')
  })
})

/* ---------------------------------------------------------------- Copilot CLI */

/** A fresh Copilot home that trusts the user's folder, with the plugin installed from the folder as it is. */
async function copilotHome(): Promise<NodeJS.ProcessEnv> {
  const { home: homeDir, env } = await home()
  const copilotDir = join(homeDir, '.copilot')
  await mkdir(copilotDir, { recursive: true })
  await writeFile(join(copilotDir, 'config.json'), JSON.stringify({ trusted_folders: [work] }))
  const copilotEnv = { ...env, COPILOT_HOME: copilotDir, COPILOT_OFFLINE: 'true' }
  const run = await offlineRun(await bin('copilot'), ['plugin', 'install', plugin], { cwd: work, env: copilotEnv })
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
  expect(run.stdout).toContain(`Plugin "${PLUGIN}" installed successfully`)
  return copilotEnv
}

describe(`${DRIVERS.copilot.title}: the plugin, installed from the folder as it is`, () => {
  it('`plugin list` shows it, `skill list` its skill and command', async () => {
    const env = await copilotHome()
    const config = await readFile(join(env.COPILOT_HOME!, 'config.json'), 'utf8')
    expect(config).toContain('"trustedFolders"')
    const cli = await bin('copilot')
    const list = await offlineRun(cli, ['plugin', 'list'], { cwd: work, env })
    expect(list.stdout).toContain(`${PLUGIN} (v${plan.plugin!.version})`)
    const skills = await offlineRun(cli, ['skill', 'list'], { cwd: work, env })
    const pluginSkills = skills.stdout.slice(skills.stdout.indexOf('Plugin skills:'), skills.stdout.indexOf('Builtin skills:'))
    expect(pluginSkills).toMatch(/^ {2}trip-reports - /m)
    expect(pluginSkills).toMatch(/^ {2}plan-trip - /m)
  })

  it('added as a local marketplace (the route Copilot keeps), installs as `<plugin>@<plugin>`, loaded live from the folder', async () => {
    const { home: homeDir, env: homeEnv } = await home()
    const copilotDir = join(homeDir, '.copilot')
    await mkdir(copilotDir, { recursive: true })
    const env = { ...homeEnv, COPILOT_HOME: copilotDir, COPILOT_OFFLINE: 'true' }
    const cli = await bin('copilot')
    for (const args of [['plugin', 'marketplace', 'add', plugin], ['plugin', 'install', `${PLUGIN}@${PLUGIN}`]]) {
      const run = await offlineRun(cli, args, { cwd: work, env })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    }
    const list = await offlineRun(cli, ['plugin', 'list'], { cwd: work, env })
    expect(list.stdout).toContain(`${PLUGIN}@${PLUGIN} (v${plan.plugin!.version}) (enabled)`)
    expect(list.stdout).toContain(`from ${plugin}`)
    const skills = await offlineRun(cli, ['skill', 'list'], { cwd: work, env })
    expect(skills.stdout).toMatch(/^ {2}trip-reports - /m)
  })

  it("the model calls the plugin's tool by its documented name and gets the result; the plugin's hook blocks a call; its agent gets its tool", async () => {
    const env = await copilotHome()
    const name = shown('copilot', 'forecast')
    const main: Turn[] = [
      { calls: [{ name, input: { city: CITY } }] },
      { calls: [{ name, input: { city: 'Atlantis' } }] },
      ...DRIVERS.copilot.startAgent!(`${PLUGIN}:planner`),
      { text: 'done' },
    ]
    const planner: Turn[] = [{ calls: [{ name, input: { city: CITY } }] }, DRIVERS.copilot.finishAgent('planned')]
    const model = await startScriptedModel({ scripts: { main, planner }, conversationOf: conversationOf(plan), maxRequests: 20 })
    try {
      const run = await harnessRun(model, await bin('copilot'), ['-p', 'Go.', '--allow-all-tools'], {
        cwd: work,
        env: { ...env, COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`, COPILOT_PROVIDER_TYPE: 'openai', COPILOT_MODEL: 'scripted' },
      })
      expect(run.timedOut, run.stderr).toBe(false)
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const requests = model.conversation('main')
    expect(requests[0]!.tools.map((tool) => tool.name)).toContain(name)
    expect(requests).toHaveLength(main.length)
    // The hook of copilot/hooks.json (Copilot's shape, `${PLUGIN_ROOT}`), which .github/plugin/plugin.json names.
    expect(requests[2]!.toolResults[0]!.text).toContain('Atlantis has no weather')
    // The agent is copilot/agents/planner.agent.md: its prompt documents Copilot's name, its tools list gives it.
    const agent = model.conversation('planner')
    expect(agent).toHaveLength(planner.length)
    expect(agent[0]!.system).toContain(`Call the tool \`${name}\``)
    expect(agent[0]!.tools.map((tool) => tool.name)).toContain(name)
    expect(agent[1]!.toolResults[0]!.text).toContain(`Sunny in ${CITY}`)
    // In the user's folder: Copilot starts a plugin's server in the plugin's copy unless `cwd` is `.`.
    expect(DRIVERS.copilot.resultText(requests[1]!.toolResults[0]!.text).trim()).toBe(expected())
  })
})
