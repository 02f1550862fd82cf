import { describe, expect, test } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import type { OutputFile } from '../../src/emit/types.js'
import { manifestModule, manifestOf } from '../../src/plugin/manifest.js'
import { resolvedVirtualIdFilter, virtualIdFilter } from '../../src/plugin/virtual.js'

// A description no literal may break: quotes, a backslash, a line separator, a closing script tag, a template.
const TRICKY = 'Says "hi"\\n \u2028 </script> ${process.exit(1)} `x`'

const plan: Plan = {
  config: 'prod',
  harnesses: ['opencode', 'claude'],
  nativeTools: true,
  serverName: 'oac-tools',
  bridge: 'process',
  hooks: [],
  env: [],
  tools: [
    {
      name: 'greet',
      description: TRICKY,
      json: true,
      replacesBuiltin: false,
      schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
      schemaKind: 'zod',
      schemaPackage: 'zod',
      source: { file: 'agents/tools/greet.ts', line: 3, column: 22 },
      script: 'scripts/greet.mjs',
    },
  ],
  agents: [
    {
      name: 'greeter',
      description: 'Greets.',
      prompt: 'Greet people.',
      tools: ['greet'],
      toolFormats: { greet: 'both' },
      mode: 'subagent',
      model: { claude: 'haiku' },
      builtinTools: {},
      harness: {},
      source: { file: 'agents/registry.ts', line: 5, column: 3 },
    },
  ],
}

const files: OutputFile[] = [
  { kind: 'owned', path: 'scripts/greet.mjs', content: '' },
  { kind: 'merge', path: '.mcp.json', format: 'json', entries: [] },
]

async function importCode(code: string): Promise<Record<string, unknown>> {
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Record<string, unknown>
}

describe('virtual:oac', () => {
  test('resolves both ids and only them', () => {
    expect(virtualIdFilter.test('virtual:oac')).toBe(true)
    expect(virtualIdFilter.test('~oac')).toBe(true)
    expect(virtualIdFilter.test('virtual:oac/x')).toBe(false)
    expect(virtualIdFilter.test('./virtual:oac')).toBe(false)
    expect(resolvedVirtualIdFilter.test('\0virtual:oac')).toBe(true)
    expect(resolvedVirtualIdFilter.test('virtual:oac')).toBe(false)
  })

  test('exports the manifest as plain data, default and named', async () => {
    const module = await importCode(manifestModule(manifestOf(plan, files)))
    expect(module.default).toEqual({
      config: 'prod',
      harnesses: ['opencode', 'claude'],
      nativeTools: true,
      serverName: 'oac-tools',
      agents: [{ name: 'greeter', description: 'Greets.', mode: 'subagent', tools: ['greet'], model: { claude: 'haiku' } }],
      tools: [
        {
          name: 'greet',
          description: TRICKY,
          json: true,
          schemaKind: 'zod',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
          script: 'scripts/greet.mjs',
        },
      ],
      files: ['scripts/greet.mjs', '.mcp.json'],
    })
    const manifest = module.default as Record<string, unknown>
    for (const key of ['config', 'harnesses', 'nativeTools', 'serverName', 'agents', 'tools', 'files']) expect(module[key]).toBe(manifest[key])
  })

  test('keeps every string inside its literal', () => {
    const code = manifestModule(manifestOf(plan, files))
    // The raw separator would end the line inside the literal in older engines; it stays escaped.
    expect(code).not.toContain('\u2028')
    expect(code.split('\n')[0]).toMatch(/^const manifest = \{.*\}$/)
  })

  test('carries no absolute path', () => {
    const code = manifestModule(manifestOf(plan, files))
    expect(code).not.toContain(process.cwd())
    expect(code).not.toContain('"file"')
  })
})
