import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PlanOptions } from '../../src/compile/index.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { markedFixture } from '../util/marked-fixture.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/compile-invalid')
// The registries are in registries.ts; most tools, and the lines their diagnostics point at, in tools.ts.
const fixture = markedFixture(root, 'registries.ts')
const { markedLine, failing, expectAt } = fixture

/** Compiles a registry that loads cleanly. */
async function compile(exportName: string, options: Partial<PlanOptions> = {}) {
  const result = await fixture.compile(exportName, options)
  expect(result.loaded.diagnostics).toEqual([])
  return result
}

describe('compilePlan: each invalid definition fails with a diagnostic at its definition', () => {
  it('a tool name that is not valid in every harness', async () => {
    const [d] = await failing('toolNameInvalid', 'tool-name-invalid')
    await expectAt(d!, 'tool-name-invalid', { file: 'tools.ts' })
    expect(d!.message).toContain('"searchIssues"')
  })

  it("a tool name too long for Codex's mcp__<server>__<tool> cap, which depends on the server name", async () => {
    expect((await compile('toolNameLong')).plan).toBeDefined()
    const [d] = await failing('toolNameLong', 'tool-name-invalid', { serverName: 'a-rather-long-server-name' })
    await expectAt(d!, 'tool-name-long', { file: 'tools.ts' })
    // Codex joins the names with "-" made "_", and that name is the one capped.
    expect(d!.message).toContain('Codex shows it as mcp__a_rather_long_server_name__summarise_the_release_notes_for_a_version')
  })

  it('two different tools with one name, naming both locations', async () => {
    const [d] = await failing('toolDuplicate', 'tool-duplicate')
    await expectAt(d!, 'tool-duplicate', { file: 'tools.ts' })
    expect(d!.message).toContain(`tools.ts:${await markedLine('search-a', 'tools.ts')}`)
  })

  it('a tool named like a built-in of opencode, pi or omp', async () => {
    const [d] = await failing('toolBuiltin', 'tool-name-builtin')
    await expectAt(d!, 'tool-name-builtin', { file: 'tools.ts' })
    expect(d!.message).toContain('opencode, pi, omp')
    // Claude and Codex reach our tools through MCP, and the bash route has no namespace to share.
    expect((await compile('toolBuiltin', { harnesses: ['claude', 'codex'] })).plan).toBeDefined()
    expect((await compile('toolBuiltin', { nativeTools: false })).plan).toBeDefined()
  })

  it('two tools Codex would show the model under one name ("-" and "_" alike), reported at the second', async () => {
    const [d] = await failing('toolNameCollision', 'tool-name-collision')
    await expectAt(d!, 'tool-name-collision', { file: 'tools.ts' })
    expect(d!.message).toBe('Tools "ping-host" and "ping_host" both reach the model as ping_host in Codex, which would rename one of them.')
    // Every other harness keeps the names apart.
    expect((await compile('toolNameCollision', { harnesses: ['opencode', 'claude', 'pi', 'omp'] })).plan).toBeDefined()
  })

  it("harness fields a harness would reject or the definition owns, every one reported at its agent, for the selected harnesses only", async () => {
    const result = await compile('harnessFields')
    expect(result.plan).toBeUndefined()
    const found = result.diagnostics.map((d) => [d.code, d.message.match(/`(harness\.[a-z_.]+)`/)?.[1]])
    expect(found).toEqual([
      ['harness-field-reserved', 'harness.claude.model'],
      ['codex-key-unknown', 'harness.codex.temperature'],
      ['codex-key-unknown', 'harness.codex.developer_instructions'],
      ['codex-value-null', 'harness.codex.tools'],
    ])
    await expectAt(result.diagnostics[0]!, 'harness-field-reserved')
    for (const d of result.diagnostics.slice(1)) await expectAt(d, 'codex-key-unknown')
    expect(result.diagnostics[1]!.fix).toContain('model_reasoning_effort')
    expect(result.diagnostics[2]!.message).toContain('from the agent `prompt`')
    // A harness that is not compiled writes no file its fields could break.
    expect((await compile('harnessFields', { harnesses: ['opencode', 'pi'] })).plan).toBeDefined()
  })

  it('harness fields of Gemini CLI (a closed schema), Qwen Code and Copilot: owned keys refused, unknown ones only for Gemini', async () => {
    const result = await compile('newHarnessFields', { harnesses: ['gemini', 'qwen', 'copilot'] })
    expect(result.plan).toBeUndefined()
    expect(result.diagnostics.map((d) => [d.code, /`(harness\.[a-z]+\.[a-z_]+)`/.exec(d.message)?.[1]])).toEqual([
      ['harness-field-reserved', 'harness.gemini.tools'],
      ['harness-field-unknown', 'harness.gemini.color'],
      ['harness-field-reserved', 'harness.copilot.name'],
      ['harness-field-reserved', 'harness.qwen.model'],
    ])
    for (const d of result.diagnostics) await expectAt(d, 'gemini-field')
    expect(result.diagnostics[1]!.fix).toContain('max_turns')
    // Qwen and Copilot drop (or warn about) keys they do not know; Gemini is not compiled here.
    expect((await compile('newHarnessFields', { harnesses: ['opencode'] })).plan).toBeDefined()
  })

  it("an agent prompt with ${name}, which Gemini CLI and Qwen Code fill in (and refuse to start without), only when one of them is selected", async () => {
    const [d] = await failing('promptPlaceholder', 'prompt-placeholder', { harnesses: ['claude', 'gemini', 'qwen'] })
    await expectAt(d!, 'prompt-placeholder')
    expect(d!.message).toContain('`${query}`')
    expect(d!.message).toContain('Gemini CLI and Qwen Code')
    expect((await compile('promptPlaceholder', { harnesses: ['claude', 'copilot'] })).plan).toBeDefined()
  })

  it('a server name with "_" when Gemini CLI is selected, which splits mcp_<server>_<tool> at the first "_"', async () => {
    expect((await compile('configured', { config: 'dev', serverName: 'oac_tools', harnesses: ['claude', 'qwen'] })).plan).toBeDefined()
    const [d] = await failing('configured', 'server-name-invalid', { config: 'dev', serverName: 'oac_tools', harnesses: ['gemini'] })
    expect(d!.message).toContain('mcp_oac_tools_<tool>')
    expect(d!.fix).toContain('no "_" with gemini')
    await expectAt(d!, 'registry-configured')
  })

  it('replacesBuiltin is allowed for opencode and pi, but omp rejects it even then', async () => {
    expect((await compile('toolReplacesBuiltin', { harnesses: ['opencode', 'pi', 'claude'] })).plan).toBeDefined()
    const [d] = await failing('toolReplacesBuiltin', 'tool-replaces-builtin-omp')
    await expectAt(d!, 'tool-replaces-builtin', { file: 'tools.ts' })
    expect(d!.message).toContain('omp')
  })

  it('replacesBuiltin on a name no harness uses is a warning', async () => {
    const result = await compile('toolReplacesNothing')
    expect(result.plan).toBeDefined()
    expect(result.diagnostics).toHaveLength(1)
    expect(result.diagnostics[0]!.code).toBe('tool-replaces-nothing')
    await expectAt(result.diagnostics[0]!, 'tool-replaces-nothing', { file: 'tools.ts', severity: 'warning' })
  })

  it('a blank tool description', async () => {
    const [d] = await failing('toolDescriptionMissing', 'tool-description-missing')
    await expectAt(d!, 'tool-description-missing', { file: 'tools.ts' })
  })

  it('a tool title on two lines (harnesses show it on one)', async () => {
    const [d] = await failing('toolTitleInvalid', 'tool-title-invalid')
    await expectAt(d!, 'tool-title-invalid', { file: 'tools.ts' })
    expect(d!.message).toBe('Tool "titled"\'s title holds a line break or another control character.')
  })

  it('an input that is not an object schema, for zod and TypeBox', async () => {
    const [zod, typebox] = await failing('inputNotObject', 'tool-input-not-object')
    await expectAt(zod!, 'tool-input-not-object', { file: 'tools.ts' })
    expect(zod!.fix).toContain('z.object(')
    await expectAt(typebox!, 'tool-input-not-object-typebox', { file: 'tools.ts' })
    expect(typebox!.fix).toContain('Type.Object(')
  })

  it('an input that is neither zod nor TypeBox', async () => {
    const [d] = await failing('inputUnsupported', 'tool-schema-unsupported')
    await expectAt(d!, 'tool-schema-unsupported', { file: 'tools.ts' })
  })

  it('an input JSON Schema cannot express (z.date, Type.Date)', async () => {
    const [zod, typebox] = await failing('inputUnrepresentable', 'tool-schema-unrepresentable')
    await expectAt(zod!, 'tool-schema-unrepresentable', { file: 'tools.ts' })
    expect(zod!.message).toContain('Date')
    await expectAt(typebox!, 'tool-schema-unrepresentable-typebox', { file: 'tools.ts' })
    expect(typebox!.message).toContain('Date at /properties/at')
  })

  it('a TypeBox Type.Ref to a schema the input does not contain', async () => {
    const [d] = await failing('inputDanglingRef', 'tool-schema-unresolved-ref')
    await expectAt(d!, 'tool-schema-unresolved-ref', { file: 'tools.ts' })
    expect(d!.message).toContain('"Elsewhere"')
  })

  it('an invalid agent name', async () => {
    const [d] = await failing('agentNameInvalid', 'agent-name-invalid')
    await expectAt(d!, 'agent-name-invalid')
  })

  it('two agents with one name, naming both locations', async () => {
    const found = await failing('agentDuplicate', 'agent-duplicate')
    expect(found).toHaveLength(1)
    await expectAt(found[0]!, 'agent-duplicate')
    expect(found[0]!.message).toContain(`registries.ts:${await markedLine('agent-first')}`)
  })

  it('a missing agent description', async () => {
    const [d] = await failing('agentDescriptionMissing', 'agent-description-missing')
    await expectAt(d!, 'agent-description-missing')
  })

  it('an agent naming a tool that is not defined', async () => {
    const [d] = await failing('agentToolUnknown', 'agent-tool-unknown')
    await expectAt(d!, 'agent-tool-unknown')
    expect(d!.message).toContain('"nope"')
    expect(d!.message).toContain('Registry tools: search.')
  })

  it('toolFormatOverrides naming a tool the agent does not have', async () => {
    const [d] = await failing('agentOverrideUnknown', 'agent-override-unknown-tool')
    await expectAt(d!, 'agent-override-unknown-tool')
    expect(d!.message).toContain('"okay"')
  })

  it('a harness field that is not a JSON value', async () => {
    const [d] = await failing('agentHarnessNotJson', 'agent-harness-not-json')
    await expectAt(d!, 'agent-harness-not-json')
    expect(d!.message).toContain('harness.opencode.color')
  })

  it('an agent not made by defineAgent', async () => {
    const [d] = await failing('notAnAgent', 'definition-invalid')
    await expectAt(d!, 'definition-invalid')
  })

  it('an unknown config lists the known ones', async () => {
    const [d] = await failing('configured', 'config-unknown', { config: 'staging' })
    await expectAt(d!, 'registry-configured')
    expect(d!.message).toContain('Known configs: prod, dev.')
  })

  it('an env entry that is not a variable name', async () => {
    const [d] = await failing('configured', 'config-env-invalid', { config: 'prod' })
    await expectAt(d!, 'registry-configured')
    expect(d!.message).toContain('"not-a-name"')
  })

  it('an MCP server name no harness accepts', async () => {
    const [d] = await failing('configured', 'server-name-invalid', { serverName: 'oac tools' })
    expect(d!.message).toContain('"oac tools"')
  })
})

describe('compilePlan: schema constructs some target cannot express', () => {
  const constructs = async (options: Partial<PlanOptions>) => {
    const result = await compile('schemaConstructs', options)
    return { plan: result.plan, found: result.diagnostics.filter((d) => d.code === 'tool-schema-construct') }
  }
  const about = (found: Diagnostic[], tool: string, harness: string) => found.filter((d) => d.message.startsWith(`Tool "${tool}"`) && d.message.includes(`for ${harness},`))

  it('are errors where Codex would show the model a wrong type, at each tool definition', async () => {
    const { plan, found } = await constructs({ harnesses: ['codex'] })
    expect(plan).toBeUndefined()
    for (const [tool, marker, construct] of [
      ['outline', 'schema-recursion', 'recursive schema'],
      ['shape', 'schema-exclusive-union', 'exclusive union'],
      ['point', 'schema-tuple', 'tuple'],
    ] as const) {
      const [d, ...rest] = about(found, tool, 'codex')
      expect(rest).toEqual([])
      await expectAt(d!, marker, { file: 'tools.ts' })
      expect(d!.message).toContain(construct)
      expect(d!.fix).toBeTruthy()
    }
    // Codex keeps anyOf, so the plain union is fine there.
    expect(about(found, 'either', 'codex')).toEqual([])
  })

  it('are warnings, naming the target and what it does, where the target only loosens them', async () => {
    const { plan, found } = await constructs({ harnesses: ['opencode', 'pi', 'omp', 'claude', 'copilot'] })
    expect(plan).toBeDefined()
    expect(found.every((d) => d.severity === 'warning')).toBe(true)
    expect(about(found, 'outline', 'opencode')[0]!.message).toContain('unknown')
    expect(about(found, 'outline', 'omp')).toHaveLength(1)
    // Copilot shows a tuple's length only as description text (test/harness/schemas.test.ts), and keeps a union.
    expect(about(found, 'point', 'copilot')[0]!.message).toContain('description as text')
    expect(about(found, 'either', 'copilot')).toEqual([])
    const union = about(found, 'either', 'pi')[0]!
    expect(union.message).toContain('/properties/v')
    expect(union.message).toContain('Google')
    await expectAt(union, 'schema-union', { file: 'tools.ts', severity: 'warning' })
    expect(found.filter((d) => d.message.includes('for claude,'))).toEqual([])
  })

  it('do not matter on the bash route', async () => {
    const { plan, found } = await constructs({ nativeTools: false })
    expect(plan).toBeDefined()
    expect(found).toEqual([])
  })
})

describe('compilePlan: results and approvals', () => {
  it('an output schema JSON Schema cannot express, and one of another package than the input', async () => {
    const result = await compile('outputSchemas')
    expect(result.plan).toBeUndefined()
    const [date] = result.diagnostics.filter((d) => d.code === 'tool-schema-unrepresentable')
    await expectAt(date!, 'tool-output-unrepresentable', { file: 'tools.ts' })
    expect(date!.message).toMatch(/^Tool "when": The output schema cannot be expressed as JSON Schema: /)
    expect(date!.fix).toContain('return JSON values from run')
    const [mixed] = result.diagnostics.filter((d) => d.code === 'tool-output-package')
    await expectAt(mixed!, 'tool-output-package', { file: 'tools.ts' })
    expect(mixed!.message).toBe('Tool "mixed"\'s output schema is made with @sinclair/typebox, its input schema with zod; the tool script checks both with one package.')
  })

  it('an output schema that is no object is a warning, once, naming the MCP harnesses that lose the structure', async () => {
    const result = await compile('outputNotObject', { harnesses: ['opencode', 'claude', 'codex'] })
    expect(result.plan?.tools[0]?.output).toEqual({ type: 'array', items: { type: 'string' } })
    expect(result.diagnostics).toHaveLength(1)
    await expectAt(result.diagnostics[0]!, 'tool-output-not-object', { file: 'tools.ts', severity: 'warning' })
    expect(result.diagnostics[0]!.message).toBe(
      'Tool "listing"\'s output schema is of type "array", but MCP carries structured output only as an object: Claude Code, Codex get the value as JSON text, without the schema.',
    )
    // The shims carry JSON text whatever the schema; so does the bash route.
    expect((await compile('outputNotObject', { harnesses: ['opencode', 'pi'] })).diagnostics).toEqual([])
    expect((await compile('outputNotObject', { nativeTools: false })).diagnostics).toEqual([])
  })

  it('effects that are not effects, not booleans, or contradict each other, each reported', async () => {
    const found = await failing('effectsInvalid', 'tool-effects-invalid')
    for (const d of found) await expectAt(d, 'tool-effects-invalid', { file: 'tools.ts' })
    expect(found.map((d) => d.message)).toEqual([
      'Tool "odd"\'s effects has "cheap", which is not an effect.',
      'Tool "odd"\'s effects.idempotent is "yes", not true or false.',
      'Tool "odd" declares itself both readOnly and destructive.',
    ])
  })

  it('approval rules naming no tool of the registry, an unknown effect, or not a list', async () => {
    const result = await compile('approvals', { config: 'unknown' })
    expect(result.plan).toBeUndefined()
    const line = await markedLine('registry-approvals')
    expect(result.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ['config-approval-invalid', line, 'Config "unknown"\'s approval.allow[1] is {"effect":"cheap"}, neither a tool name nor an effect.'],
      ['config-approval-invalid', line, 'Config "unknown"\'s approval.ask is not a list.'],
      ['config-approval-unknown-tool', line, 'Config "unknown"\'s approval.allow names the tool "nope", which the registry does not define. Its tools: reader, eraser, ok, shell_only.'],
    ])
  })

  it('decides each tool by the rules, ask over allow, and warns where they name a tool of the bash route', async () => {
    const result = await compile('approvals', { harnesses: ['claude'] })
    const byName = Object.fromEntries(result.plan!.tools.map((tool) => [tool.name, [tool.approval, tool.effects]]))
    expect(byName).toEqual({
      reader: ['allow', { readOnly: true }],
      // Named in allow, but destructive, which the ask rules select.
      eraser: ['ask', { destructive: true, idempotent: true }],
      ok: ['allow', undefined],
      // json: false: the harness's shell tool runs it, under its own permission settings.
      shell_only: [undefined, undefined],
    })
    expect(result.diagnostics).toHaveLength(1)
    await expectAt(result.diagnostics[0]!, 'approval-bash-only', { file: 'tools.ts', severity: 'warning' })
  })

  it('warns once where a selected harness has no permission settings to write the rules into', async () => {
    const result = await compile('approvals', { harnesses: ['claude', 'copilot'], serverName: 'team-tools' })
    const [d] = result.diagnostics.filter((found) => found.code === 'approval-unsupported')
    expect(result.diagnostics.filter((found) => found.code === 'approval-unsupported')).toHaveLength(1)
    expect(d).toMatchObject({ severity: 'warning', file: 'registries.ts', line: await markedLine('registry-approvals') })
    expect(d!.message).toMatch(/^Config "default"'s approval rules cannot reach GitHub Copilot: .*\. There, "reader", "eraser", "ok" run as GitHub Copilot decides\.$/)
    expect(d!.fix).toContain("--allow-tool='team-tools(<tool>)'")
    expect((await compile('approvals', { harnesses: ['claude', 'copilot'], nativeTools: false })).diagnostics.filter((found) => found.code === 'approval-unsupported')).toEqual([])
  })
})
