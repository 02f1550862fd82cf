import { opencode } from '../compile/harnesses/opencode.js'
import type { Plan, PlannedAgent, PlannedTool } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { Harness, JsonValue } from '../define/types.js'
import { agentAllowList } from './allow-list.js'
import { agentServers, carriedServers, serverRules } from './mcp-scope.js'
import { bridgeCode, bridgeImports, generatedHeader, generatedNote } from './codegen/bridge.js'
import { jsString, markdownWithFrontmatter } from './codegen/escape.js'
import { bridgeName, bridgesMcpServers } from './codegen/mcp-bridge.js'
import { indentTail } from './codegen/js-literal.js'
import { memoByObject } from './codegen/memo.js'
import { hasNativeForm, renderAgentPrompt } from './codegen/prompt-docs.js'
import { zodShapeCode } from './codegen/zod-code.js'
import { opencodeBridgePlugin } from './opencode-mcp-bridge.js'
import type { OutputFile, OwnedFile } from './types.js'

/** opencode or one of its forks: where its tool and agent files go, the package its tools import, and its config file. */
export interface OpencodeFamily {
  harness: Extract<Harness, 'opencode' | 'kilo'>
  toolFolder: string
  agentFile: (agent: string) => string
  pluginPackage: string
  /** The project config file in the harness's own folder, which every agent's permissions come from. */
  configFile: string
  /** The project folder it loads plugins from (our MCP bridge plugin goes there). */
  pluginFolder: string
}

const OPENCODE: OpencodeFamily = {
  harness: 'opencode',
  toolFolder: '.opencode/tool',
  agentFile: opencode.agentFile,
  pluginPackage: '@opencode-ai/plugin',
  configFile: '.opencode/opencode.json',
  pluginFolder: '.opencode/plugins',
}

/**
 * opencode: a `.opencode/tool/<tool>.ts` shim per JSON tool (zod arguments on `tool.schema`, the
 * bridge to the tool script) and a `.opencode/agent/<agent>.md` per agent; with approval rules, their
 * `allow` and `ask` merged into `.opencode/opencode.json`'s `permission` too, for opencode's own agents.
 */
export function emitOpencode(plan: Plan): OutputFile[] {
  return emitOpencodeFamily(plan, OPENCODE)
}

export function emitOpencodeFamily(plan: Plan, family: OpencodeFamily): OutputFile[] {
  const tools = plan.tools.filter((tool) => hasNativeForm(plan, tool, family.harness))
  const files: OutputFile[] = [...tools.map((tool) => toolFile(plan, tool, family)), ...plan.agents.map((agent) => agentFile(plan, agent, tools, family))]
  const decided = [...tools.filter((tool) => tool.approval !== undefined).map((tool) => ({ name: tool.name, approval: tool.approval! })), ...serverRules(plan, family.harness)]
  if (decided.length > 0) {
    files.push({ kind: 'merge', path: family.configFile, format: 'json', entries: decided.map(({ name, approval }) => ({ keyPath: ['permission', name], value: approval })) })
  }
  if (bridgesMcpServers(plan, family.harness)) {
    const path = `${family.pluginFolder}/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: opencodeBridgePlugin(plan, family, tools, path) })
  }
  return files
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
    ...opencodeExecute(tool, targetOf(plan).scriptFrom(path, tool.script)),
    '})',
    '',
    OPENCODE_RESULT_CODE,
    bridgeCode(plan),
  ].join('\n')
  return { kind: 'owned', path, content }
}

/**
 * The `execute` method of an opencode (or Kilo) tool that runs `tool` through the bridge, its script
 * at `script` relative to the file (two spaces in, one line each): the shim's, and the plugin module's
 * (src/emit/plugin/opencode.ts).
 */
export function opencodeExecute(tool: PlannedTool, script: string): string[] {
  return [
    '  async execute(args, context) {',
    // Tools ask under their own name: the agent's `permission` for it decides (allow, ask or deny).
    `    await context.ask({ permission: ${jsString(tool.name)}, patterns: ["*"], always: ["*"], metadata: {} })`,
    // A call's title is what opencode shows for it (the tool's name when the result gives none); progress replaces it while it runs.
    ...(tool.title === undefined ? [] : [`    context.metadata({ title: ${jsString(tool.title)} })`]),
    `    const outcome = await runTool(${jsString(script)}, args, {`,
    '      cwd: context.directory,',
    '      signal: context.abort,',
    '      progress: (title) => context.metadata({ title }),',
    '    })',
    tool.title === undefined ? '    return toolResult(outcome)' : `    return { ...toolResult(outcome), title: ${jsString(tool.title)} }`,
    '  },',
  ]
}

/** How the shim (and the plugin module) hands opencode or Kilo a call's outcome: `toolResult(outcome)`. */
export const OPENCODE_RESULT_CODE = `/** The outcome as opencode takes a result: the text, images as attachments, details as metadata; a failed call throws its message. */
function toolResult(outcome: ToolOutcome) {
  if (!outcome.ok) throw new Error(outcome.message)
  return {
    output: outcome.text,
    metadata: outcome.details === undefined ? {} : { details: outcome.details },
    attachments: (outcome.images ?? []).map((image, i) => ({
      type: "file" as const,
      mime: image.mimeType,
      url: \`data:\${image.mimeType};base64,\${image.data}\`,
      filename: \`image-\${i + 1}\`,
    })),
  }
}
`

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The agent's tool permissions: every tool denied first (opencode and Kilo apply the last rule that
 * matches), then the tools of its allow-list allowed, the rule every harness that scopes tools per
 * agent follows: its own native tools (`ask` where the config's approval rules say so), the
 * built-ins it names in `builtinTools`, `bash` when its prompt documents a tool's script, and its MCP
 * servers' tools (`<server>_*`, then the approval rules' single tools). A wildcard rather than a deny
 * per tool: a tool added to the registry changes no agent file but its own agents'. An agent that
 * names no tool is given every tool (as an agent file without `tools` is in the other harnesses); one
 * whose tools this harness does not carry, every tool but the servers it was not given.
 */
function permissions(plan: Plan, agent: PlannedAgent, tools: readonly PlannedTool[], harness: OpencodeFamily['harness']): { [key: string]: JsonValue } {
  const servers = agentServers(plan, agent, harness)
  if (tools.length === 0 && servers.givenServers.length + servers.hiddenServers.length === 0) return {}
  const allowed = agentAllowList(plan, agent, harness, 'bash')
  if (allowed.length + servers.givenServers.length === 0) return Object.fromEntries(servers.hiddenServers.map((name) => [name, 'deny']))
  const asks = askingTools(tools)
  const rules = serverRules(plan, harness, carriedServers(plan, harness).filter((server) => agent.mcpServers?.includes(server.name)))
  return Object.fromEntries([
    ['*', 'deny'],
    ...allowed.map((name) => [name, asks.has(name) ? 'ask' : 'allow']),
    ...servers.givenServers.map((name) => [name, 'allow']),
    ...rules.map(({ name, approval }) => [name, approval]),
  ])
}

/** The names of the native tools the approval rules make ask: an opencode tool's id is its name. */
const askingTools = memoByObject((tools: readonly PlannedTool[]) => new Set(tools.filter((tool) => tool.approval === 'ask').map((tool) => tool.name)))

function agentFile(plan: Plan, agent: PlannedAgent, tools: readonly PlannedTool[], family: OpencodeFamily): OwnedFile {
  const { frontmatter, prompt } = opencodeAgent(plan, agent, tools, family.harness)
  // The note is a YAML comment inside the frontmatter: opencode reads frontmatter only from the first line.
  const note = generatedNote(`agent ${JSON.stringify(agent.name)} (${agent.source.file})`)
  const content = markdownWithFrontmatter(frontmatter, prompt).replace(/^---\n/, `---\n# ${note}\n`)
  return { kind: 'owned', path: family.agentFile(agent.name), content }
}

/**
 * An agent as opencode (or Kilo) reads one: the fields of its agent file's frontmatter, and its prompt.
 * `tools` are the plan's tools with a native form there. The agent file's, and the plugin module's
 * agent config (src/emit/plugin/opencode.ts).
 */
export function opencodeAgent(plan: Plan, agent: PlannedAgent, tools: readonly PlannedTool[], harness: OpencodeFamily['harness']): { frontmatter: { [key: string]: JsonValue }; prompt: string } {
  const { permission: extraPermission, ...extras } = agent.harness[harness] ?? {}
  // A `permission` map from `harness.opencode` refines ours key by key; any other value replaces it.
  const permission =
    extraPermission === undefined || isRecord(extraPermission) ? { ...permissions(plan, agent, tools, harness), ...extraPermission } : extraPermission
  const frontmatter: { [key: string]: JsonValue } = {
    description: agent.description,
    mode: agent.mode,
    ...(agent.model[harness] ? { model: agent.model[harness]! } : {}),
    // Other fields from `harness.opencode` are written as given, over the generated ones.
    ...extras,
    ...(isRecord(permission) && Object.keys(permission).length === 0 ? {} : { permission }),
  }
  return { frontmatter, prompt: renderAgentPrompt(plan, agent, harness) }
}
