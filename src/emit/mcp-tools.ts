/* What the emitters of MCP harnesses share: which tools the server gives each agent. */
import type { Plan, PlannedAgent, PlannedTool } from '../compile/plan.js'
import type { Harness } from '../define/types.js'
import { hasNativeForm } from './codegen/prompt-docs.js'

/** True when the plan serves tools over MCP to this harness (the bundler then writes the server script). */
export function servesMcp(plan: Plan, harness: Harness): boolean {
  return plan.tools.some((tool) => hasNativeForm(plan, tool, harness))
}

/**
 * The agent's tools it calls through the MCP server: those with a native form whose documented
 * format is not bash-only (a `bash` agent is told to run the script, so it gets no MCP tool).
 */
export function agentMcpTools(plan: Plan, agent: PlannedAgent, harness: Harness): PlannedTool[] {
  return agentTools(plan, agent).filter((tool) => hasNativeForm(plan, tool, harness) && agent.toolFormats[tool.name] !== 'bash')
}

/** The agent's tools, in its order. */
export function agentTools(plan: Plan, agent: PlannedAgent): PlannedTool[] {
  return agent.tools.map((name) => plan.tools.find((tool) => tool.name === name)).filter((tool): tool is PlannedTool => tool !== undefined)
}
