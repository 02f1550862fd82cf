import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import { renderAgentPrompt } from '../../src/emit/codegen/prompt-docs.js'
import { loadRegistry } from '../../src/load/index.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/native-tools')
const plugin = { name: 'trip-tools', version: '1.2.0', description: 'Trips,\n  planned.' }

async function compile(options: Partial<PlanOptions>) {
  const loaded = await loadRegistry('agents/registry.ts:registry', root)
  expect(loaded.diagnostics).toEqual([])
  return compilePlan(loaded, { root, config: 'test', ...options })
}

describe('a plugin folder in the plan', () => {
  it('carries the identity, its description on one line', async () => {
    const { plan, diagnostics } = await compile({ plugin })
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(plan?.plugin).toEqual({ name: 'trip-tools', version: '1.2.0', description: 'Trips, planned.' })
  })

  it('refuses a name or a version some manifest would refuse, with a name that works', async () => {
    const { plan, diagnostics } = await compile({ plugin: { ...plugin, name: 'Trip_Tools', version: '1.2' } })
    expect(plan).toBeUndefined()
    const name = diagnostics.find((d) => d.code === 'plugin-name-invalid')
    expect(name?.message).toContain('"Trip_Tools"')
    expect(name?.fix).toContain('--plugin-name trip-tools')
    expect(name?.file).toMatch(/registry\.ts$/)
    expect(diagnostics.find((d) => d.code === 'plugin-version-invalid')?.message).toContain('"1.2"')
  })

  it("documents each agent's tools as native calls alone: the scripts' relative paths are a project's", async () => {
    const { plan } = await compile({ plugin })
    const planner = plan!.agents.find((agent) => agent.name === 'planner')!
    const project = await compile({})
    const projectPlanner = project.plan!.agents.find((agent) => agent.name === 'planner')!
    expect(renderAgentPrompt(project.plan!, projectPlanner, 'claude')).toContain('node scripts/forecast.mjs')
    const prompt = renderAgentPrompt(plan!, planner, 'claude')
    expect(prompt).not.toContain('node scripts/')
    expect(prompt).toContain('Call the tool `mcp__plugin_trip-tools_oac-tools__forecast`')
  })

  it('refuses a tool an agent would get only as a command, at the agent', async () => {
    const { plan, diagnostics } = await compile({ plugin, nativeTools: false })
    expect(plan).toBeUndefined()
    const errors = diagnostics.filter((d) => d.code === 'plugin-tool-not-native')
    // planner: forecast, add_note; scribe: add_note, count, explode.
    expect(errors.map((d) => d.message.match(/Agent "(\w+)" is given tool "(\w+)"/)!.slice(1).join(':'))).toEqual([
      'planner:forecast',
      'planner:add_note',
      'scribe:add_note',
      'scribe:count',
      'scribe:explode',
    ])
    expect(errors[0]!.message).toContain('native tools are off')
    expect(errors[0]!.fix).toContain('--target')
  })
})
