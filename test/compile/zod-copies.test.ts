import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type as Type1 } from 'typebox'
import { Type } from '@sinclair/typebox'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { z as zOldest } from 'zod-oldest'
import * as oldestCore from 'zod-oldest/v4/core'
import { compilePlan } from '../../src/compile/index.js'
import { canonicalSchema } from '../../src/compile/schema.js'
import { loadRegistry } from '../../src/load/index.js'
import type { ZodCopy } from '../../src/load/zod-copy.js'
import { repoRoot } from '../util/project.js'

/** A schema with what a second copy of zod used to lose: descriptions, a default, an enum, a nested object. */
// Typed as the newest zod: the two copies' types differ in detail, the calls used here do not.
function weatherInput(zod: typeof z) {
  return zod.object({
    city: zod.string().describe('City name to look up'),
    days: zod.number().int().min(1).default(3).describe('How many days'),
    unit: zod.enum(['c', 'f']).describe('Temperature unit'),
    where: zod.object({ region: zod.string().describe('Region code') }).optional(),
  })
}

const EXPECTED = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name to look up' },
    days: { type: 'integer', minimum: 1, default: 3, description: 'How many days' },
    unit: { type: 'string', enum: ['c', 'f'], description: 'Temperature unit' },
    where: { type: 'object', properties: { region: { type: 'string', description: 'Region code' } }, required: ['region'] },
  },
  required: ['city', 'unit'],
}

const oldestCopy: ZodCopy = { version: oldestCore.version, location: 'zod-oldest', toJSONSchema: oldestCore.toJSONSchema as ZodCopy['toJSONSchema'] }

describe('canonicalSchema reads each zod schema with the copy that made it', () => {
  it('the newest zod: the schema converts itself (its own toJSONSchema), whatever copy compile would import', () => {
    expect(canonicalSchema(weatherInput(z))).toEqual({ ok: true, kind: 'zod', package: 'zod', schema: EXPECTED })
  })

  it('the oldest zod 4 minor (no toJSONSchema of its own): converted by the project copy of its version', () => {
    expect(typeof (weatherInput(zOldest as unknown as typeof z) as { toJSONSchema?: unknown }).toJSONSchema).toBe('undefined')
    expect(canonicalSchema(weatherInput(zOldest as unknown as typeof z), oldestCopy)).toEqual({ ok: true, kind: 'zod', package: 'zod', schema: EXPECTED })
  })

  it('fails, naming both versions, rather than drop the descriptions when the project copy is another one', () => {
    const newestCore = { version: { major: 4, minor: 6, patch: 7 }, location: '/app/node_modules/zod/v4/core/index.js', toJSONSchema: z.toJSONSchema as ZodCopy['toJSONSchema'] }
    const result = canonicalSchema(weatherInput(zOldest as unknown as typeof z), newestCore)
    expect(result).toMatchObject({ ok: false, code: 'tool-schema-zod-copy' })
    expect(!result.ok && result.message).toContain('zod 4.0.0')
    expect(!result.ok && result.message).toContain('4.6.7 (/app/node_modules/zod/v4/core/index.js)')
    expect(!result.ok && result.fix).toContain('npm ls zod')
    expect(canonicalSchema(weatherInput(zOldest as unknown as typeof z))).toMatchObject({ ok: false, code: 'tool-schema-zod-copy' })
  })

  it("leaves out .int()'s safe-integer bounds, and only those", () => {
    const result = canonicalSchema(z.object({ n: z.number().int(), m: z.number().int().max(10), k: z.number().max(Number.MAX_SAFE_INTEGER - 1) }))
    expect(result.ok && result.schema.properties).toEqual({ n: { type: 'integer' }, m: { type: 'integer', maximum: 10 }, k: { type: 'number', maximum: Number.MAX_SAFE_INTEGER - 1 } })
  })
})

describe('canonicalSchema with TypeBox 1.x (typebox) and 0.34 (@sinclair/typebox)', () => {
  const shape = <T extends typeof Type | typeof Type1>(T: T) =>
    (T as typeof Type1).Object({
      title: (T as typeof Type1).String({ description: 'The title' }),
      priority: (T as typeof Type1).Integer({ default: 3 }),
      tags: (T as typeof Type1).Optional((T as typeof Type1).Array((T as typeof Type1).String())),
      owner: (T as typeof Type1).Object({ name: (T as typeof Type1).String(), team: (T as typeof Type1).String({ default: 'core' }) }),
    })

  it('accepts both, telling their packages apart, and makes a field with a default optional (the script fills it in)', () => {
    for (const [Builder, pkg] of [[Type1, 'typebox'], [Type, '@sinclair/typebox']] as const) {
      const result = canonicalSchema(shape(Builder))
      expect(result).toMatchObject({ ok: true, kind: 'typebox', package: pkg })
      if (!result.ok) continue
      expect(result.schema.required, pkg).toEqual(['title', 'owner'])
      expect(result.schema.properties, pkg).toMatchObject({ priority: { type: 'integer', default: 3 }, owner: { required: ['name'] } })
    }
  })

  it('reports TypeBox 1.x types JSON cannot hold', () => {
    expect(canonicalSchema(Type1.Object({ n: Type1.BigInt() }))).toMatchObject({ ok: false, code: 'tool-schema-unrepresentable' })
  })
})

describe('loading a registry: the project copy of zod is the one its registry imported', () => {
  const made: string[] = []
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
  })

  /** A project whose `zod` is the repo's `zod-oldest` (zod 4.0), so schemas cannot convert themselves. */
  async function projectWith(zodFolder: string, registry: string): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'oac-zod-copy-'))
    made.push(root)
    await mkdir(join(root, 'node_modules'))
    await symlink(join(repoRoot, 'node_modules', zodFolder), join(root, 'node_modules', 'zod'), 'dir')
    await writeFile(join(root, 'registry.ts'), registry)
    return root
  }

  const REGISTRY = `import { z } from 'zod'
import { defineAgent, defineRegistry, defineTool } from 'unplugin-oac'
export const forecast = defineTool({
  name: 'forecast',
  description: 'Get a forecast.',
  input: z.object({ city: z.string().describe('City name to look up'), unit: z.enum(['c', 'f']).default('c').describe('Unit') }),
  run: ({ city }) => city,
})
export const registry = defineRegistry({ agents: [defineAgent({ name: 'planner', description: 'Plans.', prompt: 'Plan.', tools: [forecast] })] })
`

  it('keeps the descriptions of a zod 4.0 schema', async () => {
    const root = await projectWith('zod-oldest', REGISTRY)
    const loaded = await loadRegistry('registry.ts:registry', root)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.zod?.version).toEqual({ major: 4, minor: 0, patch: 0 })
    const { plan, diagnostics } = compilePlan(loaded, { root })
    expect(diagnostics).toEqual([])
    expect(plan!.tools[0]!.schema.properties).toEqual({
      city: { type: 'string', description: 'City name to look up' },
      unit: { type: 'string', enum: ['c', 'f'], default: 'c', description: 'Unit' },
    })
  })

  it('fails with the two versions when a tool brings its own older zod', async () => {
    const root = await projectWith('zod', REGISTRY.replace("from 'zod'", "from 'zod-oldest'"))
    await symlink(join(repoRoot, 'node_modules', 'zod-oldest'), join(root, 'node_modules', 'zod-oldest'), 'dir')
    const loaded = await loadRegistry('registry.ts:registry', root)
    const { diagnostics } = compilePlan(loaded, { root })
    expect(diagnostics).toMatchObject([{ severity: 'error', code: 'tool-schema-zod-copy', file: 'registry.ts', line: 3 }])
    expect(diagnostics[0]!.message).toContain('made with zod 4.0.0, but the project\'s zod is 4.6.7')
  })
})
