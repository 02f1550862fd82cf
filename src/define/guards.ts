import type { AnyHookDefinition } from './hooks.js'
import type { RuleDefinition } from './rules.js'
import type { AgentDefinition, AnyToolDefinition, CommandDefinition, RegistryDefinition, SkillDefinition } from './types.js'
import type { McpServerDefinition } from './mcp-servers.js'

/** The guard of the values a define function made with `kind` (user code is JavaScript at run time, so anything can arrive). */
function kindGuard<T>(kind: string): (value: unknown) => value is T {
  return (value): value is T => typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind
}

export const isTool = kindGuard<AnyToolDefinition>('oac:tool')
export const isAgent = kindGuard<AgentDefinition>('oac:agent')
export const isSkill = kindGuard<SkillDefinition>('oac:skill')
export const isCommand = kindGuard<CommandDefinition>('oac:command')
export const isRule = kindGuard<RuleDefinition>('oac:rule')
export const isRegistry = kindGuard<RegistryDefinition>('oac:registry')
export const isHook = kindGuard<AnyHookDefinition>('oac:hook')
export const isMcpServer = kindGuard<McpServerDefinition>('oac:mcp-server')

/** Every hook a registry reaches, each once: its own, then those its agents list. */
export function everyHook(registry: RegistryDefinition): AnyHookDefinition[] {
  const lists: unknown[] = [registry.hooks, ...(Array.isArray(registry.agents) ? registry.agents : []).map((agent: unknown) => (isAgent(agent) ? agent.hooks : undefined))]
  return [...new Set(lists.flatMap((list) => (Array.isArray(list) ? list.filter(isHook) : [])))]
}

/** Every tool definition a registry reaches (its own, its agents' and its skills'), each once. */
export function everyTool(registry: RegistryDefinition): AnyToolDefinition[] {
  const owners: unknown[] = [...(Array.isArray(registry.agents) ? registry.agents : []), ...(Array.isArray(registry.skills) ? registry.skills : [])]
  const lists: unknown[] = [registry.tools, ...owners.map((owner) => (typeof owner === 'object' && owner !== null ? (owner as { tools?: unknown }).tools : undefined))]
  return [...new Set(lists.flatMap((list) => (Array.isArray(list) ? list.filter(isTool) : [])))]
}
