import { Type } from '@sinclair/typebox'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/compile/plan.js'
import { HARNESSES } from '../../src/define/types.js'
import { agentNameProblem, builtinCollisions, maxToolNameLength, serverNameProblem, toolNameProblem } from '../../src/compile/names.js'
import { canonicalSchema } from '../../src/compile/schema.js'
import { SCHEMA_SUPPORT, schemaLimitations } from '../../src/compile/schema-support.js'

function symbolsAnywhere(value: unknown): symbol[] {
  if (typeof value !== 'object' || value === null) return []
  return [...Object.getOwnPropertySymbols(value), ...Object.values(value).flatMap(symbolsAnywhere)]
}

describe('canonicalSchema', () => {
  it('inlines zod schemas that carry a meta id, even at the root', () => {
    const result = canonicalSchema(z.object({ a: z.string() }).meta({ id: 'Root' }))
    expect(result).toEqual({ ok: true, kind: 'zod', package: 'zod', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } })
  })

  it('keeps $ref only for recursion, with just the recursive definition', () => {
    const Unused = z.string().meta({ id: 'Label' })
    interface Node { label: string; children: Node[] }
    const NodeSchema: z.ZodType<Node> = z.object({ label: Unused, get children() { return z.array(NodeSchema) } })
    const result = canonicalSchema(z.object({ tree: NodeSchema }))
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const defs = result.schema.$defs as Record<string, { properties: { label: unknown; children: { items: { $ref: string } } } }>
    expect(Object.keys(defs)).toHaveLength(1)
    const [name, node] = Object.entries(defs)[0]!
    expect(result.schema.properties).toEqual({ tree: { $ref: `#/$defs/${name}` } })
    expect(node.properties.children.items.$ref).toBe(`#/$defs/${name}`)
    expect(node.properties.label).toEqual({ type: 'string' })
  })

  it('accepts TypeBox recursion (a $ref to an $id in the schema) and strips its symbols', () => {
    const Tree = Type.Recursive((This) => Type.Object({ id: Type.String(), nodes: Type.Array(This) }), { $id: 'Tree' })
    const result = canonicalSchema(Type.Object({ tree: Tree, note: Type.Optional(Type.String()) }))
    expect(result.ok && result.kind).toBe('typebox')
    if (!result.ok) return
    expect(symbolsAnywhere(result.schema)).toEqual([])
    expect(result.schema.required).toEqual(['tree'])
    expect(result.schema.properties).toMatchObject({ tree: { $id: 'Tree', properties: { nodes: { type: 'array', items: { $ref: 'Tree' } } } } })
  })

  it('rejects zod 3 schemas and plain JSON Schema with a fix', () => {
    const zod3 = canonicalSchema(z3.object({ a: z3.string() }))
    expect(zod3).toMatchObject({ ok: false, code: 'tool-schema-unsupported' })
    expect(!zod3.ok && zod3.fix).toContain('zod 4')
    expect(canonicalSchema({ type: 'object', properties: {} })).toMatchObject({ ok: false, code: 'tool-schema-unsupported' })
  })

  it('reports zod types JSON cannot hold, and transforms on their own', () => {
    expect(canonicalSchema(z.object({ n: z.bigint() }))).toMatchObject({ ok: false, code: 'tool-schema-unrepresentable' })
    expect(canonicalSchema(z.object({ n: z.transform((v: unknown) => String(v)) }))).toMatchObject({ ok: false, code: 'tool-schema-unrepresentable' })
    // A transform after a JSON type describes its input, which is JSON.
    expect(canonicalSchema(z.object({ n: z.string().transform((s) => s.length) }))).toMatchObject({ ok: true, schema: { properties: { n: { type: 'string' } } } })
  })
})

describe('the schema support table', () => {
  it('gives every construct a fix and never lists Claude, which reads full JSON Schema', () => {
    for (const rule of SCHEMA_SUPPORT) {
      expect(rule.fix, rule.construct).toBeTruthy()
      expect(Object.keys(rule.targets), rule.construct).not.toContain('claude')
      expect(Object.keys(rule.targets).length, rule.construct).toBeGreaterThan(0)
    }
  })

  it('reports allOf only where it decides the type (Codex keeps a typed node typed)', () => {
    const typed: JsonSchema = { type: 'object', properties: { a: { type: 'string', allOf: [{ pattern: 'a' }, { pattern: 'b' }] } } }
    const untyped: JsonSchema = { type: 'object', properties: { a: { allOf: [{ type: 'object' }, { required: ['x'] }] } } }
    expect(schemaLimitations(typed, ['codex', 'omp'])).toEqual([])
    expect(schemaLimitations(untyped, ['codex']).map((l) => [l.rule.construct, l.harness, l.effect.severity, l.pointers])).toEqual([
      ['intersection', 'codex', 'error', ['/properties/a']],
    ])
  })
})

describe('names', () => {
  it('tools: lowercase, letter first, "_" and "-", within Codex\'s cap for the server name', () => {
    for (const ok of ['search', 'search_issues', 'ping-host', 'a1']) expect(toolNameProblem(ok, 'oac-tools'), ok).toBeUndefined()
    for (const bad of ['Search', 'search issues', '_hidden', '-flag', '1st', 'a.b', '', 'con', 'lpt1']) expect(toolNameProblem(bad, 'oac-tools'), bad).toBeDefined()
    // "mcp__oac-tools__" is 16 characters of Codex's 64.
    expect(maxToolNameLength('oac-tools')).toBe(48)
    expect(toolNameProblem('a'.repeat(48), 'oac-tools')).toBeUndefined()
    expect(toolNameProblem('a'.repeat(49), 'oac-tools')).toContain('64')
  })

  it('agents: lowercase words joined by single hyphens', () => {
    for (const ok of ['planner', 'code-reviewer', 'agent2']) expect(agentNameProblem(ok), ok).toBeUndefined()
    for (const bad of ['Planner', 'code_reviewer', 'code--reviewer', '-x', 'x-', 'nul', 'a'.repeat(65)]) expect(agentNameProblem(bad), bad).toBeDefined()
  })

  it('server names and built-in collisions', () => {
    expect(serverNameProblem('oac-tools', HARNESSES)).toBeUndefined()
    expect(serverNameProblem('oac tools', HARNESSES)).toBeDefined()
    // Codex's cap counts whether or not Codex is selected: one registry fits every harness.
    expect(serverNameProblem('s'.repeat(57), ['opencode'])).toContain("Codex's 64-character cap")
    expect(builtinCollisions('read', ['claude', 'codex', 'opencode', 'pi', 'omp'])).toEqual(['opencode', 'pi', 'omp'])
    expect(builtinCollisions('ls', ['opencode', 'pi', 'omp'])).toEqual(['pi'])
    expect(builtinCollisions('forecast', ['opencode', 'pi', 'omp'])).toEqual([])
  })
})
