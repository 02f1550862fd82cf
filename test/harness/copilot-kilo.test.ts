import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Compiler } from '../../src/api.js'
import { copilot } from '../../src/compile/harnesses/copilot.js'
import { kilo } from '../../src/compile/harnesses/kilo.js'
import type { Plan } from '../../src/compile/plan.js'
import { writeOutputs } from '../../src/write/index.js'
import { copyProject, repoRoot } from '../util/project.js'
import { harnessCacheDir, installHarnessPackage, isolatedHome } from './cache.js'
import { shownTools, startChatModel, toolResults } from './chat-model.js'
import { offlineRun, scriptOutput } from './offline.js'

/**
 * The real GitHub Copilot CLI and Kilo CLI load what we generate for the playground, offline and
 * with no account. Opt-in tier: `npx vitest run --config vitest.harness.config.ts test/harness/copilot-kilo.test.ts`.
 */

const COPILOT_VERSION = '1.0.102'
const KILO_VERSION = '7.7.7'
/** The newest @kilocode/plugin on npm (Kilo 7.7.7 asks for its own version, which is not published). */
const KILO_PLUGIN = '7.3.1'
const SERVER = 'oac-tools'
const AGENTS = ['planner', 'triager', 'reviewer']
const run = promisify(execFile)

let project: string
let plan: Plan
let home: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  project = await copyProject(resolve(repoRoot, 'playground'), 'oac-harness-ck-')
  // Copilot reads `.mcp.json` from the working folder up to the git root.
  await run('git', ['init', '-q', project])
  const compiler = new Compiler(project)
  try {
    const generated = await compiler.generate({ registry: 'agents/registry.ts:registry', config: 'prod', harnesses: ['copilot', 'kilo'] })
    plan = generated.plan
    const report = await writeOutputs(generated.files, { target: project, mode: 'write', force: false, owner: plan.serverName })
    expect(report.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  } finally {
    await compiler.dispose()
  }
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
    await mkdir(join(home, '.copilot'), { recursive: true })
    await writeFile(join(home, '.copilot', 'config.json'), JSON.stringify({ trusted_folders: [project] }))
    const forecast = { name: `${SERVER}-forecast`, input: { city: 'Oslo', days: 1 } }
    const model = await startChatModel((request) =>
      shownTools(request).includes(forecast.name) && toolResults(request).length === 0 ? { calls: [forecast] } : { text: 'Done.' },
    )
    try {
      // Not in its own network namespace: Copilot must reach the loopback endpoint of this process.
      const result = await run(bin, ['-p', 'Plan the week in Oslo.', '--agent', 'planner', '--allow-all-tools'], {
        cwd: project,
        env: {
          ...copilotEnv,
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_BASE_URL: model.url,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_MODEL: 'scripted',
          GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP: 'true',
        },
        timeout: 180_000,
      })
      expect(result.stdout).toContain('Done.')
      const first = model.requests[0]!
      const shown = shownTools(first)
      // The planner's MCP tools (forecast, convert_units), none of the triager's; Copilot's own built-ins beside them.
      expect(shown.filter((name) => name.startsWith(`${SERVER}-`)).sort()).toEqual([`${SERVER}-convert_units`, `${SERVER}-forecast`])
      // `execute` in its list (its prompt documents the scripts too) gives it Copilot's shell.
      expect(shown).toContain('bash')
      expect(JSON.stringify(first.messages)).toContain(`Call the tool \`${SERVER}-forecast\``)
      const toolResult = model.requests.flatMap(toolResults).find((result) => result.name === forecast.name)
      const expected = await scriptOutput(project, join(project, 'scripts', 'forecast.mjs'), { city: 'Oslo', days: 1 }, env)
      // Copilot hands a JSON result back re-serialized (compact): the same value.
      expect(typeof toolResult?.content).toBe('string')
      expect(JSON.parse(toolResult!.content as string)).toEqual(JSON.parse(expected))
    } finally {
      await model.close()
    }
  })
})

/**
 * Kilo installs @kilocode/plugin into every config folder before loading tools (offline that
 * fails), so each folder gets a package.json listing it, a lock and node_modules (linked to one
 * install kept in the harness cache), as for opencode.
 */
async function kiloConfigTemplate(): Promise<string> {
  const template = join(harnessCacheDir, `kilo-config@${KILO_PLUGIN}`)
  if (!existsSync(join(template, 'node_modules/@kilocode/plugin/package.json'))) {
    await mkdir(template, { recursive: true })
    await writeFile(join(template, 'package.json'), '{"private":true}\n')
    await run('npm', ['install', '--prefix', template, '--no-audit', '--no-fund', `@kilocode/plugin@${KILO_PLUGIN}`], { maxBuffer: 64 * 1024 * 1024 })
  }
  return template
}

async function preinstallPlugin(template: string, folder: string): Promise<void> {
  await mkdir(folder, { recursive: true })
  await cp(join(template, 'package.json'), join(folder, 'package.json'))
  await cp(join(template, 'package-lock.json'), join(folder, 'package-lock.json'))
  if (!existsSync(join(folder, 'node_modules'))) await symlink(join(template, 'node_modules'), join(folder, 'node_modules'))
}

describe(`Kilo CLI ${KILO_VERSION}`, () => {
  let bin = ''
  let kiloEnv: NodeJS.ProcessEnv = {}

  beforeAll(async () => {
    bin = join(await installHarnessPackage('@kilocode/cli', KILO_VERSION), 'node_modules', '.bin', 'kilo')
    kiloEnv = { ...env, KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1' }
    const template = await kiloConfigTemplate()
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
    const expected = await scriptOutput(project, join(project, 'scripts', 'forecast.mjs'), input, env)
    for (const cwd of [project, join(project, 'src', 'deeper')]) {
      const result = await debugAgent(cwd, 'planner', { name: 'forecast', params: input })
      expect(result.code, result.stderr).toBe(0)
      expect((JSON.parse(result.stdout) as { result: { output: string } }).result.output).toBe(expected)
    }
    const refused = await debugAgent(project, 'planner', { name: 'search_issues', params: { query: 'x' } })
    expect(refused.stdout + refused.stderr).toContain('Tool search_issues is disabled for agent planner')
  })
})
