import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { OacError } from '../diagnostics.js'
import { agentMcpTools, agentTools } from './claude.js'
import { hasNativeForm, nativeToolName } from './codegen/prompt-docs.js'

/**
 * An MCP harness's tool allow-list for one agent: its MCP tools (as `listed` names them in the
 * agent file), the built-ins it asks for, and the harness's shell tool when its prompt documents a
 * tool's script (any format but `json`, or no native form: the rule of the prompt docs).
 */
export function mcpAllowList(
  plan: Plan,
  agent: PlannedAgent,
  harness: Harness,
  shellTool: string,
  listed: (tool: string) => string = (tool) => nativeToolName(plan, harness, tool),
): string[] {
  const builtins = agent.builtinTools[harness] ?? []
  const runsScripts = agentTools(plan, agent).some(
    (tool) => (agent.toolFormats[tool.name] ?? 'both') !== 'json' || !hasNativeForm(plan, tool, harness),
  )
  const tools = [...agentMcpTools(plan, agent, harness).map((tool) => listed(tool.name)), ...builtins]
  if (runsScripts && !builtins.includes(shellTool)) tools.push(shellTool)
  return tools
}

/**
 * An agent's `harness.<id>` fields for a frontmatter, refused (at the agent's definition) where
 * unplugin-oac writes the key itself, or where the harness would refuse the file (`accepted`, for
 * harnesses whose frontmatter schema is closed).
 */
export function checkedFrontmatterExtras(
  agent: PlannedAgent,
  harness: Harness,
  title: string,
  owned: Record<string, string>,
  accepted?: readonly string[],
): { [key: string]: JsonValue } {
  const extra = agent.harness[harness] ?? {}
  const diagnostics = Object.keys(extra).flatMap((key) => {
    const owner = Object.hasOwn(owned, key) ? owned[key] : undefined
    if (owner !== undefined) {
      return [
        {
          severity: 'error' as const,
          code: 'harness-field-reserved',
          message: `Agent "${agent.name}" sets \`harness.${harness}.${key}\`, which unplugin-oac writes itself from ${owner}.`,
          fix: `Remove \`${key}\` from \`harness.${harness}\` and set ${owner} instead.`,
          ...agent.source,
        },
      ]
    }
    if (accepted && !accepted.includes(key)) {
      return [
        {
          severity: 'error' as const,
          code: 'harness-field-unknown',
          message: `Agent "${agent.name}" sets \`harness.${harness}.${key}\`, which ${title} does not accept in an agent file (it would refuse to load the agent).`,
          fix: `Use one of: ${accepted.join(', ')}.`,
          ...agent.source,
        },
      ]
    }
    return []
  })
  if (diagnostics.length > 0) throw new OacError(diagnostics)
  return extra
}
