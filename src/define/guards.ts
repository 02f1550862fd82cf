import type { AnyHookDefinition } from './hooks.js'
import type { RuleDefinition } from './rules.js'
import type { AgentDefinition, AnyToolDefinition, CommandDefinition, RegistryDefinition, SkillDefinition } from './types.js'
import type { McpServerDefinition } from './mcp-servers.js'

function hasKind(value: unknown, kind: string): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind
}

/** True for a value made by defineTool (user code is JavaScript at run time, so anything can arrive). */
export function isTool(value: unknown): value is AnyToolDefinition {
  return hasKind(value, 'oac:tool')
}

export function isAgent(value: unknown): value is AgentDefinition {
  return hasKind(value, 'oac:agent')
}

export function isSkill(value: unknown): value is SkillDefinition {
  return hasKind(value, 'oac:skill')
}

export function isCommand(value: unknown): value is CommandDefinition {
  return hasKind(value, 'oac:command')
}

export function isRule(value: unknown): value is RuleDefinition {
  return hasKind(value, 'oac:rule')
}

export function isRegistry(value: unknown): value is RegistryDefinition {
  return hasKind(value, 'oac:registry')
}

export function isHook(value: unknown): value is AnyHookDefinition {
  return hasKind(value, 'oac:hook')
}

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

export function isMcpServer(value: unknown): value is McpServerDefinition {
  return hasKind(value, 'oac:mcp-server')
}
