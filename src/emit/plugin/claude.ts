import { CLAUDE_COMMAND } from '../../compile/harnesses/text-syntax.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { JsonValue } from '../../define/types.js'
import { mcpServerScript } from '../../runtime/mcp-launcher.js'
import { claudeAgentMarkdown } from '../claude.js'
import { jsonDocument } from '../codegen/escape.js'
import { commandsAs } from '../commands.js'
import { pluginHookGroups } from '../hooks.js'
import { servesMcp } from '../mcp-tools.js'
import { skillsIn } from '../skills.js'
import type { OwnedFile } from '../types.js'
import type { PluginFormatEmitter } from './index.js'

/** The variable Claude Code (and the Copilot CLI) sets to the installed plugin's folder, in MCP args and hook commands. */
export const CLAUDE_PLUGIN_ROOT = '${CLAUDE_PLUGIN_ROOT}'

/** The folder of the format's own components, so that the root's `agents/`, `commands/` and the like stay other formats'. */
const FOLDER = 'claude'

/**
 * Claude's command files, in the format's folder. A command run as an agent names it as Claude Code
 * names a plugin's agents, `<plugin>:<agent>`.
 */
function pluginCommand(plugin: string): CommandFile {
  return {
    ...CLAUDE_COMMAND,
    path: (command) => `${FOLDER}/commands/${command}.md`,
    fields: { ...CLAUDE_COMMAND.fields, agent: (agent) => ({ context: 'fork', agent: `${plugin}:${agent}` }) },
  }
}

/**
 * The Claude Code plugin (`.claude-plugin/plugin.json`), which the Copilot CLI installs as it is:
 * the agents, commands, skills and hooks under `claude/`, named by the manifest's path fields (the
 * `agents` and `commands` fields replace Claude's default folders, so another format's `agents/`
 * and `commands/` at the root are not read), the MCP server inline, started from the plugin's
 * root. And `.claude-plugin/marketplace.json`, a marketplace of this one plugin, so that the folder
 * (or a git repository of it) can be added with `claude plugin marketplace add`.
 */
export const emitClaudePlugin: PluginFormatEmitter = (plan, harnesses) => {
  const { name, version, description } = plan.plugin
  const files: OwnedFile[] = []
  const manifest: { [key: string]: JsonValue } = { name, version, description }

  // Always set, even empty: an absent field would let Claude read the root's `agents/` (Gemini's).
  manifest.agents = plan.agents.map((agent) => `./${FOLDER}/agents/${agent.name}.md`)
  for (const agent of plan.agents) {
    files.push({ kind: 'owned', path: `${FOLDER}/agents/${agent.name}.md`, content: claudeAgentMarkdown(plan, agent, {}) })
  }

  const commands = commandsAs(plan, pluginCommand(name), harnesses)
  manifest.commands = commands.map((file) => `./${file.path}`)
  files.push(...commands)

  const skills = skillsIn(plan, `${FOLDER}/skills`, harnesses)
  if (skills.length > 0) {
    manifest.skills = (plan.skills ?? []).map((skill) => `./${FOLDER}/skills/${skill.name}`)
    files.push(...skills)
  }

  // Every hook, agent-scoped ones too: Claude Code reads no `hooks` in a plugin agent's file.
  const hooks = pluginHookGroups(plan, 'claude', CLAUDE_PLUGIN_ROOT)
  if (Object.keys(hooks).length > 0) {
    manifest.hooks = `./${FOLDER}/hooks.json`
    files.push({ kind: 'owned', path: `${FOLDER}/hooks.json`, content: jsonDocument({ hooks }) })
  }

  if (harnesses.some((id) => servesMcp(plan, id))) {
    const env = Object.fromEntries(plan.env.map((variable) => [variable, `\${${variable}}`]))
    // Started in the user's folder (tools see it as `ctx.cwd`), the server found from the plugin's root.
    const server = { command: 'node', args: [`${CLAUDE_PLUGIN_ROOT}/${mcpServerScript(plan.serverName)}`], ...(plan.env.length > 0 ? { env } : {}) }
    manifest.mcpServers = { [plan.serverName]: server }
  }

  const marketplace = {
    name,
    description,
    owner: { name },
    plugins: [{ name, source: './', description, version }],
  }
  files.push(
    { kind: 'owned', path: '.claude-plugin/plugin.json', content: jsonDocument(manifest) },
    { kind: 'owned', path: '.claude-plugin/marketplace.json', content: jsonDocument(marketplace) },
  )
  return { files }
}
