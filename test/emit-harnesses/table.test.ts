import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { needsMcpServer } from '../../src/bundle/entries.js'
import { HARNESS_TABLE, harness } from '../../src/compile/harnesses/index.js'
import { SCHEMA_SUPPORT } from '../../src/compile/schema-support.js'
import { HARNESSES } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import { agent, fixturePlan, tool } from '../emit-claude-codex/fixture.js'
import { repoRoot } from '../util/project.js'

/** Every harness of the table, each compiled alone: what the rest of the code reads from its description must hold in its files. */
describe('the harness table', () => {
  it('describes exactly the harnesses of HARNESSES, each under its own id', () => {
    expect(Object.keys(HARNESS_TABLE)).toEqual([...HARNESSES])
    for (const id of HARNESSES) expect(harness(id).id).toBe(id)
  })

  it("gives every harness a real-CLI check whose version is the one its harness test pins", async () => {
    for (const id of HARNESSES) {
      const { cli, test, list } = harness(id).proof
      const source = await readFile(join(repoRoot, test), 'utf8')
      expect(source, `${id}: ${test}`).toContain(cli.version)
      const names = { server: 'oac-tools', tool: 'forecast', agent: 'planner' }
      if (list.kind === 'command') {
        expect(list.args(names).length, id).toBeGreaterThan(0)
        expect(list.expect(names).source, id).toMatch(/oac-tools|forecast|planner/)
      } else if (list.kind === 'sdk') {
        expect(list.expect(names), id).toBe('forecast')
      } else {
        // No list command: the tier's scripted-model run is the proof, so the test file must drive the CLI.
        expect(list.why, id).not.toBe('')
        expect(source, id).toMatch(/from '.\/conversation.js'/)
      }
    }
  })

  it('joins each harness\'s schema limits into the support table, construct by construct', () => {
    for (const id of HARNESSES) {
      for (const [construct, effect] of Object.entries(harness(id).schemaLimits)) {
        expect(SCHEMA_SUPPORT.find((rule) => rule.construct === construct)?.targets[id], `${id} ${construct}`).toBe(effect)
      }
    }
  })

  for (const id of HARNESSES) {
    describe(id, () => {
      const description = harness(id)
      const plan = fixturePlan({
        harnesses: [id],
        tools: [tool('forecast')],
        agents: [agent('planner', { tools: ['forecast'], toolFormats: { forecast: 'json' } })],
      })
      const files = emitAll(plan)

      it('writes the agent file its description names, or none', () => {
        const agentFiles = files.filter((file) => !file.path.startsWith('prompts/') && file.path.includes('planner'))
        expect(agentFiles.map((file) => file.path)).toEqual(description.agentFile ? [description.agentFile('planner')] : [])
      })

      it('tells the agent the tool name its model sees', () => {
        if (!description.agentFile) return
        const file = files.find((candidate) => candidate.path === description.agentFile!('planner'))!
        const text = file.kind === 'owned' ? file.content : JSON.stringify(file.entries)
        expect(text).toContain(`Call the tool \`${description.modelToolName('oac-tools', 'forecast')}\``)
      })

      it('gets the MCP server exactly when its tools route is MCP', () => {
        expect(needsMcpServer(plan)).toBe(description.toolRoute === 'mcp')
      })
    })
  }
})
