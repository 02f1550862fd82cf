import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { isolatedHome } from './cache.js'
import { conversationOf, converse } from './conversation.js'
import { DRIVERS, type HarnessDriver, type RunContext, toolCall } from './drivers.js'
import { AGENT_TOOLS, ALL_TOOLS, agentPrompt, direct, documentedTools, subagentProject } from './project.js'
import { type ScriptedModel, type SeenRequest, type ShownTool, startScriptedModel, type Turn } from './scripted-model.js'

/*
 * Proof through a sub-agent: each real harness CLI holds a whole conversation with a scripted
 * model (scripted-model.ts, loopback only; each CLI driven as drivers.ts says) over the project
 * compiled from test/harness/fixtures/subagents. The model (a) calls a tool from the main agent and
 * gets the script's output back, (b) starts each sub-agent, which is shown its tools, calls one and
 * hands its answer back, and (c) calls a failing tool and gets an error result, not a crash.
 *   npx vitest run --config vitest.harness.config.ts test/harness/subagents.test.ts
 */

/** What each sub-agent calls, and the inputs of every call the scripts make. */
const SUB_AGENT_CALL: Record<string, string> = { reviewer: 'shout', planner: 'add' }
const INPUT: Record<string, Record<string, unknown>> = {
  word_count: { text: 'one two three' },
  shout: { text: 'hi' },
  add: { a: 2, b: 3 },
  explode: { reason: 'boom' },
}
const AGENTS = Object.keys(AGENT_TOOLS)

interface Conversation {
  model: ScriptedModel
  /** The index of the main agent's request answering each named step. */
  after: Record<string, number>
}

/**
 * What each real CLI shows the model of our tools (docs/harnesses.md's "Once per harness" notes say the
 * same): the main agent is shown every tool, or (Qwen Code) has them deferred: named in a reminder,
 * reachable through its `tool_search`, callable by name. Each sub-agent is shown its own tools, or
 * every tool (Codex: it cannot scope them per agent), or there are no sub-agents of ours (pi, omp).
 * `also` holds what else the run proves in that harness.
 */
const SHOWN: Record<Harness, { main: 'every' | 'deferred'; subAgents: 'own' | 'every' | 'none'; also?: (conversation: Conversation) => Promise<void> | void }> = {
  claude: {
    main: 'every',
    subAgents: 'own',
    also({ model, after }) {
      // Exactly its own tools and nothing else: the agent file's `tools` allow-list names only its MCP tools.
      for (const agent of AGENTS) expect(names(model.conversation(agent)[0]!.tools).sort(), agent).toEqual(modelNames('claude', AGENT_TOOLS[agent]!).sort())
      expect(model.conversation('main')[after.explode!]!.toolResults[0]!.isError).toBe(true)
    },
  },
  opencode: {
    main: 'every',
    subAgents: 'own',
    also: noBuiltins,
  },
  // Codex 0.171 gives a spawned agent the session's MCP tools (`.codex/config.toml`), whatever its role file says.
  codex: { main: 'every', subAgents: 'every' },
  pi: {
    main: 'every',
    subAgents: 'none',
    also({ model }) {
      // Besides ours only pi's four built-ins: nothing starts a sub-agent.
      expect(names(model.conversation('main')[0]!.tools).filter((name) => !ALL_TOOLS.includes(name)).sort()).toEqual(['bash', 'edit', 'read', 'write'])
    },
  },
  omp: {
    main: 'every',
    subAgents: 'none',
    also({ model }) {
      // omp's sub-agents come from `.omp/agents/*.md` (and its bundled ones); it skips `.claude/agents`,
      // and nothing is generated for omp, so `planner` is not an agent its `task` tool offers.
      const task = (model.conversation('main')[0]!.body.tools as Array<{ function: { name: string; description: string } }>).find((tool) => tool.function.name === 'task')
      expect(task?.function.description).toContain('`scout`')
      expect(task?.function.description).not.toContain('planner')
    },
  },
  gemini: {
    main: 'every',
    subAgents: 'own',
    also({ model, after }) {
      expect(model.conversation('main')[after.explode!]!.toolResults[0]!.isError).toBe(true)
    },
  },
  copilot: { main: 'every', subAgents: 'own' },
  qwen: { main: 'deferred', subAgents: 'own' },
  kilo: { main: 'every', subAgents: 'own', also: noBuiltins },
}

/**
 * No built-in beside its own tools either (read, bash, ...) in opencode and Kilo, whose agents deny
 * every tool but their allow-list: the agents name none in `builtinTools`, and their prompts document
 * no script (format "json"), so they get no shell.
 */
function noBuiltins({ model }: Conversation): void {
  for (const agent of AGENTS) {
    const shown = names(model.conversation(agent)[0]!.tools)
    expect(shown, agent).not.toContain('read')
    expect(shown, agent).not.toContain('bash')
  }
}

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

/** A fresh home for one run (removed after the file), in the project. */
async function runContext(): Promise<RunContext> {
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  return { project, plan, home, env }
}

/** A tool as the model sees it: its name, after its namespace where the harness has them (Codex). */
const label = (tool: Pick<ShownTool, 'name' | 'namespace'>): string => (tool.namespace ? `${tool.namespace} ${tool.name}` : tool.name)
const names = (tools: ShownTool[]): string[] => tools.map(label)

/** Our tools by the names the harness's description gives its model (the names the prompts document). */
function modelNames(id: Harness, tools: readonly string[]): string[] {
  return tools.map((tool) => label(toolCall(id, plan, tool, {})))
}

/** Our tools among those a request shows, sorted. */
function ours(id: Harness, request: SeenRequest): string[] {
  const every = new Set(modelNames(id, ALL_TOOLS))
  return names(request.tools).filter((name) => every.has(name)).sort()
}

/** Scripts the whole conversation (the main agent's tool, each sub-agent, the failing tool) and runs it. */
async function subAgentConversation(driver: HarnessDriver, agents: readonly string[]): Promise<Conversation> {
  const call = (tool: string): Turn => ({ calls: [toolCall(driver.id, plan, tool, INPUT[tool]!)] })
  const main: Turn[] = [call('word_count')]
  const after: Record<string, number> = { word_count: 1 }
  for (const agent of agents) {
    main.push(...driver.startAgent!(agent))
    after[agent] = main.length
  }
  main.push(call('explode'))
  after.explode = main.length
  main.push({ text: 'all done' })
  const scripts: Record<string, Turn[]> = { main }
  for (const agent of agents) scripts[agent] = [call(SUB_AGENT_CALL[agent]!), driver.finishAgent(`${agent} finished`)]
  return { model: await converse(driver, await runContext(), scripts), after }
}

/** (a) and (c): the main agent's tool call came back with the script's output, the failing one with its error. */
async function expectMainResults(driver: HarnessDriver, { model, after }: Conversation): Promise<void> {
  const main = model.conversation('main')
  const counted = main[after.word_count!]!.toolResults
  expect(counted).toHaveLength(1)
  // The MCP server drops the script's trailing newline; the shims keep it.
  expect(driver.resultText(counted[0]!.text).trimEnd()).toBe((await direct(project, 'word_count', INPUT.word_count!)).stdout.trimEnd())
  expect(counted[0]!.isError).not.toBe(true)
  const failed = await direct(project, 'explode', INPUT.explode!)
  expect(failed.code).toBe(1)
  const exploded = main[after.explode!]!.toolResults
  expect(exploded).toHaveLength(1)
  expect(driver.resultText(exploded[0]!.text)).toContain(failed.stderr.trim())
}

/** (b): a sub-agent's call came back with the script's output, and its answer reached the main agent. */
async function expectSubAgentResults(driver: HarnessDriver, { model, after }: Conversation, agent: string): Promise<void> {
  const tool = SUB_AGENT_CALL[agent]!
  const result = model.conversation(agent)[1]!.toolResults
  expect(result).toHaveLength(1)
  expect(driver.resultText(result[0]!.text).trimEnd()).toBe((await direct(project, tool, INPUT[tool]!)).stdout.trimEnd())
  expect(result[0]!.isError).not.toBe(true)
  const handedBack = model.conversation('main')[after[agent]!]!.toolResults.map((r) => r.text).join('\n')
  expect(handedBack).toContain(`${agent} finished`)
}

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  const shown = SHOWN[id]
  const subAgents = { own: 'each sub-agent with exactly its own tools', every: 'each sub-agent (shown every tool: it cannot scope them per agent)', none: 'no sub-agents of ours' }[shown.subAgents]

  describe(driver.title, () => {
    beforeAll(() => driver.install())

    it(`runs the main agent's tool, ${subAgents}, and a failing tool, against a scripted model`, async () => {
      const agents = shown.subAgents === 'none' ? [] : AGENTS
      const conversation = await subAgentConversation(driver, agents)
      const first = conversation.model.conversation('main')[0]!
      const every = modelNames(id, ALL_TOOLS).sort()
      if (shown.main === 'every') expect(ours(id, first)).toEqual(every)
      else {
        // Deferred: not among the request's tools, but each named to the model (and called by that name above).
        expect(ours(id, first)).toEqual([])
        for (const name of every) expect(JSON.stringify(first.body.messages)).toContain(`\\"${name}\\"`)
      }
      await expectMainResults(driver, conversation)
      for (const agent of agents) {
        const own = modelNames(id, AGENT_TOOLS[agent]!)
        // The agent file documents each of its tools by the name the model is shown.
        expect(documentedTools(await agentPrompt(project, id, agent)).map(label)).toEqual(own)
        expect(ours(id, conversation.model.conversation(agent)[0]!), agent).toEqual(shown.subAgents === 'own' ? [...own].sort() : every)
        await expectSubAgentResults(driver, conversation, agent)
      }
      // The description says what the CLI does: compile warns `tools-not-scoped` where it cannot scope.
      expect(harness(id).scopesToolsPerAgent).toBe(shown.subAgents === 'own')
      await shown.also?.(conversation)
    })
  })
}

describe(`${DRIVERS.codex.title}: role files`, () => {
  beforeAll(() => DRIVERS.codex.install())

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
        scripts: { main: [...DRIVERS.codex.startAgent!('reviewer'), { text: 'all done' }], reviewer: [{ text: 'reviewer finished' }] },
        conversationOf: conversationOf(plan),
        maxRequests: 10,
      })
      try {
        const result = await DRIVERS.codex.run(model, await runContext())
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
