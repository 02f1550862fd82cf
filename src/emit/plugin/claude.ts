import { CLAUDE_COMMAND } from '../../compile/harnesses/text-syntax.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { Plan } from '../../compile/plan.js'
import type { JsonValue } from '../../define/types.js'
import { mcpServerScript } from '../mcp-launcher.js'
import { claudeAgentMarkdown } from '../claude.js'
import { copilotAgentMarkdown } from '../copilot.js'
import { jsonDocument } from '../codegen/escape.js'
import { commandsAs } from '../commands.js'
import { pluginHookGroups, pluginHooksFile } from '../hooks.js'
import { pluginServerEntries } from '../mcp-servers.js'
import { serverEnv, servesMcp } from '../mcp-tools.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter, PluginPlan } from './types.js'
import { manifestMetadata } from './metadata.js'

/** The variable Claude Code (and the Copilot CLI) sets to the installed plugin's folder, in MCP args and hook commands. */
export const CLAUDE_PLUGIN_ROOT = '${CLAUDE_PLUGIN_ROOT}'

/** The variable the Copilot CLI sets to the installed plugin's folder (it expands it in MCP args, and sets it for hooks). */
export const COPILOT_PLUGIN_ROOT = '${PLUGIN_ROOT}'

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
 * the agents, commands and hooks under `claude/`, named by the manifest's path fields (the `agents`
 * and `commands` fields replace Claude's default folders, so another format's `agents/` and
 * `commands/` at the root are not read), the root's skills, the MCP server inline, started from the
 * plugin's root. And `.claude-plugin/marketplace.json`, a marketplace of this one plugin, so that the folder
 * (or a git repository of it) can be added with `claude plugin marketplace add`.
 */
export const emitClaudePlugin: PluginFormatEmitter = (plan, harnesses) => {
  const { name, version, description } = plan.plugin
  const files: OutputFile[] = []
  const manifest: { [key: string]: JsonValue } = { name, version, description, ...manifestMetadata(plan.plugin) }

  // Always set, even empty: an absent field would let Claude read the root's `agents/` (Gemini's).
  manifest.agents = plan.agents.map((agent) => `./${FOLDER}/agents/${agent.name}.md`)
  for (const agent of plan.agents) {
    files.push({ kind: 'owned', path: `${FOLDER}/agents/${agent.name}.md`, content: claudeAgentMarkdown(plan, agent, {}) })
  }

  const commands = commandsAs(plan, pluginCommand(name), harnesses)
  manifest.commands = commands.map((file) => `./${file.path}`)
  files.push(...commands)

  // No `skills` field: Claude Code reads the root `skills/` whatever the manifest says (a field only adds
  // folders), so the plugin's skills are the root's, written once for every format that reads them (index.ts).

  // Every hook, agent-scoped ones too: Claude Code reads no `hooks` in a plugin agent's file.
  const hooks = pluginHookGroups(plan, 'claude', CLAUDE_PLUGIN_ROOT)
  if (Object.keys(hooks).length > 0) {
    manifest.hooks = `./${FOLDER}/hooks.json`
    files.push({ kind: 'owned', path: `${FOLDER}/hooks.json`, content: jsonDocument({ hooks }) })
  }

  // Our server, and the servers someone else wrote with their references as `${NAME}`, which both fill.
  const servers = { ...(harnesses.some((id) => servesMcp(plan, id)) && { [plan.serverName]: mcpServer(plan, CLAUDE_PLUGIN_ROOT) }), ...pluginServerEntries(plan, harnesses) }
  if (Object.keys(servers).length > 0) manifest.mcpServers = servers

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
  if (harnesses.includes('copilot')) files.push(...copilotManifest(plan, manifest))
  return { files }
}

/** Our MCP server's entry: plain node, the script found from the plugin's root (`root`, the harness's variable), the config's `env` by name. */
function mcpServer(plan: Plan, root: string): { [key: string]: JsonValue } {
  return { command: 'node', args: [`${root}/${mcpServerScript(plan)}`], ...serverEnv(plan) }
}

/**
 * The Copilot CLI's own manifest, `.github/plugin/plugin.json`, which it reads before
 * `.claude-plugin/plugin.json`: it reads Claude's agent files too, but their tool names and prompts
 * are Claude's (`mcp__plugin_<plugin>_<server>__<tool>`), and it runs Claude's hooks file with
 * Claude's matchers and wire. So its agents (`copilot/agents/<agent>.agent.md`) and hooks
 * (`copilot/hooks.json`, its own shape) are its own; the commands are Claude's files, the skills the root's.
 */
function copilotManifest(plan: PluginPlan, claudeManifest: { [key: string]: JsonValue }): OutputFile[] {
  const { name, version, description } = plan.plugin
  const files: OutputFile[] = []
  const manifest: { [key: string]: JsonValue } = { name, version, description, ...manifestMetadata(plan.plugin) }
  manifest.agents = plan.agents.map((agent) => `./copilot/agents/${agent.name}.agent.md`)
  for (const agent of plan.agents) files.push({ kind: 'owned', path: `copilot/agents/${agent.name}.agent.md`, content: copilotAgentMarkdown(plan, agent) })
  manifest.commands = claudeManifest.commands ?? []
  // Copilot reads the folders its own manifest names alone: the root's skills, by name.
  if ((plan.skills ?? []).length > 0) manifest.skills = (plan.skills ?? []).map((skill) => `./skills/${skill.name}`)
  const hooks = pluginHooksFile(plan, 'copilot', COPILOT_PLUGIN_ROOT, 'copilot/hooks.json')
  if (hooks) {
    manifest.hooks = `./${hooks.path}`
    files.push(hooks)
  }
  // Copilot starts a plugin's server in the plugin's folder unless `cwd` says otherwise; `.` is its own
  // working folder, the user's (it expands no variable naming the project there).
  const servers = { ...(servesMcp(plan, 'copilot') && { [plan.serverName]: { ...mcpServer(plan, COPILOT_PLUGIN_ROOT), cwd: '.' } }), ...pluginServerEntries(plan, ['copilot']) }
  if (Object.keys(servers).length > 0) manifest.mcpServers = servers
  files.push({ kind: 'owned', path: '.github/plugin/plugin.json', content: jsonDocument(manifest) })
  return files
}
