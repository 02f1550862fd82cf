import { transform } from 'esbuild'
import fc from 'fast-check'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, expect, it } from 'vitest'
import { load as loadJsYaml } from 'js-yaml'
import { parse as parseYaml } from 'yaml'
import type { JsonSchema, Plan } from '../../src/compile/plan.js'
import type { JsonValue } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { mergeJsonText, mergeTomlText } from '../../src/write/index.js'
import { fixturePlan } from '../emit-native/fixture.js'
import { hostileString } from './hostile.js'

// Every emitter at once, so each run costs several esbuild parses: fewer runs than the per-format tests.
const RUNS = Number(process.env.OAC_GENERATED_RUNS ?? 500)

let base: Plan
beforeAll(async () => {
  base = await fixturePlan({ harnesses: ['opencode', 'claude', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo', 'cline'] })
})

const text = hostileString.filter((s) => s.length < 2_000 && s.trim() !== '')

/** Hostile text in every free-text field of every property of a schema: descriptions, enum values, defaults. */
function hostileSchema(schema: JsonSchema, description: string, choice: string): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const changed: Record<string, JsonValue> = {}
  for (const [name, property] of Object.entries(properties)) {
    const next: JsonSchema = { ...property, description }
    if (property.type === 'string' && !property.format && !property.pattern) {
      next.enum = [choice, `${choice}2`]
      next.default = choice
    }
    changed[name] = next
  }
  return { ...schema, properties: changed, description }
}

/** Where a generated file's text must come back exactly, read with the parser its harness uses. */
async function check(file: OutputFile, plan: Plan, strings: { description: string; prompt: string }): Promise<void> {
  if (file.kind === 'merge') {
    const merged = file.format === 'json' ? mergeJsonText(undefined, file, []) : mergeTomlText(undefined, file, [])
    const value = file.format === 'json' ? JSON.parse(merged) : parseToml(merged)
    if (file.path.startsWith('.codex/agents/')) {
      expect(value.description).toBe(strings.description)
      expect(String(value.developer_instructions).startsWith(strings.prompt.replace(/\s+$/, ''))).toBe(true)
    }
    if (file.path === '.gemini/settings.json') {
      // Gemini CLI's approval settings: one item per tool the approval rules decide, in the list of its decision.
      const decided = (approval: string) => plan.tools.filter((tool) => tool.json && tool.approval === approval).map((tool) => `mcp_${plan.serverName}_${tool.name}`)
      expect(value.tools?.allowed ?? []).toEqual(decided('allow'))
      expect(value.tools?.confirmationRequired ?? []).toEqual(decided('ask'))
    }
    return
  }
  if (file.path.endsWith('.ts') || file.path.endsWith('.mjs')) {
    await transform(file.content, { loader: file.path.endsWith('.ts') ? 'ts' : 'js' })
    return
  }
  if (file.path.endsWith('.json')) {
    JSON.parse(file.content)
    return
  }
  if (file.path.startsWith('prompts/')) {
    // The harness-neutral prompt document: the prompt as is, no frontmatter.
    expect(file.content.startsWith(strings.prompt.replace(/\s+$/, ''))).toBe(true)
    return
  }
  if (file.path.endsWith('.md')) {
    const close = file.content.indexOf('\n---', 3)
    expect(file.content.slice(close, close + 5)).toBe('\n---\n')
    const frontmatter = parseYaml(file.content.slice(4, close + 1)) as Record<string, unknown>
    expect(frontmatter.description).toBe(strings.description)
    // Gemini CLI reads its agents' frontmatter with js-yaml (4.1.1 in 0.61), not the yaml library.
    if (file.path.startsWith('.gemini/agents/')) expect((loadJsYaml(file.content.slice(4, close + 1)) as Record<string, unknown>).description).toBe(strings.description)
    expect(file.content.slice(close + 5).trimStart().startsWith(strings.prompt.trim())).toBe(true)
    return
  }
  throw new Error(`no reader for ${file.path} (${plan.harnesses.join(', ')})`)
}

it(`every generated file parses and gives back hostile descriptions, prompts, enum values and defaults (${RUNS} plans)`, { timeout: 600_000 }, async () => {
  let files = 0
  await fc.assert(
    fc.asyncProperty(text, text, text, async (description, prompt, choice) => {
      const plan: Plan = {
        ...base,
        // Every other tool also has an output schema (hostile too, documented in the prompts and listed by the
        // server), effects, and an approval rule (written into each harness's permission settings).
        tools: base.tools.map((tool, i) => ({
          ...tool,
          description,
          schema: hostileSchema(tool.schema, description, choice),
          ...(i % 2 === 0 && { output: hostileSchema(tool.schema, description, choice), effects: { readOnly: true }, approval: i % 4 === 0 ? ('allow' as const) : ('ask' as const) }),
        })),
        agents: base.agents.map((agent) => ({ ...agent, description, prompt })),
      }
      for (const file of emitAll(plan)) {
        await check(file, plan, { description, prompt })
        files++
      }
    }),
    { numRuns: RUNS },
  )
  console.log(`generated files: ${RUNS} hostile plans, ${files} files parsed (TypeScript by esbuild, TOML, JSON, YAML frontmatter)`)
})
