import type { AgentDefinition, AnyToolDefinition, Harness, RegistryDefinition, SourceLocation } from '../define/types.js'
import { type ApprovalRules, toolApproval, toolEffects } from './approval.js'
import type { ResolvedConfig } from './config.js'
import type { ZodCopy } from '../load/zod-copy.js'
import type { Findings } from './findings.js'
import { isMcpServer, isTool } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import { builtinCollisions, isBuiltinAnywhere, toolNameProblem } from './names.js'
import type { PlannedTool } from './plan.js'
import { targetOf } from './target.js'
import { type CanonicalSchema, canonicalSchema } from './schema.js'
import { schemaLimitations } from './schema-support.js'
import { plannedSource } from './source.js'

export interface CollectedTools {
  /** Every distinct tool: the registry's in order, then each agent's in order of first appearance. */
  tools: AnyToolDefinition[]
  /** Each agent's tools, resolved to definitions, without repeats. */
  byAgent: Map<AgentDefinition, AnyToolDefinition[]>
}

/**
 * Gathers the tools of the registry and its agents. One definition reached twice is one tool; two
 * different definitions with one name are an error; a name string must match a registry tool.
 */
export function collectTools(registry: RegistryDefinition, agents: readonly AgentDefinition[], findings: Findings): CollectedTools {
  const byName = new Map<string, AnyToolDefinition>()
  const tools: AnyToolDefinition[] = []
  const add = (tool: unknown, origin: string, at: SourceLocation): AnyToolDefinition | undefined => {
    if (!isTool(tool)) {
      findings.error('definition-invalid', `${origin} is not a tool made by defineTool.`, "Create tools with defineTool({ name, description, input, run }) from 'unplugin-oac'.", at)
      return undefined
    }
    const existing = byName.get(tool.name)
    if (existing === tool) return tool
    if (existing) {
      findings.error(
        'tool-duplicate',
        `Two different tools are named "${tool.name}": this one and the one at ${findings.where(existing.source)}.`,
        'Rename one of them, or import and reuse the same definition.',
        tool.source,
      )
      return undefined
    }
    byName.set(tool.name, tool)
    tools.push(tool)
    return tool
  }

  const registryTools = Array.isArray(registry.tools) ? registry.tools : []
  registryTools.forEach((tool, i) => add(tool, `registry.tools[${i}]`, registry.source))
  const registryNames = new Map(registryTools.filter(isTool).map((tool) => [tool.name, tool]))

  const byAgent = new Map<AgentDefinition, AnyToolDefinition[]>()
  for (const agent of agents) {
    const own: AnyToolDefinition[] = []
    const entries: readonly unknown[] = Array.isArray(agent.tools) ? agent.tools : []
    entries.forEach((entry, i) => {
      // A server gives the agent its tools: src/compile/mcp-servers.ts gathers those.
      if (isMcpServer(entry)) return
      let tool: AnyToolDefinition | undefined
      if (typeof entry === 'string') {
        tool = registryNames.get(entry)
        if (!tool) {
          const known = [...registryNames.keys()]
          findings.error(
            'agent-tool-unknown',
            `Agent "${agent.name}" names the tool "${entry}", which the registry's tools do not define.${known.length ? ` Registry tools: ${known.join(', ')}.` : ''}`,
            `Add the tool's definition to defineRegistry({ tools: [...] }), or pass the definition itself in the agent's tools.`,
            agent.source,
          )
        }
      } else {
        tool = add(entry, `Agent "${agent.name}"'s tools[${i}]`, agent.source)
      }
      if (tool && !own.includes(tool)) own.push(tool)
    })
    byAgent.set(agent, own)
  }
  return { tools, byAgent }
}

/**
 * Each input schema's canonical form, kept while the schema object lives: in a watch session an
 * unchanged tool's module does not run again (see KeptModules), so its schema is the very same
 * object, and converting a thousand schemas was most of a rebuild's compile.
 */
const converted = new WeakMap<object, { zod: ZodCopy | undefined; canonical: CanonicalSchema }>()

function convertedSchema(input: unknown, zod: ZodCopy | undefined): CanonicalSchema {
  if (typeof input !== 'object' || input === null) return canonicalSchema(input, zod)
  const known = converted.get(input)
  if (known && known.zod === zod) return known.canonical
  const canonical = canonicalSchema(input, zod)
  converted.set(input, { zod, canonical })
  return canonical
}

/** Why a tool's title cannot be shown as a name (harnesses show it on one line), or undefined when it can. */
function toolTitleProblem(title: unknown): string | undefined {
  if (typeof title !== 'string') return 'is not a string'
  if (title.trim() === '') return 'is empty'
  if (/[\u0000-\u001f\u007f\u2028\u2029]/.test(title)) return 'holds a line break or another control character'
  if (title !== title.trim()) return 'starts or ends with white space'
  return undefined
}

/** Checks one tool and turns it into its planned form (undefined when it cannot be planned). */
export function planTool(tool: AnyToolDefinition, config: ResolvedConfig, rules: ApprovalRules, root: string, findings: Findings, zod?: ZodCopy): PlannedTool | undefined {
  const at = tool.source
  const label = `Tool "${tool.name}"`
  const identity: IdentityRules = {
    noun: 'tool',
    nameProblem: (name) => toolNameProblem(name, config.serverName),
    nameFix: 'Rename the tool to lowercase words joined by "_" or "-", e.g. "search_issues".',
    descriptionFix: 'Describe what the tool does and when to use it: the model reads this to choose the tool.',
  }
  let ok = checkIdentity(tool, identity, at, findings)
  const titleProblem = tool.title === undefined ? undefined : toolTitleProblem(tool.title)
  if (titleProblem) {
    ok = false
    findings.error('tool-title-invalid', `${label}'s title ${titleProblem}.`, 'Give a short name for people on one line, e.g. title: "Weather forecast", or leave title out.', at)
  }

  // Built-ins share a namespace with our tools only where the tool gets a native form.
  const native = config.nativeTools && tool.json
  const collisions = native && typeof tool.name === 'string' && identity.nameProblem(tool.name) === undefined ? builtinCollisions(tool.name, config.harnesses) : []
  const refusing = collisions.filter((id) => harness(id).builtinReplacement === 'rejected')
  if (collisions.length && !tool.replacesBuiltin) {
    ok = false
    findings.error(
      'tool-name-builtin',
      `${label} has the name of a built-in tool of ${collisions.join(', ')}.`,
      refusing.length
        ? `Rename the tool (${refusing.join(', ')} ${refusing.length === 1 ? 'rejects' : 'reject'} custom tools named like ${refusing.length === 1 ? 'its' : 'their'} built-ins, even with replacesBuiltin).`
        : 'Rename the tool, or set replacesBuiltin: true to replace the built-in deliberately.',
      at,
    )
  } else if (refusing.length) {
    ok = false
    findings.error(
      `tool-replaces-builtin-${refusing[0] as Harness}`,
      `${label} sets replacesBuiltin, but ${refusing.join(', ')} ${refusing.length === 1 ? 'rejects' : 'reject'} custom tools named like ${refusing.length === 1 ? 'its' : 'their'} built-ins ("${tool.name}" conflicts with an existing tool).`,
      `Rename the tool, or leave ${refusing.join(', ')} out of the harnesses for this config.`,
      at,
    )
  } else if (tool.replacesBuiltin && !isBuiltinAnywhere(tool.name)) {
    findings.warning('tool-replaces-nothing', `${label} sets replacesBuiltin, but no harness has a built-in tool of that name.`, 'Remove replacesBuiltin.', at)
  }

  const canonical = convertedSchema(tool.input, zod)
  if (!canonical.ok) {
    findings.error(canonical.code, `${label}: ${canonical.message}`, canonical.fix, at)
    return undefined
  }
  if (native) {
    for (const { rule, harness, effect, pointers } of schemaLimitations(canonical.schema, config.harnesses)) {
      findings.add(effect.severity, 'tool-schema-construct', `${label}'s input has ${rule.label} at ${pointers.join(', ')}; for ${harness}, ${effect.effect}.`, rule.fix, at)
    }
  }
  const output = tool.output === undefined ? undefined : canonicalSchema(tool.output, zod, 'output')
  if (output && !output.ok) {
    ok = false
    findings.error(output.code, `${label}: ${output.message}`, output.fix, at)
  } else if (output && output.package !== canonical.package) {
    ok = false
    findings.error(
      'tool-output-package',
      `${label}'s output schema is made with ${output.package}, its input schema with ${canonical.package}; the tool script checks both with one package.`,
      `Write the output schema with ${canonical.package}, as the input is.`,
      at,
    )
  }
  const effects = toolEffects(tool, findings)
  const approval = toolApproval(tool, effects ?? {}, rules)
  if (approval !== undefined && !tool.json && rules[approval].includes(tool.name)) {
    findings.warning(
      'approval-bash-only',
      `${label} is named in the config's approval.${approval}, but it has json: false: it runs through the harness's shell tool, whose own permission settings apply.`,
      `Remove "${tool.name}" from approval.${approval}, or give the tool a native form (leave json out).`,
      at,
    )
  }
  if (!ok) return undefined
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    json: tool.json,
    replacesBuiltin: tool.replacesBuiltin,
    schema: canonical.schema,
    schemaKind: canonical.kind,
    schemaPackage: canonical.package,
    source: plannedSource(root, at),
    script: `${targetOf(config).scriptsFolder}/${tool.name}.mjs`,
    ...(output?.ok && { output: output.schema }),
    ...(effects && { effects }),
    ...(approval && tool.json && { approval }),
  }
}
