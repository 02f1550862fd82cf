import { cp, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plan, PlannedTool } from '../../src/compile/plan.js'
import type { OwnedFile } from '../../src/emit/types.js'
import { type Run, run } from '../util/process.js'
import { tempDir } from '../util/temp.js'

/** The fixture project whose tools the bundler tests build (tools/*.ts, lib/format.ts). */
export const fixtureRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'bundle-tools')

function tool(name: string, file: string, line: number, fields: Partial<PlannedTool> & Pick<PlannedTool, 'description' | 'schema'>): PlannedTool {
  return {
    name,
    json: true,
    replacesBuiltin: false,
    schemaKind: 'zod',
    schemaPackage: 'zod',
    source: { file, line, column: 23 },
    script: `scripts/${name}.mjs`,
    ...fields,
  }
}

/** The plan compile would make of the fixture, written by reading tools/*.ts. */
export function fixturePlan(overrides: Partial<Plan> = {}): Plan {
  return {
    config: 'test',
    harnesses: ['opencode', 'claude'],
    nativeTools: true,
    serverName: 'oac-tools',
    bridge: 'process',
    hooks: [],
    env: ['OAC_FIXTURE_TOKEN'],
    agents: [],
    tools: [
      tool('weather', 'tools/weather.ts', 5, {
        description: 'Get a weather forecast for a city.',
        schema: {
          type: 'object',
          properties: {
            city: { type: 'string', description: 'City name to look up' },
            days: { type: 'integer', minimum: 1, maximum: 14, description: 'How many days to forecast' },
            unit: { type: 'string', enum: ['c', 'f'], default: 'c' },
            verbose: { type: 'boolean' },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['city'],
          additionalProperties: false,
        },
      }),
      tool('add_note', 'tools/notes.ts', 5, {
        description: 'Add a note to the board.',
        schemaKind: 'typebox',
        schemaPackage: '@sinclair/typebox',
        schema: {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1, description: 'The note title' },
            priority: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
            labels: { type: 'array', items: { type: 'string' } },
            kind: { anyOf: [{ const: 'todo', type: 'string' }, { const: 'idea', type: 'string' }] },
            ratio: { type: 'number' },
          },
          required: ['title', 'kind'],
        },
      }),
      tool('plan_trip', 'tools/trip.ts', 4, {
        description: 'Plan a trip through several stops.',
        schema: {
          type: 'object',
          properties: {
            traveller: {
              type: 'object',
              properties: { name: { type: 'string' }, age: { type: 'integer' } },
              required: ['name'],
              additionalProperties: false,
            },
            stops: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                properties: { city: { type: 'string' }, nights: { type: 'integer', minimum: 1 } },
                required: ['city', 'nights'],
                additionalProperties: false,
              },
            },
          },
          required: ['traveller', 'stops'],
          additionalProperties: false,
        },
      }),
      tool('explode', 'tools/explode.ts', 8, {
        description: 'Always fails.',
        schema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'], additionalProperties: false },
      }),
      tool('count', 'tools/count.ts', 4, {
        description: 'Counts up, reporting progress, and says which token it saw.',
        json: false,
        schema: { type: 'object', properties: { to: { type: 'integer', minimum: 0 } }, required: ['to'], additionalProperties: false },
      }),
      tool('wait_for_cancel', 'tools/wait.ts', 4, {
        description: 'Waits until the call is cancelled, then fails with the reason.',
        json: false,
        schema: {
          type: 'object',
          properties: { hold: { type: 'boolean', description: 'Keep the process alive while waiting (as real work would)' } },
          required: ['hold'],
          additionalProperties: false,
        },
      }),
    ],
    ...overrides,
  }
}

export { tempDir }

export async function writeTree(files: readonly OwnedFile[], dir: string): Promise<void> {
  for (const file of files) {
    const path = join(dir, ...file.path.split('/'))
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.content)
  }
}

/** Writes the files into a target, then copies that target to a fresh folder (no node_modules above it). */
export async function writeAndMove(files: readonly OwnedFile[]): Promise<string> {
  const target = await tempDir()
  await writeTree(files, target)
  const moved = join(await tempDir(), 'moved-target')
  await cp(target, moved, { recursive: true })
  return moved
}

export type { Run } from '../util/process.js'

/** Runs `node <script> ...args` in `cwd`, feeding `stdin` when given. */
export function runNode(cwd: string, args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env = { ...process.env, ...options.env }
  if (!options.env?.OAC_DEBUG) delete env.OAC_DEBUG
  return run(process.execPath, args, { cwd, env, stdin: options.stdin })
}
