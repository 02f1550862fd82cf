import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { loadRegistry } from '../../src/load/index.js'
import { isTool } from '../../src/define/guards.js'
import { copyProject, repoRoot } from '../util/project.js'

const fixture = resolve(repoRoot, 'test/fixtures/compile-valid')

async function plan(root: string, options: Partial<PlanOptions> = {}): Promise<Plan> {
  const loaded = await loadRegistry('agents/registry.ts:registry', root)
  expect(loaded.diagnostics).toEqual([])
  const result = compilePlan(loaded, { root, ...options })
  expect(result.diagnostics).toEqual([])
  return result.plan!
}

/** Where `defineX({` is called on the line declaring `declaration`, found by reading the file. */
async function definedAt(file: string, declaration: string) {
  const lines = (await readFile(join(fixture, file), 'utf8')).split('\n')
  const index = lines.findIndex((line) => line.includes(declaration))
  return { file, line: index + 1, column: lines[index]!.search(/define(Tool|Agent)\(/) + 1 }
}

/** The line of `defineRegistry(` in the fixture's registry. */
async function markedRegistryLine(): Promise<number> {
  const lines = (await readFile(join(fixture, 'agents/registry.ts'), 'utf8')).split('\n')
  return lines.findIndex((line) => line.includes('defineRegistry(')) + 1
}

describe('compilePlan: a valid registry', () => {
  it('warns, once, that Codex shows every agent every served tool, naming the agents given fewer', async () => {
    const loaded = await loadRegistry('agents/registry.ts:registry', fixture)
    const codex = compilePlan(loaded, { root: fixture, harnesses: ['codex', 'claude'], nativeTools: true })
    expect(codex.plan).toBeDefined()
    expect(codex.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'tools-not-scoped', file: 'agents/registry.ts', line: await markedRegistryLine() }),
    ])
    // planner has lookup (and geocode, a script-only tool) but not ping; scout has both served tools.
    expect(codex.diagnostics[0]!.message).toContain('all 2 tools of the MCP server, also "planner", which was given fewer')
    // Claude Code and opencode scope each agent's tools; the bash route has no server to scope.
    expect(compilePlan(loaded, { root: fixture, harnesses: ['claude', 'opencode'], nativeTools: true }).diagnostics).toEqual([])
    expect(compilePlan(loaded, { root: fixture, harnesses: ['codex'], nativeTools: false }).diagnostics).toEqual([])
  })

  it('picks the named config: harnesses in canonical order, native tools, env without repeats', async () => {
    const prod = await plan(fixture, { config: 'prod' })
    expect(prod.config).toBe('prod')
    expect(prod.harnesses).toEqual(['claude', 'codex', 'pi'])
    expect(prod.nativeTools).toBe(false)
    expect(prod.serverName).toBe('oac-tools')
    expect(prod.bridge).toBe('process')
    expect(prod.env).toEqual(['API_TOKEN', 'REGION'])
  })

  it('with no config named, uses the profile called default; options override the profile', async () => {
    const byDefault = await plan(fixture)
    expect(byDefault.config).toBe('default')
    expect(byDefault.harnesses).toEqual(['opencode', 'claude'])
    expect(byDefault.nativeTools).toBe(true)
    expect(byDefault.env).toEqual([])
    const overridden = await plan(fixture, { config: 'prod', harnesses: ['omp', 'opencode'], nativeTools: true, serverName: 'trips', bridge: 'inline' })
    expect(overridden).toMatchObject({ harnesses: ['opencode', 'omp'], nativeTools: true, serverName: 'trips', bridge: 'inline' })
  })

  it('lists each tool once: registry tools first, then by first appearance in agents', async () => {
    const { tools } = await plan(fixture)
    expect(tools.map((t) => t.name)).toEqual(['geocode', 'lookup', 'ping-host'])
    expect(tools.map((t) => t.script)).toEqual(['scripts/geocode.mjs', 'scripts/lookup.mjs', 'scripts/ping-host.mjs'])
    expect(tools.map((t) => t.json)).toEqual([false, true, true])
    expect(tools.map((t) => t.replacesBuiltin)).toEqual([false, false, false])
    expect(tools.map((t) => t.description)).toEqual(['Name the place at a coordinate.', 'Find issues and pull requests by text.', 'Check that a host answers.'])
    expect(tools.map((t) => t.source)).toEqual([
      await definedAt('agents/tools/geo.ts', 'export const geocode'),
      await definedAt('agents/tools/lookup.ts', 'export const lookup'),
      await definedAt('agents/tools/ping.ts', 'export const ping'),
    ])
  })

  it('gives each tool the JSON Schema of its zod or TypeBox input', async () => {
    const [geocode, lookup, ping] = (await plan(fixture)).tools
    // Type.Object({ lat: Type.Number({ minimum: -90, maximum: 90 }), lon: ..., label: Type.Optional(Type.String({ description })) })
    expect(geocode!.schemaKind).toBe('typebox')
    expect(geocode!.schema).toEqual({
      type: 'object',
      required: ['lat', 'lon'],
      properties: {
        lat: { type: 'number', minimum: -90, maximum: 90 },
        lon: { type: 'number', minimum: -180, maximum: 180 },
        label: { type: 'string', description: 'Shown on the map' },
      },
    })
    // z.object: a defaulted field is optional on input; the Place schema (meta id) is inlined, not a $ref.
    expect(lookup!.schemaKind).toBe('zod')
    expect(lookup!.schema).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 2, description: 'Text to find' },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
        kinds: { type: 'array', items: { type: 'string', enum: ['issue', 'pr'] } },
        exact: { type: 'boolean' },
        near: {
          type: 'object',
          properties: { city: { type: 'string' }, country: { type: 'string', minLength: 2, maxLength: 2 } },
          required: ['city', 'country'],
        },
      },
      required: ['query'],
    })
    expect(ping!.schema).toEqual({ type: 'object', properties: { host: { type: 'string' } }, required: ['host'] })
  })

  it('plans agents: prompt text, tool names and formats, mode, models, builtin tools and harness fields', async () => {
    const prod = await plan(fixture, { config: 'prod' })
    const [planner, scout] = prod.agents
    expect(prod.agents.map((a) => a.name)).toEqual(['planner', 'scout'])
    expect(planner).toEqual({
      name: 'planner',
      description: 'Plans trips.',
      prompt: await readFile(join(fixture, 'agents/prompts/planner.md'), 'utf8'),
      tools: ['lookup', 'geocode'],
      toolFormats: { lookup: 'json', geocode: 'bash' },
      mode: 'subagent',
      // 'smart' is an alias in prod's models, one id per harness.
      model: { claude: 'opus', codex: 'gpt-5.1-codex', pi: 'claude-opus-4-1' },
      builtinTools: {},
      harness: { opencode: { temperature: 0.2, permission: { edit: 'deny' } }, claude: { color: 'blue' } },
      source: await definedAt('agents/registry.ts', 'const planner'),
    })
    expect(scout).toEqual({
      name: 'scout',
      description: 'Checks that services answer.',
      prompt: 'You check hosts.',
      tools: ['ping-host', 'lookup'],
      toolFormats: { 'ping-host': 'both', lookup: 'both' },
      mode: 'primary',
      // claude as given; codex through the 'fast' alias; pi from the config's model.
      model: { claude: 'haiku', codex: 'gpt-5.1-codex-mini', pi: 'gpt-default' },
      builtinTools: { claude: ['Read', 'Grep'] },
      harness: {},
      source: await definedAt('agents/registry.ts', 'const scout'),
    })
    // The default profile has no aliases or model: the agent's own strings are model ids.
    const byDefault = await plan(fixture)
    expect(byDefault.agents.map((a) => a.model)).toEqual([{ opencode: 'smart', claude: 'smart' }, { claude: 'haiku' }])
  })

  it('converts an input schema once while it lives (a watch rebuild keeps unchanged tools), and each new schema again', async () => {
    const loaded = await loadRegistry('agents/registry.ts:registry', fixture)
    const tools = [...loaded.registry.tools, ...loaded.registry.agents.flatMap((agent) => agent.tools)].filter(isTool)
    const conversions = [...new Set(tools.map((tool) => tool.input as object))]
      .filter((input): input is { toJSONSchema: () => unknown } => typeof (input as { toJSONSchema?: unknown }).toJSONSchema === 'function')
      .map((input) => vi.spyOn(input, 'toJSONSchema'))
    expect(conversions.length).toBeGreaterThan(0)
    const first = compilePlan(loaded, { root: fixture, config: 'prod' })
    const second = compilePlan(loaded, { root: fixture, config: 'prod' })
    expect(JSON.stringify(second)).toBe(JSON.stringify(first))
    for (const conversion of conversions) expect(conversion).toHaveBeenCalledTimes(1)
    // A load that runs the modules again makes new schemas: they are converted.
    const again = await loadRegistry('agents/registry.ts:registry', fixture)
    expect(JSON.stringify(compilePlan(again, { root: fixture, config: 'prod' }))).toBe(JSON.stringify(first))
    for (const conversion of conversions) expect(conversion).toHaveBeenCalledTimes(1)
  })

  it('is deterministic and holds no absolute path: the same JSON from two loads and from another checkout', async () => {
    const first = JSON.stringify(await plan(fixture, { config: 'prod' }))
    const second = JSON.stringify(await plan(fixture, { config: 'prod' }))
    expect(second).toBe(first)
    const elsewhere = await copyProject(fixture)
    expect(JSON.stringify(await plan(elsewhere, { config: 'prod' }))).toBe(first)
    expect(first).not.toContain(repoRoot)
    expect(first).not.toContain(elsewhere)
    expect(JSON.parse(first, (_key, value: unknown) => {
      if (typeof value === 'string') expect(value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value)).toBe(false)
      return value
    })).toBeTruthy()
  })
})
