import { execFile, spawn } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import type { JsonValue } from '../../src/define/types.js'
import { CODEX_AGENT_KEYS } from '../../src/compile/harnesses/codex.js'
import { emitCodex } from '../../src/emit/codex.js'
import { mergeTomlText } from '../../src/write/index.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { threadServers } from './codex-app-server.js'
import { playgroundProject } from './project.js'

/**
 * The real Claude Code and Codex CLIs load what we generate for the playground (offline, no
 * account: see /work/shared/reference/harness-checks.md). Opt-in tier:
 * `npx vitest run --config vitest.harness.config.ts test/harness/claude-codex.test.ts`.
 */

const CLAUDE_VERSION = '2.1.332'
const CODEX_VERSION = '0.171.0'
const run = promisify(execFile)

let project: string
let plan: Plan
let env: NodeJS.ProcessEnv
let home: string
let claude: string
let codex: string

/** Tools served over MCP, and each agent's MCP tools, read from the playground's registry. */
const SERVED = ['sample_value', 'forecast', 'forecast_chart', 'convert_units', 'search_issues', 'delete_report']
const AGENT_MCP_TOOLS: Record<string, string[]> = { planner: ['forecast', 'forecast_chart', 'convert_units'], triager: ['search_issues', 'delete_report'] }
const AGENTS = ['planner', 'triager', 'reviewer']

beforeAll(async () => {
  claude = join(await installHarnessPackage('@anthropic-ai/claude-code', CLAUDE_VERSION), 'node_modules', '.bin', 'claude')
  codex = join(await installHarnessPackage('@openai/codex', CODEX_VERSION), 'node_modules', '.bin', 'codex')
  ;({ dir: project, plan } = await playgroundProject('oac-harness-cc-'))
  expect(plan.tools.filter((t) => t.json).map((t) => t.name)).toEqual(SERVED)
  expect(plan.agents.map((a) => a.name)).toEqual(AGENTS)
  await mkdir(join(project, 'src', 'deeper'), { recursive: true })
  ;({ home, env } = await isolatedHome())
  env.FORECAST_UNITS = 'metric'
  // Project `.mcp.json` servers need approval; this user setting is the offline equivalent of clicking "approve".
  await mkdir(join(home, '.claude'), { recursive: true })
  await writeFile(join(home, '.claude', 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }))
  // Codex reads a project's `.codex/` only when the user trusts the project.
  await mkdir(env.CODEX_HOME!, { recursive: true })
  await writeFile(join(env.CODEX_HOME!, 'config.toml'), stringifyToml({ projects: { [project]: { trust_level: 'trusted' } } }))
})

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
  if (home) await rm(home, { recursive: true, force: true })
})

describe('Claude Code', () => {
  async function mcpList(cwd: string): Promise<string> {
    const { stdout } = await run(claude, ['mcp', 'list'], { cwd, env, timeout: 120_000 })
    return stdout
  }

  it('claude mcp list shows oac-tools connected, from the project folder and from a subfolder', async () => {
    for (const cwd of [project, join(project, 'src', 'deeper')]) {
      const line = (await mcpList(cwd)).split('\n').find((l) => l.startsWith('oac-tools:'))
      expect(line, `claude mcp list in ${cwd}`).toMatch(/✔ Connected/)
    }
  })

  it('the stream-json init event lists every MCP tool and every generated agent', async () => {
    const child = spawn(claude, ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], {
      cwd: project,
      env: { ...env, MCP_CONNECTION_NONBLOCKING: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const first = await new Promise<string>((resolveLine, reject) => {
      createInterface({ input: child.stdout }).once('line', resolveLine)
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`claude exited (${code}) before printing the init event`)))
    })
    child.kill()
    const init = JSON.parse(first) as { type: string; subtype: string; mcp_servers: Array<{ name: string; status: string }>; tools: string[]; agents: string[] }
    expect(init.type).toBe('system')
    expect(init.subtype).toBe('init')
    expect(init.mcp_servers).toContainEqual(expect.objectContaining({ name: 'oac-tools', status: 'connected' }))
    for (const tool of SERVED) expect(init.tools).toContain(`mcp__oac-tools__${tool}`)
    for (const agent of AGENTS) expect(init.agents).toContain(agent)
  })
})

describe('Codex', () => {
  /** Starts a thread in `cwd` with the app-server running elsewhere (as an editor runs it), and lists its MCP servers. */
  const threadServersIn = (cwd: string) => threadServers(codex, home, env, cwd)

  it('loads every generated agent file without a warning, one using every allow-listed key too (a broken control file does get one)', async () => {
    const control = join(project, '.codex', 'agents', 'zz-control.toml')
    await writeFile(control, 'name = "zz-control"\ndescription = "x"\ndeveloper_instructions = "x"\nno_such_key = 1\n')
    // An agent setting every key of CODEX_AGENT_KEYS, with values Codex 0.171 accepts.
    const everyKey: Record<string, JsonValue> = {
      nickname_candidates: ['Ada', 'Bo-2'],
      model_provider: 'openai',
      model_reasoning_effort: 'high',
      model_reasoning_summary: 'concise',
      model_verbosity: 'low',
      model_context_window: 200000,
      model_auto_compact_token_limit: 150000,
      review_model: 'gpt-5.1-codex',
      service_tier: 'fast',
      approval_policy: 'never',
      sandbox_mode: 'workspace-write',
      sandbox_workspace_write: { network_access: false },
      shell_environment_policy: { inherit: 'core' },
      web_search: 'disabled',
      tools: { view_image: false },
      features: {},
      skills: {},
      compact_prompt: 'Summarize.',
    }
    expect(Object.keys(everyKey).sort()).toEqual([...CODEX_AGENT_KEYS].sort())
    const allKeysPlan = { ...plan, agents: [{ ...plan.agents[0]!, name: 'zz-every-key', harness: { codex: everyKey } }] }
    const allKeys = join(project, '.codex', 'agents', 'zz-every-key.toml')
    const file = emitCodex(allKeysPlan).find((f) => f.path === '.codex/agents/zz-every-key.toml')
    if (file?.kind !== 'merge') throw new Error('no agent file for zz-every-key')
    await writeFile(allKeys, mergeTomlText(undefined, file, []))
    try {
      const { warnings } = await threadServersIn(project)
      expect(warnings.some((w) => w.includes('zz-control.toml') && w.includes('no_such_key'))).toBe(true)
      const ours = warnings.filter((w) => /agent role/i.test(w) && !w.includes('zz-control'))
      expect(ours).toEqual([])
    } finally {
      await rm(control)
      await rm(allKeys)
    }
  })

  it("the app-server lists our server's tools, with their schemas, for a thread in the project and in a subfolder", async () => {
    for (const cwd of [project, join(project, 'src', 'deeper')]) {
      const { servers } = await threadServersIn(cwd)
      const ours = servers.find((s) => s.name === 'oac-tools')
      expect(ours?.toolsError, `in ${cwd}`).toBeNull()
      expect(Object.values(ours!.tools).map((t) => t.name).sort()).toEqual([...SERVED].sort())
      for (const tool of Object.values(ours!.tools)) expect(tool.inputSchema).toEqual(plan.tools.find((t) => t.name === tool.name)!.schema)
    }
  })

  it("role files carry no MCP block (Codex gives a spawned agent the session's tools); each names only its own tools, as Codex shows them", async () => {
    for (const agent of AGENTS) {
      const role = parseToml(await readFile(join(project, '.codex', 'agents', `${agent}.toml`), 'utf8')) as { mcp_servers?: unknown; developer_instructions: string }
      expect(role.mcp_servers, agent).toBeUndefined()
      for (const tool of SERVED) {
        const named = role.developer_instructions.includes(`Call the tool \`${tool}\` (in the namespace \`mcp__oac_tools\`)`)
        expect(named, `${agent} ${tool}`).toBe((AGENT_MCP_TOOLS[agent] ?? []).includes(tool))
      }
    }
  })
})
