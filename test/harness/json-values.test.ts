import { join } from 'node:path'
import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { ENVELOPE_VERSION, type InvokeResult } from '../../src/runtime/types.js'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { bounded, type CompiledProject, playgroundProject } from './project.js'
import type { Turn } from './scripted-model.js'

/*
 * A tool result's text reaches the model the same through every MCP harness, whatever JSON it holds:
 * the scripted model (scripted-model.ts) calls the playground's `sample_value` once per kind of value
 * (a number, a boolean, null, a JSON string, an array, an object, plain text, an empty string) and
 * each CLI's tool result, unwrapped as its driver says, must be the text the tool script gives.
 * Gemini CLI 0.61 turned every value but an object into an error (`expected record, received number`):
 * see `readableBy` in src/runtime/mcp-server.ts.
 *   npx vitest run --config vitest.harness.config.ts test/harness/json-values.test.ts
 */

const KINDS = ['number', 'boolean', 'null', 'json_string', 'array', 'object', 'text', 'empty'] as const
const MCP_HARNESSES = HARNESSES.filter((id) => harness(id).toolRoute === 'mcp')

/** A text that parses as JSON, as `JSON.stringify` writes it (no whitespace); any other text as it is. */
function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}

/**
 * What a CLI does to the text itself, beyond what its driver unwraps: GitHub Copilot CLI hands its
 * model a text that parses as JSON written again without whitespace (`[1,"two",null]` for the tool's
 * indented array). Its MCP client gets the very text every other client gets
 * (test/mcp/json-text-results.test.ts): the rewrite is the CLI's.
 */
const REWRITES: Partial<Record<Harness, (text: string) => string>> = { copilot: compactJson }

let project: CompiledProject
/** The text of each kind as the tool script itself gives it (its result envelope). */
const scriptText = new Map<string, string>()
/** Each harness's text per kind, once its test ran. */
const received = new Map<string, Map<string, string>>()
const cleanup: string[] = []

beforeAll(async () => {
  project = await playgroundProject('oac-json-values-')
  cleanup.push(project.dir)
  for (const kind of KINDS) {
    const run = await bounded('node', [join(project.dir, 'scripts/sample_value.mjs'), '--json', '--envelope', ENVELOPE_VERSION], { cwd: project.dir, env: process.env, stdin: JSON.stringify({ kind }), timeoutMs: 30_000 })
    const result = JSON.parse(run.stdout) as InvokeResult
    if (!result.ok) throw new Error(`sample_value failed for ${kind} when run directly: ${result.message}`)
    scriptText.set(kind, result.text)
  }
  // Every kind, and each a different text.
  expect(new Set(scriptText.values()).size).toBe(KINDS.length)
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

it('covers the MCP harnesses', () => {
  expect(MCP_HARNESSES).toEqual(['claude', 'codex', 'gemini', 'copilot', 'qwen'])
})

for (const id of MCP_HARNESSES) {
  const driver = DRIVERS[id]

  describe(driver.title, () => {
    beforeAll(() => driver.install())

    it('hands the model the text of each kind of value, as the tool script gives it', async () => {
      const { dir, plan } = project
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const main: Turn[] = [...KINDS.map((kind): Turn => ({ calls: [toolCall(id, plan, 'sample_value', { kind })] })), { text: 'done' }]
      const model = await converse(driver, { project: dir, plan, home, env }, { main })
      const requests = model.conversation('main')
      const texts = new Map<string, string>()
      KINDS.forEach((kind, i) => {
        const results = requests[i + 1]!.toolResults
        expect(results, kind).toHaveLength(1)
        expect(results[0]!.isError, `${kind}: ${results[0]!.text}`).not.toBe(true)
        texts.set(kind, driver.resultText(results[0]!.text))
      })
      received.set(id, texts)
      const rewrite = REWRITES[id] ?? ((text: string) => text)
      expect(Object.fromEntries(texts)).toEqual(Object.fromEntries([...scriptText].map(([kind, text]) => [kind, rewrite(text)])))
    })
  })
}

it('hands every MCP harness the same text (the same JSON, where the CLI writes it again)', () => {
  // Each harness's own test above compared its texts with the script's; here, with each other.
  expect([...received.keys()]).toEqual(MCP_HARNESSES)
  const exact = MCP_HARNESSES.filter((id) => REWRITES[id] === undefined).map((id) => Object.fromEntries(received.get(id)!))
  for (const texts of exact) expect(texts).toEqual(exact[0])
  const values = MCP_HARNESSES.map((id) => Object.fromEntries([...received.get(id)!].map(([kind, text]) => [kind, compactJson(text)])))
  for (const texts of values) expect(texts).toEqual(values[0])
})
