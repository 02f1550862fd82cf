import { harness as describe } from '../compile/harnesses/index.js'
import type { AgentMode, Harness, JsonValue } from '../define/types.js'
import { sameText } from './readers/instructions.js'
import type { HarnessRead, ImportedAgent, ImportedCommand, ImportedHook, ImportedMcpServer, ImportedRule, ImportedSkill, NotCarried, ReadLocation } from './types.js'

/** The definitions of a project, each once: what the registry writer writes. */
export interface MergedRegistry {
  agents: MergedAgent[]
  commands: ImportedCommand[]
  skills: ImportedSkill[]
  hooks: ImportedHook[]
  rules: MergedRule[]
  mcpServers: ImportedMcpServer[]
}

/** A rule, and the other files that held the same text (CLAUDE.md and GEMINI.md alike): one rule. */
export interface MergedRule extends ImportedRule {
  also: ReadLocation[]
}

export interface MergedAgent {
  name: string
  description: string
  prompt: string
  mode?: AgentMode
  model: Partial<Record<Harness, string>>
  builtinTools: Partial<Record<Harness, string[]>>
  harness: Partial<Record<Harness, Record<string, JsonValue>>>
  from: ReadLocation[]
}

/** Two harnesses' files that say the same definition differently, and which the import kept. */
export interface Disagreement {
  definition: string
  field: string
  kept: ReadLocation
  others: ReadLocation[]
  keptHarness: Harness
}

export interface Merged {
  registry: MergedRegistry
  notCarried: NotCarried[]
  disagreements: Disagreement[]
}

const where = (at: ReadLocation) => `${at.file}:${at.line}`

/** A message for a disagreement: what differs, where, and which the import picked. */
export function disagreementMessage(d: Disagreement): string {
  return `${d.definition}: its ${d.field} differs between ${[d.kept, ...d.others].map(where).join(' and ')}; the import keeps the one of ${where(d.kept)} (${describe(d.keptHarness).title} comes first in --from).`
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * One definition per name and kind, from the harnesses' reads in the order given (the first wins
 * where two say a field differently, and a disagreement names both). Each harness's own fields
 * (its model, built-ins, `harness` bag) are joined; they never disagree.
 */
export function mergeReads(reads: readonly HarnessRead[]): Merged {
  const disagreements: Disagreement[] = []
  const agents = new Map<string, { agent: MergedAgent; first: ImportedAgent }>()
  const commands = new Map<string, ImportedCommand>()
  const skills = new Map<string, ImportedSkill>()
  const hooks = new Map<string, ImportedHook>()
  const rules = new Map<string, MergedRule>()
  const servers = new Map<string, ImportedMcpServer>()
  const seen = new Set<string>()
  const notCarried: NotCarried[] = []

  const compare = (label: string, first: { from: Harness; at: ReadLocation }, other: { at: ReadLocation }, field: string, a: unknown, b: unknown) => {
    if (a === undefined || b === undefined || same(a, b)) return
    const known = disagreements.find((d) => d.definition === label && d.field === field)
    if (known) known.others.push(other.at)
    else disagreements.push({ definition: label, field, kept: first.at, others: [other.at], keptHarness: first.from })
  }

  for (const read of reads) {
    for (const item of read.notCarried) {
      const key = `${where(item.at)} ${item.what}`
      if (!seen.has(key)) {
        seen.add(key)
        notCarried.push(item)
      }
    }
    for (const definition of read.definitions) {
      if (definition.kind === 'agent') {
        const known = agents.get(definition.name)
        if (!known) {
          agents.set(definition.name, {
            first: definition,
            agent: {
              name: definition.name,
              description: definition.description,
              prompt: definition.prompt,
              ...(definition.mode !== undefined && { mode: definition.mode }),
              model: { ...definition.model },
              builtinTools: { ...definition.builtinTools },
              harness: { ...definition.harness },
              from: [definition.at],
            },
          })
          continue
        }
        const label = `agent "${definition.name}"`
        compare(label, known.first, definition, 'description', known.agent.description, definition.description)
        compare(label, known.first, definition, 'prompt', known.agent.prompt, definition.prompt)
        if (known.agent.mode === undefined && definition.mode !== undefined) known.agent.mode = definition.mode
        else compare(label, known.first, definition, 'mode', known.agent.mode, definition.mode)
        // The same harness's file read twice (a skill folder two harnesses read) says the same; else each harness adds its own.
        Object.assign(known.agent.model, { ...definition.model, ...known.agent.model })
        Object.assign(known.agent.builtinTools, { ...definition.builtinTools, ...known.agent.builtinTools })
        Object.assign(known.agent.harness, { ...definition.harness, ...known.agent.harness })
        known.agent.from.push(definition.at)
      } else if (definition.kind === 'command') {
        const known = commands.get(definition.name)
        if (!known) {
          commands.set(definition.name, { ...definition })
          continue
        }
        const label = `command "${definition.name}"`
        compare(label, known, definition, 'description', known.description, definition.description)
        compare(label, known, definition, 'prompt', known.prompt, definition.prompt)
        compare(label, known, definition, 'argument hint', known.argumentHint, definition.argumentHint)
        compare(label, known, definition, 'agent', known.agent, definition.agent)
        if (known.description === undefined && definition.description !== undefined) known.description = definition.description
        if (known.argumentHint === undefined && definition.argumentHint !== undefined) known.argumentHint = definition.argumentHint
        if (known.agent === undefined && definition.agent !== undefined) known.agent = definition.agent
        // Each harness's model and own keys are its own; the same harness's file read twice says the same.
        if (definition.model) known.model = { ...definition.model, ...known.model }
        if (definition.harness) known.harness = { ...definition.harness, ...known.harness }
      } else if (definition.kind === 'skill') {
        const known = skills.get(definition.name)
        if (!known) {
          skills.set(definition.name, { ...definition })
          continue
        }
        const label = `skill "${definition.name}"`
        compare(label, known, definition, 'description', known.description, definition.description)
        compare(label, known, definition, 'instructions', known.instructions, definition.instructions)
        compare(label, known, definition, 'files', known.files, definition.files)
        compare(label, known, definition, 'model invocation', known.modelInvocation, definition.modelInvocation)
        for (const field of ['license', 'compatibility', 'metadata', 'allowedTools'] as const) {
          compare(label, known, definition, field, known[field], definition[field])
          if (known[field] === undefined && definition[field] !== undefined) Object.assign(known, { [field]: definition[field] })
        }
        // Each harness's own keys are its own; the same harness's folder read twice says the same.
        if (definition.harness) known.harness = { ...definition.harness, ...known.harness }
      } else if (definition.kind === 'rule') {
        // The same text for the same files, in two files (CLAUDE.md and GEMINI.md), is one rule, whatever their names.
        const twin = [...rules.values()].find((rule) => sameText(rule.text) === sameText(definition.text) && same(rule.paths, definition.paths))
        if (twin) {
          if (twin.at.file !== definition.at.file && !twin.also.some((at) => at.file === definition.at.file)) twin.also.push(definition.at)
          continue
        }
        const known = rules.get(definition.name)
        if (!known) {
          rules.set(definition.name, { ...definition, also: [] })
          continue
        }
        const label = `rule "${definition.name}"`
        compare(label, known, definition, 'text', sameText(known.text), sameText(definition.text))
        compare(label, known, definition, 'paths', known.paths ?? 'always on', definition.paths ?? 'always on')
      } else if (definition.kind === 'mcp-server') {
        const known = servers.get(definition.name)
        if (!known) {
          servers.set(definition.name, definition)
          continue
        }
        const label = `MCP server "${definition.name}"`
        for (const field of ['command', 'args', 'env', 'url', 'bearerToken', 'headers'] as const) compare(label, known, definition, field, known[field], definition[field])
      } else {
        // The same command on the same event and tools, in Claude Code's settings and Codex's hooks.json, is one hook.
        const key = JSON.stringify([definition.on, definition.command, definition.matcher ?? null])
        if (!hooks.has(key)) hooks.set(key, definition)
      }
    }
  }
  return {
    registry: {
      agents: [...agents.values()].map(({ agent }) => agent).sort(byName),
      commands: [...commands.values()].sort(byName),
      skills: [...skills.values()].sort(byName),
      hooks: [...hooks.values()].sort(byName),
      rules: [...rules.values()].sort(byName),
      mcpServers: [...servers.values()].sort(byName),
    },
    notCarried,
    disagreements,
  }
}
