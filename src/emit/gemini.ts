import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { OacError } from '../diagnostics.js'
import { mcpServerCommand } from '../runtime/mcp-launcher.js'
import { checkedFrontmatterExtras, mcpAllowList } from './allow-list.js'
import { servesMcp } from './claude.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { renderAgentPrompt } from './codegen/prompt-docs.js'
import type { OutputFile } from './types.js'

/** Frontmatter keys written from the agent definition, so `harness.gemini` / `harness.qwen` may not set them. */
const OWN_FRONTMATTER_KEYS: Record<string, string> = {
  name: 'the agent `name`',
  description: 'the agent `description`',
  tools: 'the agent `tools` and `builtinTools`',
  model: 'the agent `model` (or the config `models`)',
}

/**
 * The rest of Gemini CLI 0.61's local-agent frontmatter. Its zod schema is `.strict()`: any other key
 * makes the agent fail to load. (`kind` is left out: `remote` turns the file into another schema.)
 */
export const GEMINI_AGENT_KEYS: readonly string[] = ['display_name', 'temperature', 'max_turns', 'timeout_mins', 'mcp_servers']

// Gemini CLI fills `${name}` in an agent's prompt from the call's inputs (`query`, `today`, ...) and
// refuses to run the agent when one is missing; the placeholder has no escaped form.
const PLACEHOLDER = /\$\{(\w+)\}/

/**
 * The server entry of `.gemini/settings.json` (and Qwen Code's `.qwen/settings.json`): only keys of
 * the closed `MCPServerConfig` schema. No `cwd`: the server starts in the folder the CLI was launched
 * in, which is the project (both read project settings from the launch folder only), and the launcher
 * walks up from there. The CLI passes a server only a cleaned environment (no `*TOKEN*`, `*KEY*`...),
 * so the config's variables are listed; `${VAR}` is expanded from the CLI's environment.
 */
export function settingsServerEntry(plan: Plan): { [key: string]: JsonValue } {
  const env = Object.fromEntries(plan.env.map((name) => [name, `\${${name}}`]))
  return { ...mcpServerCommand(plan.serverName), ...(plan.env.length > 0 ? { env } : {}) }
}

/** One agent of a Gemini-family harness, as its Markdown file's frontmatter and body. */
export interface GeminiFamily {
  harness: Extract<Harness, 'gemini' | 'qwen'>
  title: string
  folder: string
  /** Keys `harness.<id>` may add, where the harness refuses unknown ones. */
  acceptedKeys?: readonly string[]
  /** True when the harness substitutes `${name}` placeholders in the prompt. */
  placeholders: boolean
}

const GEMINI: GeminiFamily = { harness: 'gemini', title: 'Gemini CLI', folder: '.gemini', acceptedKeys: GEMINI_AGENT_KEYS, placeholders: true }

/**
 * Gemini CLI: our server merged into `.gemini/settings.json` (JSONC; the user's comments and keys
 * stay), and one `.gemini/agents/<agent>.md` per agent whose `tools` name its MCP tools as the model
 * sees them, `mcp_<server>_<tool>`.
 */
export function emitGemini(plan: Plan): OutputFile[] {
  return emitGeminiFamily(plan, GEMINI)
}

export function emitGeminiFamily(plan: Plan, family: GeminiFamily): OutputFile[] {
  const files: OutputFile[] = []
  if (servesMcp(plan, family.harness)) {
    files.push({
      kind: 'merge',
      path: `${family.folder}/settings.json`,
      format: 'json',
      entries: [{ keyPath: ['mcpServers', plan.serverName], value: settingsServerEntry(plan) }],
    })
  }
  for (const agent of plan.agents) files.push({ kind: 'owned', path: `${family.folder}/agents/${agent.name}.md`, content: agentFile(plan, agent, family) })
  return files
}

function agentFile(plan: Plan, agent: PlannedAgent, family: GeminiFamily): string {
  const extra = checkedFrontmatterExtras(agent, family.harness, family.title, OWN_FRONTMATTER_KEYS, family.acceptedKeys)
  const tools = mcpAllowList(plan, agent, family.harness, 'run_shell_command')
  const frontmatter: { [key: string]: JsonValue } = {
    name: agent.name,
    description: agent.description,
    // No `tools` key gives the agent every tool, which is what an agent that names none gets.
    ...(tools.length > 0 ? { tools } : {}),
    ...(agent.model[family.harness] !== undefined ? { model: agent.model[family.harness]! } : {}),
    ...extra,
  }
  const body = renderAgentPrompt(plan, agent, family.harness)
  const placeholder = family.placeholders ? PLACEHOLDER.exec(body) : null
  if (placeholder) {
    throw new OacError([
      {
        severity: 'error',
        code: 'prompt-placeholder',
        message: `Agent "${agent.name}"'s prompt (or a description of one of its tools) contains \`${placeholder[0]}\`, which ${family.title} reads as a placeholder to fill in when the agent starts: it fails with "Missing required input parameters: ${placeholder[1]}".`,
        fix: `Write it another way (e.g. \`$${placeholder[1]}\` or \`{${placeholder[1]}}\`), or leave ${family.harness} out of the harnesses.`,
        ...agent.source,
      },
    ])
  }
  return markdownWithFrontmatter(frontmatter, body)
}
