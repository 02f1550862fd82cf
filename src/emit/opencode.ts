import { opencode } from '../compile/harnesses/opencode.js'
import type { Plan, PlannedAgent, PlannedTool } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { agentAllowList } from './allow-list.js'
import { bridgeCode, bridgeImports, generatedHeader, generatedNote, scriptFromShim } from './codegen/bridge.js'
import { jsString, markdownWithFrontmatter } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
import { memoByObject } from './codegen/memo.js'
import { hasNativeForm, renderAgentPrompt } from './codegen/prompt-docs.js'
import { zodShapeCode } from './codegen/zod-code.js'
import type { OutputFile, OwnedFile } from './types.js'

/** opencode or one of its forks: where its tool and agent files go, and the package its tools import. */
export interface OpencodeFamily {
  harness: Extract<Harness, 'opencode' | 'kilo'>
  toolFolder: string
  agentFile: (agent: string) => string
  pluginPackage: string
}

const OPENCODE: OpencodeFamily = { harness: 'opencode', toolFolder: '.opencode/tool', agentFile: opencode.agentFile, pluginPackage: '@opencode-ai/plugin' }

/**
 * opencode: a `.opencode/tool/<tool>.ts` shim per JSON tool (zod arguments on `tool.schema`, the
 * bridge to the tool script) and a `.opencode/agent/<agent>.md` per agent.
 */
export function emitOpencode(plan: Plan): OutputFile[] {
  return emitOpencodeFamily(plan, OPENCODE)
}

export function emitOpencodeFamily(plan: Plan, family: OpencodeFamily): OutputFile[] {
  const tools = plan.tools.filter((tool) => hasNativeForm(plan, tool, family.harness))
  return [...tools.map((tool) => toolFile(plan, tool, family)), ...plan.agents.map((agent) => agentFile(plan, agent, family))]
}

/** The zod shape of a shim's `args`: the same for opencode and Kilo. */
const shimArguments = memoByObject((schema: PlannedTool['schema']) => zodShapeCode(schema, { z: 'z', dialect: 'zod4' }).code)

function toolFile(plan: Plan, tool: PlannedTool, family: OpencodeFamily): OwnedFile {
  const path = `${family.toolFolder}/${tool.name}.ts`
  const args = shimArguments(tool.schema)
  const content = [
    generatedHeader(`tool ${JSON.stringify(tool.name)} (${tool.source.file})`),
    ...bridgeImports(plan),
    `import { tool } from ${jsString(family.pluginPackage)}`,
    '',
    ...(args === '{}' ? [] : ['const z = tool.schema', '']),
    'export default tool({',
    `  description: ${jsString(tool.description)},`,
    `  args: ${indentTail(args)},`,
    '  execute(args, context) {',
    `    return runTool(${jsString(scriptFromShim(path, tool))}, args, {`,
    '      cwd: context.directory,',
    '      signal: context.abort,',
    '      progress: (title) => context.metadata({ title }),',
    '    })',
    '  },',
    '})',
    '',
    bridgeCode(plan),
  ].join('\n')
  return { kind: 'owned', path, content }
}

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The agent's tool permissions: every tool denied first (opencode and Kilo apply the last rule that
 * matches), then the tools of its allow-list allowed, the rule every harness that scopes tools per
 * agent follows: its own native tools, the built-ins it names in `builtinTools`, and `bash` when its
 * prompt documents a tool's script. A wildcard rather than a deny per tool: a tool added to the
 * registry changes no agent file but its own agents'. No map when the harness gets none of our
 * tools (nothing to hide), or when the list is empty, which gives the agent every tool (as an agent
 * file without `tools` does in the other harnesses).
 */
function permissions(plan: Plan, agent: PlannedAgent, harness: OpencodeFamily['harness']): { [key: string]: JsonValue } {
  if (!plan.tools.some((tool) => hasNativeForm(plan, tool, harness))) return {}
  const allowed = agentAllowList(plan, agent, harness, 'bash')
  return allowed.length === 0 ? {} : Object.fromEntries([['*', 'deny'], ...allowed.map((name) => [name, 'allow'])])
}

function agentFile(plan: Plan, agent: PlannedAgent, family: OpencodeFamily): OwnedFile {
  const { permission: extraPermission, ...extras } = agent.harness[family.harness] ?? {}
  // A `permission` map from `harness.opencode` refines ours key by key; any other value replaces it.
  const permission =
    extraPermission === undefined || isRecord(extraPermission) ? { ...permissions(plan, agent, family.harness), ...extraPermission } : extraPermission
  const frontmatter: { [key: string]: JsonValue } = {
    description: agent.description,
    mode: agent.mode,
    ...(agent.model[family.harness] ? { model: agent.model[family.harness]! } : {}),
    // Other fields from `harness.opencode` are written as given, over the generated ones.
    ...extras,
    ...(isRecord(permission) && Object.keys(permission).length === 0 ? {} : { permission }),
  }
  // The note is a YAML comment inside the frontmatter: opencode reads frontmatter only from the first line.
  const note = generatedNote(`agent ${JSON.stringify(agent.name)} (${agent.source.file})`)
  const content = markdownWithFrontmatter(frontmatter, renderAgentPrompt(plan, agent, family.harness)).replace(/^---\n/, `---\n# ${note}\n`)
  return { kind: 'owned', path: family.agentFile(agent.name), content }
}
