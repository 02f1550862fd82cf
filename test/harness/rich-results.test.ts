import { existsSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { type Harness, HARNESSES, type JsonValue } from '../../src/define/types.js'
import { ENVELOPE_VERSION, type InvokeResult } from '../../src/runtime/types.js'
import { repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, type HarnessDriver, toolCall } from './drivers.js'
import { bounded, type BoundedRun, compiledProject, type CompiledProject, playgroundProject } from './project.js'
import { type ScriptedModel, type SeenRequest, startScriptedModel, type ToolResult, type Turn } from './scripted-model.js'

/*
 * Proof of rich tool results through each real harness CLI against the scripted model
 * (scripted-model.ts; each CLI driven as drivers.ts says), with the playground's tools:
 * `forecast_chart` returns text, a PNG and details; `forecast` has an output schema; `delete_report`
 * is destructive, and the `prod` config's approval rules make it always ask (read-only tools run
 * unasked). Two runs per harness:
 * - the project's rules in force (`keepApprovals`, no flag that approves every call): the model calls
 *   the chart, the forecast and `delete_report` on an existing report, which must not be deleted;
 * - the playground compiled with its `dev` config, which has no approval rules, with the driver's
 *   approve-all flags: `delete_report` on a missing report runs and fails with `ctx.error`.
 *   npx vitest run --config vitest.harness.config.ts test/harness/rich-results.test.ts
 */

const CHART = { city: 'Oslo', days: 3 }
const FORECAST = { city: 'Oslo', days: 2 }
const KEPT = 'keep'
const MISSING = 'missing'

/** What one CLI does with each part of a rich result, as its runs show. */
interface Observed {
  /** How many times the model reads the forecast's JSON: once as text, twice where the CLI appends the `structuredContent` too. */
  structuredCopies: 1 | 2
  /**
   * How a call of the tool that always asks goes without a user: refused, the model reading the
   * CLI's refusal (and marked failed where the API has a flag), or the run ends at the call, the
   * CLI printing `rejected` (the script's turn after it is never asked for); or, where the CLI has no
   * approval rules of ours (compile warns `approval-unsupported`) and refuses every call without its
   * approve-all flag, the text the model reads for a call of `tool`: the rich results are then shown in
   * a run with the flag, and the tool that asks is called in a run without it.
   */
  ask: { refused: RegExp; isError?: true } | { endsRun: RegExp } | { everyCallRefused: (tool: string) => string }
  /**
   * How the model reads `ctx.error`: its message, marked failed where the API has a flag (`is_error`,
   * Gemini's `error`; the OpenAI APIs have none), or quoted inside the CLI's own error text, with the
   * server's whole MCP result as JSON (Gemini CLI, Qwen Code).
   */
  error: { flagged: boolean; quoted?: true }
}

const OBSERVED: Record<Harness, Observed> = {
  claude: {
    structuredCopies: 1,
    // Even with the driver's `mcp__<server>` allow rule: an `ask` item wins over every allow (and over bypassPermissions).
    ask: { refused: /^Claude requested permissions to use mcp__oac-tools__delete_report, but you haven't granted it yet\.$/, isError: true },
    error: { flagged: true },
  },
  codex: {
    structuredCopies: 1,
    ask: { refused: /^MCP tool call requires approval, but approval policy is never$/ },
    error: { flagged: false },
  },
  opencode: {
    structuredCopies: 1,
    // `opencode run` rejects what it would ask the user and ends the run; `--auto` approves it.
    ask: { endsRun: /permission requested: delete_report \(\*\); auto-rejecting/ },
    error: { flagged: false },
  },
  kilo: {
    structuredCopies: 1,
    // As opencode, and it exits 1.
    ask: { endsRun: /run ended with an auto-rejected permission; pass --auto for autonomous use/ },
    error: { flagged: false },
  },
  pi: {
    structuredCopies: 1,
    // pi asks for no tool itself: the extension asks through `ctx.ui.confirm`, and `-p` has no UI.
    ask: { refused: /^The tool "delete_report" asks before it runs, and this pi session has no UI to ask in\.$/ },
    error: { flagged: false },
  },
  omp: {
    structuredCopies: 1,
    // The tool's own `prompt` policy: `--auto-approve` and `--approval-mode=yolo` do not lift it.
    ask: { refused: /^Tool "delete_report" requires approval but no interactive UI available\./ },
    error: { flagged: false },
  },
  gemini: {
    structuredCopies: 1,
    // `tools.confirmationRequired` holds in yolo mode too.
    ask: { refused: /^Tool execution for "delete_report \(oac-tools MCP Server\)" requires user confirmation, which is not supported in non-interactive mode\.$/, isError: true },
    error: { flagged: true, quoted: true },
  },
  copilot: {
    structuredCopies: 2,
    // Copilot has no approval settings (`approval-unsupported`); without `--allow-all-tools` the read-only tools ran unasked.
    ask: { refused: /^Permission denied because no interactive user response was available\./ },
    error: { flagged: false },
  },
  qwen: {
    structuredCopies: 2,
    ask: { refused: /^Qwen Code requires permission to use "mcp__oac-tools__delete_report", but that permission was declined/ },
    error: { flagged: false, quoted: true },
  },
  cline: {
    structuredCopies: 1,
    // `--auto-approve false` in a headless run: every tool, ours and its own.
    ask: { everyCallRefused: (tool) => JSON.stringify({ error: `Tool "${tool}" requires approval in a TTY session -- NOT a tool or system failure. Clarify with user before proceeding.` }) },
    // The error our plugin throws, as Cline hands the model a tool's error: `{"error":"<message>"}`.
    error: { flagged: false, quoted: true },
  },
}

let ruled: CompiledProject
let unruled: CompiledProject
const cleanup: string[] = []

beforeAll(async () => {
  ruled = await playgroundProject('oac-rich-')
  unruled = await compiledProject(join(repoRoot, 'playground'), 'oac-rich-dev-', { config: 'dev', harnesses: [...HARNESSES] })
  cleanup.push(ruled.dir, unruled.dir)
  expect(ruled.plan.tools.find((tool) => tool.name === 'delete_report')?.approval).toBe('ask')
  expect(unruled.plan.tools.every((tool) => tool.approval === undefined)).toBe(true)
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** The result of a call as the tool script makes it (its result envelope): what every harness starts from. */
async function scriptResult(dir: string, tool: string, input: Record<string, unknown>): Promise<InvokeResult> {
  const run = await bounded('node', [join(dir, 'scripts', `${tool}.mjs`), '--json', '--envelope', ENVELOPE_VERSION], { cwd: dir, env: process.env, stdin: JSON.stringify(input), timeoutMs: 30_000 })
  return JSON.parse(run.stdout) as InvokeResult
}

interface Run {
  model: ScriptedModel
  result: BoundedRun
}

/** Runs the harness once in `project` with the main agent's script (no sub-agents), from a fresh home. */
async function run(driver: HarnessDriver, { dir, plan }: CompiledProject, main: Turn[], keepApprovals: boolean): Promise<Run> {
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  const model = await startScriptedModel({ scripts: { main }, conversationOf: conversationOf(plan), maxRequests: 20 })
  try {
    const result = await driver.run(model, { project: dir, plan, home, env, keepApprovals })
    expect(result.timedOut, `${driver.id} timed out\n${result.stderr}`).toBe(false)
    expect(model.refused.map(({ conversation, path }) => ({ conversation, path }))).toEqual([])
    return { model, result }
  } finally {
    await model.close()
  }
}

const call = (id: Harness, plan: Plan, tool: string, input: Record<string, unknown>): Turn => ({ calls: [toolCall(id, plan, tool, input)] })

/** The single tool result a request carries back. */
function onlyResult(request: SeenRequest | undefined): ToolResult {
  expect(request?.toolResults).toHaveLength(1)
  return request!.toolResults[0]!
}

const compact = (text: string) => text.replace(/\s+/g, '')

/** Whether a request carries `json` (compact JSON), as is or as a string inside the request's JSON (a tool message's text). */
function mentions(request: SeenRequest, json: string): boolean {
  const body = compact(JSON.stringify(request.body))
  return body.includes(json) || body.includes(JSON.stringify(json).slice(1, -1))
}

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  const observed = OBSERVED[id]
  // Where the images and details go is the harness's description (`results`), which compile warns from: checked here.
  const { results } = harness(id)

  describe(driver.title, () => {
    beforeAll(() => driver.install())

    it('hands the model the image, the structured output and not the details, and holds the tool that asks', async () => {
      const { dir, plan } = ruled
      await mkdir(join(dir, 'reports'), { recursive: true })
      await writeFile(join(dir, `reports/${KEPT}.md`), '# A report to keep\n')
      const chart = await scriptResult(dir, 'forecast_chart', CHART)
      const forecast = await scriptResult(dir, 'forecast', FORECAST)
      if (!chart.ok || !forecast.ok) throw new Error('the playground tools failed when run directly')
      const png = chart.images![0]!.data
      const everyCallRefused = 'everyCallRefused' in observed.ask
      const main = [call(id, plan, 'forecast_chart', CHART), call(id, plan, 'forecast', FORECAST), ...(everyCallRefused ? [] : [call(id, plan, 'delete_report', { name: KEPT })]), { text: 'done' }]
      const { model, result } = await run(driver, ruled, main, !everyCallRefused)
      const requests = model.conversation('main')
      const output = result.stdout + result.stderr

      // The chart: its text, and the PNG where the harness's description says the model gets images.
      const charted = onlyResult(requests[1])
      expect(driver.resultText(charted.text)).toContain(chart.text)
      const body = JSON.stringify(requests[1]!.body)
      if (results.images === 'in-result') expect(JSON.stringify(charted.raw)).toContain(png)
      else if (results.images === 'after-result') {
        expect(JSON.stringify(charted.raw)).not.toContain(png)
        expect(body).toContain(png)
      } else {
        expect(body).not.toContain(png)
        expect(driver.resultText(charted.text)).toBe(chart.text)
      }
      // The details reach the user where the description says the CLI shows them (a log message: not in a headless run), and never the model.
      const details = JSON.stringify(chart.details as JsonValue)
      for (const request of model.requests) expect(mentions(request, details)).toBe(false)
      if (results.details === 'output') expect(result.stdout).toContain(details)
      else expect(output).not.toContain(details)

      // The forecast, checked against its output schema by the tool: its JSON, once or twice.
      const forecasted = onlyResult(requests[2])
      expect(compact(driver.resultText(forecasted.text))).toBe(compact(JSON.stringify(forecast.structured)).repeat(observed.structuredCopies))
      expect(forecasted.isError).not.toBe(true)

      // The tool that always asks: never run, however the CLI tells it.
      expect(existsSync(join(dir, `reports/${KEPT}.md`))).toBe(true)
      if ('everyCallRefused' in observed.ask) {
        expect(result.code, output).toBe(0)
        expect(requests).toHaveLength(main.length)
        const deletion = call(id, plan, 'delete_report', { name: KEPT })
        const held = await run(driver, ruled, [deletion, { text: 'done' }], true)
        expect(held.result.code, held.result.stdout + held.result.stderr).toBe(0)
        expect(driver.resultText(onlyResult(held.model.conversation('main')[1]).text)).toBe(observed.ask.everyCallRefused(toolCall(id, plan, 'delete_report', {}).name))
        expect(existsSync(join(dir, `reports/${KEPT}.md`))).toBe(true)
      } else if ('refused' in observed.ask) {
        expect(result.code, output).toBe(0)
        const refused = onlyResult(requests[3])
        expect(driver.resultText(refused.text).trim()).toMatch(observed.ask.refused)
        if (observed.ask.isError) expect(refused.isError).toBe(true)
        expect(requests).toHaveLength(main.length)
      } else {
        expect(output).toMatch(observed.ask.endsRun)
        expect(requests).toHaveLength(main.length - 1)
      }
    })

    it('hands the model an error result without approval rules', async () => {
      const { dir, plan } = unruled
      const failed = await scriptResult(dir, 'delete_report', { name: MISSING })
      if (failed.ok || failed.kind !== 'tool-error') throw new Error('delete_report did not fail with ctx.error when run directly')
      const main = [call(id, plan, 'delete_report', { name: MISSING }), { text: 'done' }]
      const { model, result } = await run(driver, unruled, main, false)
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      const requests = model.conversation('main')
      expect(requests).toHaveLength(main.length)
      const error = onlyResult(requests[1])
      expect(driver.resultText(error.text)).toContain(observed.error.quoted ? JSON.stringify(failed.message).slice(1, -1) : failed.message)
      if (observed.error.flagged) expect(error.isError).toBe(true)
      else expect(error.isError).toBeUndefined()
      // ctx.error's details are for the user too.
      for (const request of model.requests) expect(mentions(request, JSON.stringify(failed.details as JsonValue))).toBe(false)
    })
  })
}
