import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copilot } from '../../src/compile/harnesses/copilot.js'
import { kilo } from '../../src/compile/harnesses/kilo.js'
import type { Plan } from '../../src/compile/plan.js'
import { installHarnessPackage, isolatedHome, pluginTemplate, preinstallPlugin } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, KILO_PLUGIN, toolCall } from './drivers.js'
import { offlineRun } from './offline.js'
import { direct, playgroundProject } from './project.js'

/**
 * The real GitHub Copilot CLI and Kilo CLI load what we generate for the playground, offline and
 * with no account. Opt-in tier: `npx vitest run --config vitest.harness.config.ts test/harness/copilot-kilo.test.ts`.
 */

const COPILOT_VERSION = '1.0.102'
const KILO_VERSION = '7.7.7'
const SERVER = 'oac-tools'
const AGENTS = ['planner', 'triager', 'reviewer']

let project: string
let plan: Plan
let home: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  ;({ dir: project, plan } = await playgroundProject('oac-harness-ck-', ['copilot', 'kilo']))
  expect(plan.agents.map((a) => a.name)).toEqual(AGENTS)
  ;({ home, env } = await isolatedHome())
  env.FORECAST_UNITS = 'metric'
})

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
  if (home) await rm(home, { recursive: true, force: true })
})

describe(`GitHub Copilot CLI ${COPILOT_VERSION}`, () => {
  let bin = ''
  let copilotEnv: NodeJS.ProcessEnv = {}
  const names = { server: SERVER, tool: 'forecast', agent: 'planner' }

  beforeAll(async () => {
    bin = join(await installHarnessPackage('@github/copilot', COPILOT_VERSION), 'node_modules', '.bin', 'copilot')
    copilotEnv = { ...env, COPILOT_HOME: join(home, '.copilot') }
  })

  async function listed(): Promise<Record<string, { source?: string; sourcePath?: string; enabled?: boolean }>> {
    const result = await offlineRun(bin, copilot.proof.list.args(names), { cwd: project, env: copilotEnv })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^\{/)
    return (JSON.parse(result.stdout) as { mcpServers: Record<string, { source?: string; sourcePath?: string; enabled?: boolean }> }).mcpServers
  }

  it('lists the workspace server only once the folder is trusted, and skips a .mcp.json that has a comment', async () => {
    await mkdir(join(home, '.copilot'), { recursive: true })
    expect(await listed()).not.toHaveProperty(SERVER)
    // The trust Copilot records when the user answers "yes, trust this folder".
    await writeFile(join(home, '.copilot', 'config.json'), JSON.stringify({ trusted_folders: [project] }))
    const result = await offlineRun(bin, copilot.proof.list.args(names), { cwd: project, env: copilotEnv })
    expect(result.stdout).toMatch(copilot.proof.list.expect(names))
    expect((await listed())[SERVER]).toMatchObject({ source: 'workspace', sourcePath: join(project, '.mcp.json'), enabled: true })

    // Why the write step warns about a commented `.mcp.json` when Copilot is selected.
    const mcpJson = join(project, '.mcp.json')
    const original = await readFile(mcpJson, 'utf8')
    await writeFile(mcpJson, `// the team's servers\n${original}`)
    try {
      expect(await listed()).not.toHaveProperty(SERVER)
    } finally {
      await writeFile(mcpJson, original)
    }
  })

  it('in its offline BYOK mode, --agent planner shows the model only its own MCP tools as <server>-<tool>, and the call returns the script output', async () => {
    await DRIVERS.copilot.install()
    const forecast = toolCall('copilot', plan, 'forecast', { city: 'Oslo', days: 1 })
    // The planner is the main agent here: its requests carry its prompt.
    const model = await converse(DRIVERS.copilot, { project, plan, home, env, prompt: 'Plan the week in Oslo.', args: ['--agent', 'planner'] }, {
      planner: [{ calls: [forecast] }, { text: 'Done.' }],
    })
    const [first, second] = model.conversation('planner')
    const shown = first!.tools.map((tool) => tool.name)
    // The planner's MCP tools, none of the triager's; Copilot's own built-ins beside them.
    const own = plan.agents.find((agent) => agent.name === 'planner')!.tools.map((tool) => toolCall('copilot', plan, tool, {}).name)
    expect(own).toContain(forecast.name)
    expect(shown.filter((name) => name.startsWith(`${SERVER}-`)).sort()).toEqual(own.sort())
    // `execute` in its list (its prompt documents the scripts too) gives it Copilot's shell.
    expect(shown).toContain('bash')
    expect(first!.system).toContain(`Call the tool \`${forecast.name}\``)
    // Copilot hands a JSON result back re-serialized (compact), followed by the structured output the
    // forecast's output schema gives it (test/harness/rich-results.test.ts): the same value, twice.
    const expected = await direct(project, 'forecast', forecast.input, env)
    expect(second!.toolResults[0]!.text.replace(/\s+/g, '')).toBe(JSON.stringify(JSON.parse(expected.stdout)).repeat(2))
  })
})

describe(`Kilo CLI ${KILO_VERSION}`, () => {
  let bin = ''
  let kiloEnv: NodeJS.ProcessEnv = {}

  beforeAll(async () => {
    bin = join(await installHarnessPackage('@kilocode/cli', KILO_VERSION), 'node_modules', '.bin', 'kilo')
    kiloEnv = { ...env, KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1' }
    const template = await pluginTemplate('@kilocode/plugin', KILO_PLUGIN)
    await preinstallPlugin(template, join(env.XDG_CONFIG_HOME!, 'kilo'))
    await preinstallPlugin(template, join(project, '.kilo'))
    await mkdir(join(project, 'src', 'deeper'), { recursive: true })
  })

  async function debugAgent(cwd: string, agent: string, tool?: { name: string; params: unknown }) {
    const args = [...kilo.proof.list.args({ server: SERVER, tool: tool?.name ?? 'forecast', agent }), ...(tool ? ['--tool', tool.name, '--params', JSON.stringify(tool.params)] : [])]
    return offlineRun(bin, args, { cwd, env: kiloEnv })
  }

  it('kilo agent list shows every generated agent', async () => {
    const result = await offlineRun(bin, ['agent', 'list'], { cwd: project, env: kiloEnv })
    expect(result.code, result.stderr).toBe(0)
    for (const agent of AGENTS) expect(result.stdout).toMatch(new RegExp(`^${agent} \\((subagent|primary|all)\\)$`, 'm'))
  })

  it("gives each agent its own tools and denies it the others'", async () => {
    const result = await debugAgent(project, 'planner')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(kilo.proof.list.expect({ server: SERVER, tool: 'forecast', agent: 'planner' }))
    const planner = JSON.parse(result.stdout) as { tools: Record<string, boolean> }
    expect(planner.tools).toMatchObject({ forecast: true, convert_units: true, search_issues: false })
  })

  it('runs a tool and returns what the script prints, also from a subfolder; refuses a tool the agent may not use', async () => {
    const input = { city: 'Oslo', days: 2 }
    const expected = await direct(project, 'forecast', input, env)
    for (const cwd of [project, join(project, 'src', 'deeper')]) {
      const result = await debugAgent(cwd, 'planner', { name: 'forecast', params: input })
      expect(result.code, result.stderr).toBe(0)
      // The tool's text, as the script prints it but for the line end its command line adds.
      expect((JSON.parse(result.stdout) as { result: { output: string } }).result.output).toBe(expected.stdout.replace(/\n$/, ''))
    }
    const refused = await debugAgent(project, 'planner', { name: 'search_issues', params: { query: 'x' } })
    expect(refused.stdout + refused.stderr).toContain('Tool search_issues is disabled for agent planner')
  })
})
