import { harness } from '../compile/harnesses/index.js'
import { mcpServerBridged, mcpServerCarried, mcpServerLeftOut } from '../compile/mcp-servers.js'
import type { Plan, PlannedAgent, PlannedMcpServer, ToolApproval } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { Harness, JsonValue } from '../define/types.js'
import { hasNativeForm, nativeToolName } from './codegen/prompt-docs.js'

/*
 * The tools of the MCP servers someone else wrote (`defineMcpServer`) in agent files and permission
 * rules: each agent is given its own servers' tools and, where its harness has a list of tools to
 * hide, not the others'; the config's approval rules name a whole server or one tool of it. How a
 * harness names them is its description's `mcp.toolNames`: nothing here branches on a harness.
 */

/** The servers harness `id` is given in this target: in its configuration or through our bridge. */
export function carriedServers(plan: Plan, id: Harness): PlannedMcpServer[] {
  const target = targetOf(plan)
  return (plan.mcpServers ?? []).filter((server) => mcpServerCarried(server, id, target))
}

/** The servers that go into harness `id`'s own MCP configuration in this target: those it can carry there. */
export function configuredServers(plan: Plan, id: Harness): PlannedMcpServer[] {
  const target = targetOf(plan)
  return harness(id).mcp.route === 'config' ? (plan.mcpServers ?? []).filter((server) => mcpServerLeftOut(server, id, target) === undefined) : []
}

/** The servers our bridge gives harness `id` in this target (see `mcpServerBridged`). */
export function bridgedServers(plan: Plan, id: Harness): PlannedMcpServer[] {
  const target = targetOf(plan)
  return (plan.mcpServers ?? []).filter((server) => mcpServerBridged(server, id, target))
}

/** A server's name as harness `id` shows it in this target (a Claude plugin's server is `plugin_<plugin>_<server>`). */
function shownName(plan: Plan, id: Harness, server: string): string {
  return plan.plugin ? harness(id).plugin.serverName(plan.plugin.name, server) : server
}

/** One approval rule for a server's tools: every tool of it or one, as the harness names them, and the decision. */
export interface ServerRule {
  name: string
  approval: ToolApproval
}

/**
 * What the config's approval rules decide for the servers' tools, as harness `id` names them: the
 * whole-server items first, then single tools (opencode and Kilo apply the last rule that matches,
 * so a tool's own rule follows its server's). Empty where the harness names no server's tools.
 */
export function serverRules(plan: Plan, id: Harness, servers: readonly PlannedMcpServer[] = carriedServers(plan, id)): ServerRule[] {
  const names = harness(id).mcp.toolNames
  if (!names) return []
  const decided = servers.filter((server) => server.approval !== undefined)
  return [
    ...decided.flatMap((server) => (server.approval!.all ? [{ name: names.server(shownName(plan, id, server.name)), approval: server.approval!.all }] : [])),
    ...decided.flatMap((server) => Object.entries(server.approval!.tools ?? {}).map(([tool, approval]) => ({ name: names.tool(shownName(plan, id, server.name), tool), approval }))),
  ]
}

/** An agent's servers and the others, among those harness `id` is given, as its agent files name their tools. */
export interface AgentServers {
  /** Its servers' tools, as the harness names every tool of a server. */
  givenServers: string[]
  /** The other servers' tools, to hide where the agent names some tools and would otherwise be shown every tool. */
  hiddenServers: string[]
}

/** The servers' tools in agent `agent`'s file for harness `id`; nothing where the harness cannot name them there. */
export function agentServers(plan: Plan, agent: PlannedAgent, id: Harness): AgentServers {
  const { toolNames } = harness(id).mcp
  const none: AgentServers = { givenServers: [], hiddenServers: [] }
  if (!toolNames || !harness(id).scopesToolsPerAgent) return none
  const carried = carriedServers(plan, id)
  const own = agent.mcpServers ?? []
  const named = (server: PlannedMcpServer) => toolNames.server(shownName(plan, id, server.name))
  const givenServers = carried.filter((server) => own.includes(server.name)).map(named)
  // An agent that names no tool at all is shown every tool, the servers' too, as an agent file without
  // `tools` is in every harness and as it is shown ours (and as `oac import` reads such a file back).
  const unrestricted = agent.tools.length === 0 && own.length === 0
  const hiddenServers = unrestricted ? [] : carried.filter((server) => !own.includes(server.name)).map(named)
  return { givenServers, hiddenServers }
}

/**
 * The frontmatter of an agent's tools where it lists them in `tools` (Claude Code, Gemini CLI, Qwen
 * Code, Copilot): its `listed` tools with its servers'; and, where its list stays empty (every tool)
 * though it names some tools (the ones it was given are left out of this harness) and the harness has
 * one, the list of tools to hide (`agentDenyList`) naming the servers it was not given. Where the list takes exact names alone (`exactAgentLists`), an agent given a server gets no
 * list but that deny list, naming our tools it was not given too. `join` writes a list as the harness
 * reads it (Claude Code's comma-joined text).
 */
export function agentToolFields(plan: Plan, agent: PlannedAgent, id: Harness, listed: readonly string[], join: (items: string[]) => JsonValue = (items) => items): { [key: string]: JsonValue } {
  const servers = agentServers(plan, agent, id)
  const { agentDenyList: denyKey, exactAgentLists } = harness(id).mcp
  const deny = (hidden: string[]) => (denyKey && hidden.length > 0 ? { [denyKey]: join(hidden) } : {})
  if (exactAgentLists && servers.givenServers.length > 0) {
    const ours = plan.tools.filter((tool) => hasNativeForm(plan, tool, id)).map((tool) => nativeToolName(plan, id, tool.name))
    return deny([...ours.filter((name) => !listed.includes(name)), ...servers.hiddenServers])
  }
  const tools = [...listed, ...servers.givenServers]
  // No `tools` key means "every tool" to each of them, which is what an agent that names none gets.
  return tools.length > 0 ? { tools: join(tools) } : deny(servers.hiddenServers)
}
