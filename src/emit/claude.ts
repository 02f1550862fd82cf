import { claude } from '../compile/harnesses/claude.js'
import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { agentAllowList } from './allow-list.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { renderAgentPrompt } from './codegen/prompt-docs.js'
import { agentHookGroups } from './hooks.js'
import { agentToolFields } from './mcp-scope.js'
import { mcpJsonFile, permissionItems, servesMcp } from './mcp-tools.js'
import type { OutputFile } from './types.js'

/**
 * Claude Code: `.mcp.json` (our server entry merged into the user's file), one subagent file
 * `.claude/agents/<agent>.md` per agent, and the config's approval rules as items of
 * `permissions.allow` / `permissions.ask` in the project's `.claude/settings.json`.
 */
export function emitClaude(plan: Plan): OutputFile[] {
  const files: OutputFile[] = []
  if (servesMcp(plan, 'claude')) files.push(mcpJsonFile(plan))
  const rules = permissionItems(plan, 'claude')
  if (rules.length > 0) files.push({ kind: 'merge', path: '.claude/settings.json', format: 'json', entries: rules })
  for (const agent of plan.agents) {
    files.push({
      kind: 'owned',
      path: claude.agentFile(agent.name),
      content: claudeAgentMarkdown(plan, agent, agentHookGroups(plan, 'claude', agent.name)),
    })
  }
  return files
}

/**
 * An agent's Claude Code subagent file: its frontmatter (tools, model, the `hooks` that run for it
 * alone) and its prompt. A plugin's agent file passes no hooks: Claude Code does not read `hooks`
 * in a plugin agent's frontmatter, so the plugin's hooks file carries them.
 */
export function claudeAgentMarkdown(plan: Plan, agent: PlannedAgent, hooks: { [event: string]: JsonValue[] }): string {
  return markdownWithFrontmatter(claudeFrontmatter(plan, agent, hooks), renderAgentPrompt(plan, agent, 'claude'))
}

function claudeFrontmatter(plan: Plan, agent: PlannedAgent, hooks: { [event: string]: JsonValue[] }): { [key: string]: JsonValue } {
  // Compile has rejected fields that would replace the generated ones (`harness-field-reserved`).
  const extra = agent.harness.claude ?? {}
  // Its MCP tools, the built-ins it asks for, and `Bash` when its prompt documents a tool's script; its MCP servers' tools.
  const tools = agentAllowList(plan, agent, 'claude', 'Bash')
  return {
    name: agent.name,
    description: agent.description,
    ...agentToolFields(plan, agent, 'claude', tools, (items) => items.join(', ')),
    model: agent.model.claude ?? 'inherit',
    ...(Object.keys(hooks).length > 0 ? { hooks } : {}),
    ...extra,
  }
}
