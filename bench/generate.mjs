// Deterministic generators of large registries for the benchmarks.
//
// `generateProject({ tools, agents })` writes bench/.tmp/tools-<N>/: one module per tool under
// agents/tools/ (zod or TypeBox input, a few fields, some nested, a small `run`), an
// agents/registry.ts that defines the agents (about ten tools each) and the registry, and a
// manifest.json with every tool's name, file and a valid sample input (for the MCP and bridge
// benchmarks). The same options give the same bytes on every run: a seeded PRNG picks everything,
// and files are written only when their content differs, so mtimes stay put between runs.
//
// Run directly to (re)generate both bench projects: `node bench/generate.mjs`.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
export const benchTmp = join(repoRoot, 'bench', '.tmp')

/** mulberry32: a tiny seeded PRNG, enough for reproducible choices. */
function prng(seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  }
}

const VERBS = ['fetch', 'list', 'find', 'sync', 'check', 'render', 'resolve', 'score', 'merge', 'index', 'audit', 'plan']
const NOUNS = ['invoice', 'ticket', 'build', 'release', 'metric', 'user', 'report', 'schedule', 'asset', 'alert', 'order', 'branch']
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'north', 'south', 'amber', 'cobalt', 'ivory', 'slate', 'maple', 'cedar']

const camel = (name) => name.replace(/[_-]([a-z0-9])/g, (_, c) => c.toUpperCase())
const pad = (n, width) => String(n).padStart(width, '0')

/**
 * One input field: its zod and TypeBox source, whether it is required, and a valid sample value.
 * `depth` > 0 allows a nested object field.
 */
function makeField(rng, name, depth) {
  const description = `The ${name.replace(/_/g, ' ')} to use`
  const kind = rng.pick(depth > 0 ? ['string', 'int', 'enum', 'bool', 'list', 'object', 'object'] : ['string', 'int', 'enum', 'bool', 'list'])
  const optional = kind !== 'object' && rng.chance(0.3)
  let zod
  let typebox
  let sample
  switch (kind) {
    case 'string':
      zod = `z.string().min(1).describe(${JSON.stringify(description)})`
      typebox = `Type.String({ minLength: 1, description: ${JSON.stringify(description)} })`
      sample = rng.pick(WORDS)
      break
    case 'int': {
      const max = rng.int(10, 1000)
      zod = `z.number().int().min(0).max(${max}).describe(${JSON.stringify(description)})`
      typebox = `Type.Integer({ minimum: 0, maximum: ${max}, description: ${JSON.stringify(description)} })`
      sample = rng.int(0, max)
      break
    }
    case 'enum': {
      const values = [...new Set([rng.pick(WORDS), rng.pick(WORDS), rng.pick(WORDS)])]
      zod = `z.enum(${JSON.stringify(values)}).describe(${JSON.stringify(description)})`
      // A string enum, as the playground writes it (a union of literals draws a Gemini warning for pi).
      typebox = `Type.String({ enum: ${JSON.stringify(values)}, description: ${JSON.stringify(description)} })`
      sample = values[0]
      break
    }
    case 'bool':
      zod = `z.boolean().describe(${JSON.stringify(description)})`
      typebox = `Type.Boolean({ description: ${JSON.stringify(description)} })`
      sample = rng.chance(0.5)
      break
    case 'list':
      zod = `z.array(z.string()).max(20).describe(${JSON.stringify(description)})`
      typebox = `Type.Array(Type.String(), { maxItems: 20, description: ${JSON.stringify(description)} })`
      sample = [rng.pick(WORDS), rng.pick(WORDS)]
      break
    case 'object': {
      const inner = [makeField(rng, `${name}_${rng.pick(NOUNS)}`, 0), makeField(rng, `${name}_${rng.pick(WORDS)}`, 0)]
      // Distinct inner names: the second gets a suffix when the picks collide.
      if (inner[0].name === inner[1].name) inner[1] = { ...inner[1], name: `${inner[1].name}_2` }
      zod = `z.object({ ${inner.map((f) => `${f.name}: ${f.optional ? `${f.zod}.optional()` : f.zod}`).join(', ')} }).describe(${JSON.stringify(description)})`
      typebox = `Type.Object({ ${inner.map((f) => `${f.name}: ${f.optional ? `Type.Optional(${f.typebox})` : f.typebox}`).join(', ')} }, { description: ${JSON.stringify(description)} })`
      sample = Object.fromEntries(inner.map((f) => [f.name, f.sample]))
      break
    }
  }
  return { name, kind, optional, zod, typebox, sample }
}

/** The revision marker in a tool's `run` body; the incremental bench edits it. */
export const revisionMarker = (tool, revision) => `${tool}@rev${revision}`

function toolModule(tool) {
  const schema =
    tool.schemaKind === 'zod'
      ? `z.object({\n${tool.fields.map((f) => `    ${f.name}: ${f.optional ? `${f.zod}.optional()` : f.zod},`).join('\n')}\n  })`
      : `Type.Object({\n${tool.fields.map((f) => `    ${f.name}: ${f.optional ? `Type.Optional(${f.typebox})` : f.typebox},`).join('\n')}\n  })`
  const imports =
    tool.schemaKind === 'zod'
      ? `import { defineTool } from 'unplugin-oac'\nimport { z } from 'zod'\n`
      : `import { Type } from '@sinclair/typebox'\nimport { defineTool } from 'unplugin-oac'\n`
  const first = tool.fields[0].name
  return `${imports}
export const ${camel(tool.name)} = defineTool({
  name: ${JSON.stringify(tool.name)},
  description: ${JSON.stringify(tool.description)},
  input: ${schema},
  run(input) {
    const revision = ${JSON.stringify(revisionMarker(tool.name, 0))}
    const keys = Object.keys(input).sort()
    let checksum = ${tool.salt}
    for (const key of keys) checksum = (checksum * 31 + JSON.stringify(input[key] ?? null).length) % 100003
    return ${tool.returnsText ? '`${revision}: ${keys.length} fields, checksum ${checksum}, first ${JSON.stringify(input.' + first + ' ?? null)}`' : '{ revision, fields: keys, checksum }'}
  },
})
`
}

/** A guard hook, as teams write one: it watches the shell and one of the tools, and blocks `rm -rf`. */
function hookModule(tool) {
  return `import { defineHook } from 'unplugin-oac'
import { ${camel(tool.name)} } from './tools/${tool.name}.ts'

export const guard = defineHook({
  name: 'guard',
  description: 'Refuses rm -rf, and ${tool.name} with no fields.',
  on: 'beforeTool',
  tools: [${camel(tool.name)}, 'shell'],
  run(event, ctx) {
    if (event.tool === 'shell' && /rm\\s+-rf/.test(String(event.input.command))) return ctx.block('no rm -rf')
    if (event.tool === ${JSON.stringify(tool.name)} && Object.keys(event.input).length === 0) return ctx.block('give it fields')
    return undefined
  },
})
`
}

function registryModule(tools, agents) {
  const imports = tools.map((t) => `import { ${camel(t.name)} } from './tools/${t.name}.ts'`).join('\n')
  const agentDefs = agents
    .map(
      (a) => `const ${camel(a.name)} = defineAgent({
  name: ${JSON.stringify(a.name)},
  description: ${JSON.stringify(a.description)},
  prompt: ${JSON.stringify(a.prompt)},
  tools: [${a.tools.map(camel).join(', ')}],
  mode: ${JSON.stringify(a.mode)},
  toolFormat: ${JSON.stringify(a.toolFormat)},
})`,
    )
    .join('\n\n')
  return `import { defineAgent, defineRegistry } from 'unplugin-oac'
import { guard } from './hooks.ts'
${imports}

${agentDefs}

export const registry = defineRegistry({
  agents: [${agents.map((a) => camel(a.name)).join(', ')}],
  tools: [${tools.map((t) => camel(t.name)).join(', ')}],
  hooks: [guard],
  configs: {
    bench: { harnesses: ['opencode', 'claude', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo'], nativeTools: true },
  },
})
`
}

/** The registry as data: tools, agents and their sources, all from `seed`. */
export function describeRegistry({ tools: toolCount, agents: agentCount, seed = 7 }) {
  const rng = prng(seed * 1_000_003 + toolCount * 31 + agentCount)
  const width = String(toolCount - 1).length
  const tools = []
  for (let i = 0; i < toolCount; i++) {
    const name = `${rng.pick(VERBS)}_${rng.pick(NOUNS)}_${pad(i, width)}`
    const fieldCount = rng.int(2, 5)
    const fields = []
    for (let f = 0; f < fieldCount; f++) {
      const field = makeField(rng, `${rng.pick(WORDS)}_${f}`, 1)
      fields.push(field)
    }
    const sample = Object.fromEntries(fields.map((f) => [f.name, f.sample]))
    tools.push({
      name,
      description: `${name.split('_')[0][0].toUpperCase()}${name.split('_')[0].slice(1)} the ${name.split('_')[1]} records of the ${rng.pick(WORDS)} project.`,
      schemaKind: rng.chance(0.6) ? 'zod' : 'typebox',
      fields,
      sample,
      salt: rng.int(1, 9999),
      returnsText: rng.chance(0.5),
    })
  }
  // Every tool belongs to at least one agent: agent i takes a contiguous slice, then extra random picks up to ~10.
  const slice = Math.max(1, Math.ceil(toolCount / agentCount))
  const agents = []
  for (let i = 0; i < agentCount; i++) {
    const names = new Set()
    for (let j = 0; j < slice; j++) names.add(tools[(i * slice + j) % toolCount].name)
    const wanted = Math.min(toolCount, rng.int(9, 12))
    while (names.size < wanted) names.add(rng.pick(tools).name)
    const name = `agent-${pad(i, String(agentCount - 1).length)}`
    agents.push({
      name,
      description: `Handles ${rng.pick(NOUNS)} and ${rng.pick(NOUNS)} work for the ${rng.pick(WORDS)} team. Use when asked about them.`,
      prompt: `You are ${name}. Work carefully, explain what you did, and use your tools rather than guessing.\nPrefer the smallest change that solves the task.`,
      tools: [...names],
      mode: i % 10 === 0 ? 'primary' : 'subagent',
      toolFormat: rng.pick(['both', 'both', 'json', 'bash']),
    })
  }
  return { tools, agents }
}

function writeIfChanged(path, content) {
  if (existsSync(path) && readFileSync(path, 'utf8') === content) return false
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  return true
}

/**
 * Writes the project for `{ tools, agents }` and returns its description:
 * `{ dir, registry, tools: [{ name, file, sample }], agents: [{ name, tools }] }`.
 */
export function generateProject({ tools: toolCount, agents: agentCount, seed = 7 }) {
  const dir = join(benchTmp, `tools-${toolCount}`)
  const { tools, agents } = describeRegistry({ tools: toolCount, agents: agentCount, seed })
  const toolsDir = join(dir, 'agents', 'tools')
  mkdirSync(toolsDir, { recursive: true })
  const wanted = new Set(tools.map((t) => `${t.name}.ts`))
  for (const stale of readdirSync(toolsDir)) if (!wanted.has(stale)) rmSync(join(toolsDir, stale))
  for (const tool of tools) writeIfChanged(join(toolsDir, `${tool.name}.ts`), toolModule(tool))
  writeIfChanged(join(dir, 'agents', 'registry.ts'), registryModule(tools, agents))
  writeIfChanged(join(dir, 'agents', 'hooks.ts'), hookModule(tools[0]))
  writeIfChanged(join(dir, 'package.json'), `${JSON.stringify({ name: `oac-bench-tools-${toolCount}`, private: true, type: 'module' }, null, 2)}\n`)
  // The generated tools import zod and TypeBox by name: resolve them from the repository's node_modules.
  const link = join(dir, 'node_modules')
  if (!existsSync(link) && !isSymlink(link)) symlinkSync(relative(dir, join(repoRoot, 'node_modules')), link, 'dir')
  const manifest = {
    registry: 'agents/registry.ts:registry',
    config: 'bench',
    tools: tools.map((t) => ({ name: t.name, file: `agents/tools/${t.name}.ts`, schemaKind: t.schemaKind, sample: t.sample })),
    agents: agents.map((a) => ({ name: a.name, tools: a.tools })),
  }
  writeIfChanged(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  return { dir, ...manifest }
}

function isSymlink(path) {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const tools of [100, 1000]) {
    const project = generateProject({ tools, agents: 100 })
    console.log(`${relative(repoRoot, project.dir)}: ${project.tools.length} tools, ${project.agents.length} agents`)
  }
}
