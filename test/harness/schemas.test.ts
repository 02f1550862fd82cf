import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { JsonSchema } from '../../src/compile/plan.js'
import { SCHEMA_SUPPORT } from '../../src/compile/schema-support.js'
import type { Harness } from '../../src/define/types.js'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { compiledProject } from './project.js'
import type { Turn } from './scripted-model.js'

/*
 * What each real CLI shows its model for a tool whose schema holds each construct of the support
 * table (src/compile/schema-support.ts): a construct the harness's description lists no limit for
 * must reach the model exactly as the MCP server serves it, and one it lists must not. The fixture
 * (test/harness/fixtures/schemas) has a field per construct, described by the construct's name; a
 * scripted model starts the `shaper` sub-agent, and the tools its first request shows are compared
 * field by field with the plan's schemas.
 *   npx vitest run --config vitest.harness.config.ts test/harness/schemas.test.ts
 */

const fixture = resolve(import.meta.dirname, 'fixtures/schemas')
/**
 * The MCP harnesses whose limits this file verifies (Codex's errors would stop the fixture's build), and
 * Cline, whose plugin registers each tool with its JSON Schema as written (it has no sub-agents of ours:
 * its main agent's first request shows the tools).
 */
const VERIFIED = ['claude', 'gemini', 'copilot', 'qwen', 'cline'] as const satisfies readonly Harness[]

const cleanup: string[] = []
afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** One field of a tool, with the root's `$defs` its `$ref`s point into. */
interface Field {
  schema: JsonSchema | undefined
  $defs: unknown
}

/** A field as the plan (and the MCP server) has it, and as the CLI showed it to the model. */
interface Seen {
  served: Field
  shown: Field
}

/**
 * Copilot CLI 1.0 (its BYOK OpenAI provider) moves each validation keyword it does not pass on into the
 * field's description, as text: the model reads them; the tool script still checks them. The other
 * CLIs show such keywords as served.
 */
function expectCopilotText(fields: Map<string, Seen>): void {
  expect(fields.get('keywords')!.shown.schema).toEqual({ type: 'string', description: 'keywords\n\n{minLength: 2, maxLength: 5}' })
  expect(fields.get('pattern-properties')!.shown.schema).toEqual({ type: 'object', description: 'pattern-properties\n\n{patternProperties: {"^x-":{"type":"string"}}}' })
  // The positions stay; the length moves into the text, and `items: false` (no further item) becomes a described open schema.
  const { prefixItems } = fields.get('tuple')!.served.schema!
  expect(fields.get('tuple')!.shown.schema).toEqual({ type: 'array', prefixItems, items: { description: '{schema: false}' }, description: 'tuple\n\n{minItems: 2, maxItems: 2}' })
}

for (const id of VERIFIED) {
  const driver = DRIVERS[id]

  describe(driver.title, () => {
    it("shows the model each schema construct as its description's schema limits say", async () => {
      await driver.install()
      const { dir, plan, diagnostics } = await compiledProject(fixture, `oac-schemas-${id}-`, { config: 'test', harnesses: [id] })
      const { home, env } = await isolatedHome()
      cleanup.push(dir, home)
      const scripts: Record<string, Turn[]> = driver.startAgent ? { main: [...driver.startAgent('shaper'), { text: 'done' }], shaper: [driver.finishAgent('shaped')] } : { main: [{ text: 'done' }] }
      const model = await converse(driver, { project: dir, plan, home, env }, scripts)
      // The sub-agent is shown its tools in every one of these CLIs but Cline (Qwen Code's main agent only names them).
      const shownTools = model.conversation(driver.startAgent ? 'shaper' : 'main')[0]!.tools
      // Each field of the fixture is described by the construct it holds.
      const fields = new Map<string, Seen>()
      for (const tool of plan.tools) {
        const shown = shownTools.find((candidate) => candidate.name === toolCall(id, plan, tool.name, {}).name)?.schema as JsonSchema | undefined
        expect(shown, tool.name).toBeDefined()
        for (const [field, served] of Object.entries(tool.schema.properties as Record<string, JsonSchema>)) {
          fields.set(String(served.description), {
            served: { schema: served, $defs: tool.schema.$defs },
            shown: { schema: (shown!.properties as Record<string, JsonSchema>)[field], $defs: shown!.$defs },
          })
        }
      }
      const limits = harness(id).schemaLimits
      for (const { construct, label } of SCHEMA_SUPPORT) {
        expect(fields.has(construct), `the fixture has no field described '${construct}'`).toBe(true)
        const { served, shown } = fields.get(construct)!
        if (limits[construct]) expect(shown, `${id} ${construct}`).not.toEqual(served)
        else expect(shown, `${id} ${construct}`).toEqual(served)
        // The build said so: a warning names each construct the harness does not show as written.
        const warned = diagnostics.filter((d) => d.code === 'tool-schema-construct' && d.message.includes(label) && d.message.includes(`for ${id},`))
        expect(warned.length > 0, `${id} ${construct} warning`).toBe(limits[construct] !== undefined)
      }
      if (id === 'copilot') expectCopilotText(fields)
      else expect(fields.get('keywords')!.shown).toEqual(fields.get('keywords')!.served)
    })
  })
}
