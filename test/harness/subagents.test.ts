import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { stringify as stringifyYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import { repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome, opencodeConfigTemplate, preinstallPlugin } from './cache.js'
import { loopbackOnly } from './loopback-only.js'
import { type ScriptedModel, type SeenRequest, type ShownTool, startScriptedModel, type ToolCall, type Turn } from './scripted-model.js'
import { AGENT_TOOLS, ALL_TOOLS, agentPrompt, bounded, direct, type DocumentedTool, documentedTools, subagentProject } from './subagent-project.js'

/*
 * Proof through a sub-agent: each real harness CLI holds a whole conversation with a scripted
 * model (test/harness/scripted-model.ts, loopback only) over the project compiled from
 * test/harness/fixtures/subagents. The model (a) calls a tool from the main agent and gets the
 * script's output back, (b) starts each sub-agent, which is shown its tools, calls one and hands
 * its answer back, and (c) calls a failing tool and gets an error result, not a crash.
 *   npx vitest run --config vitest.harness.config.ts test/harness/subagents.test.ts
 */

/** The versions claude-codex.test.ts and opencode-pi-omp.test.ts pin (pi is the devDependency); omp runs under bun. */
const PINNED = { claude: '2.1.332', codex: '0.171.0', opencode: '1.18.33', omp: '18.2.3', bun: '1.4.5' } as const

/** What each sub-agent calls, and the inputs of every call the scripts make. */
const SUB_AGENT_CALL: Record<string, string> = { reviewer: 'shout', planner: 'add' }
const INPUT: Record<string, Record<string, unknown>> = {
  word_count: { text: 'one two three' },
  shout: { text: 'hi' },
  add: { a: 2, b: 3 },
  explode: { reason: 'boom' },
}
const AGENTS = Object.keys(AGENT_TOOLS)
/** Every harness run is bounded; a run that needs longer has gone wrong. */
const RUN_TIMEOUT_MS = 180_000

let project: string
let plan: Plan
const cleanup: string[] = []

beforeAll(async () => {
  ;({ dir: project, plan } = await subagentProject('oac-subagents-'))
  cleanup.push(project)
  expect(plan.agents.map((agent) => agent.name)).toEqual(AGENTS)
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** Runs a harness CLI, bounded, with nothing but its loopback to reach the scripted model on (where the machine allows). */
function harnessRun(model: ScriptedModel, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ReturnType<typeof bounded> {
  const isolated = loopbackOnly(model, command, args)
  return bounded(isolated.command, isolated.args, { ...options, timeoutMs: RUN_TIMEOUT_MS })
}

/** A fresh home per run, removed after the file. */
async function home(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const isolated = await isolatedHome()
  cleanup.push(isolated.home)
  return isolated
}

/**
 * Tells the conversations apart by the agent prompt in the request's system text; a request that
 * shows no tools is the harness's side request (a session title).
 */
function conversationOf(request: Pick<SeenRequest, 'tools' | 'system'>): string | undefined {
  if (request.tools.length === 0) return undefined
  return plan.agents.find((agent) => request.system.includes(agent.prompt))?.name ?? 'main'
}

/** How one harness is driven: the name of each tool, how a sub-agent starts, how a tool result reads. */
interface Driver {
  /** The call of one of our tools, as the model makes it in this harness. */
  call(tool: string): Turn
  /** The main agent's turns that start a sub-agent and get its answer back (none where the harness has no sub-agents). */
  startAgent?(agent: string): Turn[]
  /** A tool result's text without what the harness wraps around it. */
  resultText(text: string): string
}

interface Conversation {
  model: ScriptedModel
  /** The index of the main agent's request answering each named step. */
  after: Record<string, number>
}

/** Scripts the whole conversation, runs `runCli` against the endpoint and returns what the endpoint saw. */
async function converse(driver: Driver, agents: readonly string[], runCli: (model: ScriptedModel) => ReturnType<typeof bounded>): Promise<Conversation> {
  const main: Turn[] = [driver.call('word_count')]
  const after: Record<string, number> = { word_count: 1 }
  for (const agent of agents) {
    if (!driver.startAgent) throw new Error(`no way to start the ${agent} sub-agent`)
    main.push(...driver.startAgent(agent))
    after[agent] = main.length
  }
  main.push(driver.call('explode'))
  after.explode = main.length
  main.push({ text: 'all done' })
  const scripts: Record<string, Turn[]> = { main }
  for (const agent of agents) scripts[agent] = [driver.call(SUB_AGENT_CALL[agent]!), { text: `${agent} finished` }]
  const model = await startScriptedModel({ scripts, conversationOf, maxRequests: 40 })
  try {
    const result = await runCli(model)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
  } finally {
    await model.close()
  }
  expect(model.refused).toEqual([])
  // Every scripted turn was asked for: the conversation ran to its end, past the failing tool.
  for (const [name, script] of Object.entries(scripts)) expect(model.conversation(name), name).toHaveLength(script.length)
  return { model, after }
}

/** (a) and (c): the main agent's tool call came back with the script's output, the failing one with its error. */
async function expectMainResults(driver: Driver, { model, after }: Conversation): Promise<{ explode: SeenRequest }> {
  const main = model.conversation('main')
  const counted = main[after.word_count!]!.toolResults
  expect(counted).toHaveLength(1)
  // The MCP server drops the script's trailing newline; the shims keep it.
  expect(driver.resultText(counted[0]!.text).trimEnd()).toBe((await direct(project, 'word_count', INPUT.word_count!)).stdout.trimEnd())
  expect(counted[0]!.isError).not.toBe(true)
  const failed = await direct(project, 'explode', INPUT.explode!)
  expect(failed.code).toBe(1)
  const exploded = main[after.explode!]!
  expect(exploded.toolResults).toHaveLength(1)
  expect(driver.resultText(exploded.toolResults[0]!.text)).toContain(failed.stderr.trim())
  return { explode: exploded }
}

/** (b): a sub-agent's call came back with the script's output, and its answer reached the main agent. */
async function expectSubAgentResults(driver: Driver, { model, after }: Conversation, agent: string): Promise<void> {
  const requests = model.conversation(agent)
  const tool = SUB_AGENT_CALL[agent]!
  const result = requests[1]!.toolResults
  expect(result).toHaveLength(1)
  expect(driver.resultText(result[0]!.text).trimEnd()).toBe((await direct(project, tool, INPUT[tool]!)).stdout.trimEnd())
  expect(result[0]!.isError).not.toBe(true)
  const handedBack = model.conversation('main')[after[agent]!]!.toolResults.map((r) => r.text).join('\n')
  expect(handedBack).toContain(`${agent} finished`)
}

/** The names an agent's generated file documents, in the order of its tools. */
async function documented(harness: 'claude' | 'opencode', agent: string): Promise<string[]> {
  return documentedTools(await agentPrompt(project, harness, agent)).map((tool) => tool.name)
}

/** Our tools among those a request shows, by a harness's name for them. */
function ours(request: SeenRequest, names: ReadonlySet<string>, label: (tool: ShownTool) => string = (tool) => tool.name): string[] {
  return request.tools.map(label).filter((name) => names.has(name)).sort()
}

/* ---------------------------------------------------------------- Claude Code */

describe(`Claude Code ${PINNED.claude}`, () => {
  let claude = ''
  let names = new Map<string, string>()

  beforeAll(async () => {
    claude = join(await installHarnessPackage('@anthropic-ai/claude-code', PINNED.claude), 'node_modules/.bin/claude')
    // Each tool under the name the agent files document (every tool is some agent's).
    for (const agent of AGENTS) (await documented('claude', agent)).forEach((name, i) => names.set(AGENT_TOOLS[agent]![i]!, name))
  })

  const driver: Driver = {
    call: (tool) => ({ calls: [{ name: names.get(tool)!, input: INPUT[tool]! }] }),
    // In the foreground, so the sub-agent's answer is the tool result (in the background it comes later, as a notification).
    startAgent: (agent) => [{ calls: [{ name: 'Agent', input: { subagent_type: agent, description: `Ask the ${agent}`, prompt: 'Go.', run_in_background: false } }] }],
    // Claude Code appends a `<system-reminder>` block (tokens left) to each tool result.
    resultText: (text) => text.replace(/\n?<system-reminder>[\s\S]*?<\/system-reminder>/g, ''),
  }

  it('runs the main agent\'s tool, each sub-agent with exactly its own tools, and a failing tool, against a scripted model', async () => {
    const { home: dir, env } = await home()
    await mkdir(join(dir, '.claude'), { recursive: true })
    // Approves the project's `.mcp.json` server and lets its tools run without a prompt.
    await writeFile(join(dir, '.claude/settings.json'), JSON.stringify({ enableAllProjectMcpServers: true, permissions: { allow: ['mcp__oac-tools'] } }))
    const conversation = await converse(driver, AGENTS, (model) =>
      harnessRun(model, claude, ['-p', 'Go.', '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'], {
        cwd: project,
        env: {
          ...env,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'scripted-model-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          MCP_CONNECTION_NONBLOCKING: 'false',
          // Without this, MCP tools sit behind ToolSearch and the requests' `tools` would not show them.
          ENABLE_TOOL_SEARCH: 'false',
        },
      }),
    )
    const all = new Set(names.values())
    expect(all.size).toBe(ALL_TOOLS.length)
    const main = conversation.model.conversation('main')
    expect(ours(main[0]!, all)).toEqual([...all].sort())
    const { explode } = await expectMainResults(driver, conversation)
    expect(explode.toolResults[0]!.isError).toBe(true)
    for (const agent of AGENTS) {
      const own = await documented('claude', agent)
      expect(own).toHaveLength(AGENT_TOOLS[agent]!.length)
      const first = conversation.model.conversation(agent)[0]!
      // Exactly its own tools: the agent file's `tools` allow-list names only its MCP tools.
      expect(first.tools.map((tool) => tool.name).sort()).toEqual([...own].sort())
      await expectSubAgentResults(driver, conversation, agent)
    }
  })
})

/* ---------------------------------------------------------------- opencode */

describe(`opencode ${PINNED.opencode}`, () => {
  let opencode = ''

  beforeAll(async () => {
    opencode = join(await installHarnessPackage('opencode-ai', PINNED.opencode, [`@opencode-ai/plugin@${PINNED.opencode}`]), 'node_modules/.bin/opencode')
  })

  const driver: Driver = {
    // opencode shows a `.opencode/tool/<tool>.ts` tool under the file's name, as the prompts document.
    call: (tool) => ({ calls: [{ name: tool, input: INPUT[tool]! }] }),
    startAgent: (agent) => [{ calls: [{ name: 'task', input: { subagent_type: agent, description: `Ask the ${agent}`, prompt: 'Go.' } }] }],
    resultText: (text) => text,
  }

  it('runs the main agent\'s tool, each sub-agent with its own tools and none of the other\'s, and a failing tool, against a scripted model', async () => {
    const { env } = await home()
    const template = await opencodeConfigTemplate(PINNED.opencode)
    await preinstallPlugin(template, join(env.XDG_CONFIG_HOME!, 'opencode'))
    await preinstallPlugin(template, join(project, '.opencode'))
    const conversation = await converse(driver, AGENTS, async (model) => {
      // An OpenAI-compatible provider (bundled in opencode) pointed at the endpoint.
      const provider = { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: `${model.url}/v1`, apiKey: 'scripted-model-key' }, models: { scripted: { name: 'Scripted', tool_call: true } } }
      await writeFile(join(project, 'opencode.json'), JSON.stringify({ model: 'scripted/scripted', provider: { scripted: provider } }))
      try {
        return await harnessRun(model, opencode, ['run', '--format', 'json', 'Go.'], {
          cwd: project,
          env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' },
        })
      } finally {
        await rm(join(project, 'opencode.json'))
      }
    })
    const all = new Set(ALL_TOOLS)
    expect(ours(conversation.model.conversation('main')[0]!, all)).toEqual([...all].sort())
    await expectMainResults(driver, conversation)
    for (const agent of AGENTS) {
      const own = await documented('opencode', agent)
      expect(own).toEqual(AGENT_TOOLS[agent])
      // Its own tools and not the other agent's; no built-in either (read, bash, ...): it names none in
      // `builtinTools.opencode`, and its prompt documents no script (format "json").
      const first = conversation.model.conversation(agent)[0]!
      expect(ours(first, all)).toEqual([...own].sort())
      expect(first.tools.map((tool) => tool.name)).not.toContain('read')
      expect(first.tools.map((tool) => tool.name)).not.toContain('bash')
      await expectSubAgentResults(driver, conversation, agent)
    }
  })
})

/* ---------------------------------------------------------------- Codex */

describe(`Codex ${PINNED.codex}`, () => {
  let codex = ''
  /** Each tool as the role files document it (name and namespace). */
  const names = new Map<string, DocumentedTool>()

  beforeAll(async () => {
    codex = join(await installHarnessPackage('@openai/codex', PINNED.codex), 'node_modules/.bin/codex')
    for (const agent of AGENTS) {
      documentedTools(await agentPrompt(project, 'codex', agent)).forEach((tool, i) => names.set(AGENT_TOOLS[agent]![i]!, tool))
    }
  })

  /** The namespace Codex shows its multi-agent tools in, read from the request rather than assumed. */
  function agentTool(request: Omit<SeenRequest, 'reply'>, name: string): ToolCall {
    const shown = request.tools.find((tool) => tool.name === name && tool.namespace !== undefined)
    if (!shown) throw new Error(`Codex showed no ${name} tool`)
    return { name, namespace: shown.namespace, input: {} }
  }

  const driver = {
    call: (tool) => ({ calls: [{ ...names.get(tool)!, input: INPUT[tool]! }] }),
    // `spawn_agent` returns at once with the agent's id; `wait_agent` returns its final answer.
    startAgent: (agent) => [
      (request) => ({ calls: [{ ...agentTool(request, 'spawn_agent'), input: { agent_type: agent, message: 'Go.' } }] }),
      (request) => {
        const { agent_id } = JSON.parse(request.toolResults[0]!.text) as { agent_id: string }
        return { calls: [{ ...agentTool(request, 'wait_agent'), input: { targets: [agent_id], timeout_ms: 60_000 } }] }
      },
    ],
    // Codex hands an MCP tool's text to the model after a `Wall time: <seconds> seconds` line.
    resultText: (text) => text.replace(/^Wall time: [\d.]+ seconds\nOutput:/, ''),
  } satisfies Driver

  /** Runs `codex exec` in the project against the endpoint, with a fresh CODEX_HOME whose config points at it. */
  async function codexRun(): Promise<(model: ScriptedModel) => ReturnType<typeof bounded>> {
    const { env } = await home()
    return async (model) => {
      await mkdir(env.CODEX_HOME!, { recursive: true })
      // A Responses API provider pointed at the endpoint; the project is trusted so its `.codex/` loads.
      const config = {
        model: 'scripted',
        model_provider: 'scripted',
        model_providers: { scripted: { name: 'Scripted', base_url: `${model.url}/v1`, wire_api: 'responses' } },
        projects: { [project]: { trust_level: 'trusted' } },
      }
      await writeFile(join(env.CODEX_HOME!, 'config.toml'), stringifyToml(config))
      const offline = ['--disable', 'plugins', '--disable', 'remote_plugin', '-c', 'analytics.enabled=false']
      return harnessRun(model, codex, ['exec', ...offline, '--dangerously-bypass-approvals-and-sandbox', '--json', 'Go.'], { cwd: project, env })
    }
  }

  it('runs the main agent\'s tool, each sub-agent (shown every tool: Codex does not scope them per agent), and a failing tool, against a scripted model', async () => {
    const conversation = await converse(driver, AGENTS, await codexRun())
    const shownOurs = (request: SeenRequest): string[] =>
      request.tools.filter((tool) => tool.namespace !== undefined && ALL_TOOLS.includes(tool.name)).map((tool) => `${tool.namespace} ${tool.name}`).sort()
    const every = ALL_TOOLS.map((tool) => `${names.get(tool)!.namespace} ${names.get(tool)!.name}`).sort()
    // The documented names and namespaces are the ones Codex shows.
    expect(shownOurs(conversation.model.conversation('main')[0]!)).toEqual(every)
    await expectMainResults(driver, conversation)
    for (const agent of AGENTS) {
      expect(documentedTools(await agentPrompt(project, 'codex', agent))).toHaveLength(AGENT_TOOLS[agent]!.length)
      // Codex 0.171 gives a spawned agent the session's MCP tools (`.codex/config.toml`), whatever
      // its role file says: every sub-agent is shown all six. (Recorded in the README's Codex notes.)
      expect(shownOurs(conversation.model.conversation(agent)[0]!)).toEqual(every)
      await expectSubAgentResults(driver, conversation, agent)
    }
  })

  it("ignores the MCP servers of an agent's role file: never started, and they neither add nor remove a tool", async () => {
    const rolePath = join(project, '.codex/agents/reviewer.toml')
    const original = await readFile(rolePath, 'utf8')
    const log = join(project, 'role-server.log')
    // A server that would leave a line in the log if Codex started it.
    const logged = { command: 'sh', args: ['-c', `echo started >> '${log}'; exit 1`] }
    const role = parseToml(original) as Record<string, unknown>
    role.mcp_servers = { 'oac-tools': { ...logged, enabled: false }, 'role-only': logged }
    await writeFile(rolePath, stringifyToml(role))
    try {
      const model = await startScriptedModel({
        scripts: { main: [...driver.startAgent('reviewer'), { text: 'all done' }], reviewer: [{ text: 'reviewer finished' }] },
        conversationOf,
        maxRequests: 10,
      })
      try {
        const result = await (await codexRun())(model)
        expect(result.code, result.stderr).toBe(0)
      } finally {
        await model.close()
      }
      const reviewer = model.conversation('reviewer')
      expect(reviewer).toHaveLength(1)
      // Still every tool of `.codex/config.toml`'s server, and nothing from the role file's.
      const namespaces = [...new Set(reviewer[0]!.tools.flatMap((tool) => (tool.namespace?.startsWith('mcp__') ? [tool.namespace] : [])))]
      expect(namespaces).toEqual(['mcp__oac_tools'])
      expect(reviewer[0]!.tools.filter((tool) => tool.namespace === 'mcp__oac_tools').map((tool) => tool.name).sort()).toEqual([...ALL_TOOLS].sort())
      expect(existsSync(log)).toBe(false)
    } finally {
      await writeFile(rolePath, original)
    }
  })
})

/* ---------------------------------------------------------------- pi and omp */

/** pi's and omp's custom-model files: an OpenAI chat completions provider pointed at the endpoint. */
const CUSTOM_PROVIDER = (url: string) => ({ baseUrl: `${url}/v1`, api: 'openai-completions', apiKey: 'scripted-model-key', models: [{ id: 'scripted' }] })

/** pi and omp show an extension or custom tool under its own name, as their prompt docs say. */
const plainDriver: Driver = {
  call: (tool) => ({ calls: [{ name: tool, input: INPUT[tool]! }] }),
  resultText: (text) => text,
}

describe('pi 0.73.1', () => {
  it('runs an extension tool and a failing one against a scripted model (pi has no sub-agents: it shows no tool to start one)', async () => {
    const { env } = await home()
    const pi = join(repoRoot, 'node_modules/.bin/pi')
    const conversation = await converse(plainDriver, [], async (model) => {
      await mkdir(env.PI_CODING_AGENT_DIR!, { recursive: true })
      await writeFile(join(env.PI_CODING_AGENT_DIR!, 'models.json'), JSON.stringify({ providers: { scripted: CUSTOM_PROVIDER(model.url) } }))
      return harnessRun(model, pi, ['-p', '--offline', '--no-session', '--mode', 'json', '--model', 'scripted/scripted', 'Go.'], { cwd: project, env })
    })
    const shown = conversation.model.conversation('main')[0]!.tools.map((tool) => tool.name)
    // Every tool of ours, and besides them only pi's four built-ins: nothing starts a sub-agent.
    expect(shown.filter((name) => ALL_TOOLS.includes(name)).sort()).toEqual([...ALL_TOOLS].sort())
    expect(shown.filter((name) => !ALL_TOOLS.includes(name)).sort()).toEqual(['bash', 'edit', 'read', 'write'])
    await expectMainResults(plainDriver, conversation)
  })
})

describe(`oh-my-pi ${PINNED.omp} under bun ${PINNED.bun}`, () => {
  let bin = ''
  beforeAll(async () => {
    bin = join(await installHarnessPackage('@oh-my-pi/pi-coding-agent', PINNED.omp, [`bun@${PINNED.bun}`]), 'node_modules/.bin')
  })

  it('runs a custom tool and a failing one against a scripted model (its `task` tool starts only omp\'s own agents: none are generated for omp)', async () => {
    const { env } = await home()
    const conversation = await converse(plainDriver, [], async (model) => {
      await mkdir(env.PI_CODING_AGENT_DIR!, { recursive: true })
      await writeFile(join(env.PI_CODING_AGENT_DIR!, 'models.yml'), stringifyYaml({ providers: { scripted: CUSTOM_PROVIDER(model.url) } }))
      const args = [join(bin, 'omp'), '-p', '--no-session', '--no-title', '--no-lsp', '--mode', 'json', '--model', 'scripted/scripted', 'Go.']
      return harnessRun(model, join(bin, 'bun'), args, { cwd: project, env: { ...env, PATH: `${bin}:${env.PATH}` } })
    })
    const first = conversation.model.conversation('main')[0]!
    expect(first.tools.map((tool) => tool.name).filter((name) => ALL_TOOLS.includes(name)).sort()).toEqual([...ALL_TOOLS].sort())
    // omp's sub-agents come from `.omp/agents/*.md` (and its bundled ones); it skips `.claude/agents`,
    // and nothing is generated for omp, so `planner` is not an agent the `task` tool offers.
    const task = (first.body.tools as Array<{ function: { name: string; description: string } }>).find((tool) => tool.function.name === 'task')
    expect(task?.function.description).toContain('`scout`')
    expect(task?.function.description).not.toContain('planner')
    await expectMainResults(plainDriver, conversation)
  })
})
