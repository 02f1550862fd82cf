import type { Plan, PlannedAgent } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { Harness } from '../define/types.js'
import { hasNativeForm, nativeToolName } from './codegen/prompt-docs.js'
import { agentMcpTools, agentTools } from './mcp-tools.js'

/**
 * A harness's tool allow-list for one agent: its native tools, served by MCP or by a shim (as
 * `listed` names them in the agent file), the built-ins it asks for, and the harness's shell tool
 * when its prompt documents a tool's script (any format but `json`, or no native form: the rule of
 * the prompt docs).
 */
export function agentAllowList(
  plan: Plan,
  agent: PlannedAgent,
  harness: Harness,
  shellTool: string,
  listed: (tool: string) => string = (tool) => nativeToolName(plan, harness, tool),
): string[] {
  const builtins = agent.builtinTools[harness] ?? []
  // Where the target has no bash route (a plugin folder), compile lets in native tools alone.
  const runsScripts = targetOf(plan).bashRoute && agentTools(plan, agent).some(
    (tool) => (agent.toolFormats[tool.name] ?? 'both') !== 'json' || !hasNativeForm(plan, tool, harness),
  )
  const tools = [...agentMcpTools(plan, agent, harness).map((tool) => listed(tool.name)), ...builtins]
  if (runsScripts && !builtins.includes(shellTool)) tools.push(shellTool)
  return tools
}
