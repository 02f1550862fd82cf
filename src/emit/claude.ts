import type { Plan, PlannedAgent, PlannedTool } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { OacError } from '../diagnostics.js'
import { mcpServerCommand } from '../runtime/mcp-launcher.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { hasNativeForm, nativeToolName, renderAgentPrompt } from './codegen/prompt-docs.js'
import type { OutputFile } from './types.js'

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

export function agentTools(plan: Plan, agent: PlannedAgent): PlannedTool[] {
  return agent.tools.map((name) => plan.tools.find((tool) => tool.name === name)).filter((tool): tool is PlannedTool => tool !== undefined)
}

/** Frontmatter keys that come from the agent definition itself, so `harness.claude` may not set them. */
const OWN_FRONTMATTER_KEYS: Record<string, string> = {
  name: 'the agent `name`',
  description: 'the agent `description`',
  tools: 'the agent `tools` and `builtinTools.claude`',
  model: 'the agent `model` (or the config `models`)',
}

/**
 * Claude Code: `.mcp.json` (our server entry merged into the user's file) and one subagent file
 * `.claude/agents/<agent>.md` per agent.
 */
export function emitClaude(plan: Plan): OutputFile[] {
  const files: OutputFile[] = []
  if (servesMcp(plan, 'claude')) {
    // `${VAR}` is expanded by Claude Code from its own environment when it starts the server,
    // so only the variable's name is written down, never its value.
    const env = Object.fromEntries(plan.env.map((name) => [name, `\${${name}}`]))
    files.push({
      kind: 'merge',
      path: '.mcp.json',
      format: 'json',
      entries: [{ keyPath: ['mcpServers', plan.serverName], value: { ...mcpServerCommand(plan.serverName), ...(plan.env.length > 0 ? { env } : {}) } }],
    })
  }
  for (const agent of plan.agents) {
    files.push({
      kind: 'owned',
      path: `.claude/agents/${agent.name}.md`,
      content: markdownWithFrontmatter(claudeFrontmatter(plan, agent), renderAgentPrompt(plan, agent, 'claude')),
    })
  }
  return files
}

function claudeFrontmatter(plan: Plan, agent: PlannedAgent): { [key: string]: JsonValue } {
  const extra = agent.harness.claude ?? {}
  for (const key of Object.keys(extra)) {
    const owner = OWN_FRONTMATTER_KEYS[key]
    if (owner !== undefined) {
      throw new OacError([
        {
          severity: 'error',
          code: 'harness-field-reserved',
          message: `Agent "${agent.name}" sets \`harness.claude.${key}\`, which unplugin-oac writes itself from ${owner}.`,
          fix: `Remove \`${key}\` from \`harness.claude\` and set ${owner} instead.`,
          ...agent.source,
        },
      ])
    }
  }
  const tools = claudeTools(plan, agent)
  return {
    name: agent.name,
    description: agent.description,
    // No `tools` key means "every tool" to Claude Code, which is what an agent that names none gets.
    ...(tools.length > 0 ? { tools: tools.join(', ') } : {}),
    model: agent.model.claude ?? 'inherit',
    ...extra,
  }
}

/**
 * The agent's allow-list: its MCP tools, the built-ins it asks for, and `Bash` when its prompt
 * documents a tool's script (the same rule as the prompt docs: any format but `json`, or no native form).
 */
function claudeTools(plan: Plan, agent: PlannedAgent): string[] {
  const mcp = agentMcpTools(plan, agent, 'claude')
  const builtins = agent.builtinTools.claude ?? []
  const runsScripts = agentTools(plan, agent).some(
    (tool) => (agent.toolFormats[tool.name] ?? 'both') !== 'json' || !hasNativeForm(plan, tool, 'claude'),
  )
  const tools = [...mcp.map((tool) => nativeToolName(plan, 'claude', tool.name)), ...builtins]
  if (runsScripts && !builtins.includes('Bash')) tools.push('Bash')
  return tools
}
