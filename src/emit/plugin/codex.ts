import { harness } from '../../compile/harnesses/index.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { Plan, PluginInfo } from '../../compile/plan.js'
import type { JsonValue } from '../../define/types.js'
import { mcpServerScript } from '../mcp-launcher.js'
import { jsString, jsonDocument } from '../codegen/escape.js'
import { hasNativeForm } from '../codegen/prompt-docs.js'
import { mcpServerBlock } from '../codex.js'
import { commandsAs } from '../commands.js'
import { pluginServerEntries } from '../mcp-servers.js'
import { pluginHookGroups } from '../hooks.js'
import { skillsIn } from '../skills.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'
import { manifestMetadata } from './metadata.js'

/** Codex's own folder in the plugin folder. */
const ROOT = 'codex'

/** The variable Codex 0.171 sets to the installed plugin's folder for its hook commands (and `CLAUDE_PLUGIN_ROOT`, the same). */
const ROOT_VARIABLE = '${PLUGIN_ROOT}'

/**
 * Codex: `.codex-plugin/plugin.json` naming the MCP server's file, the hooks' file and the skills'
 * folder under `codex/`, and `.agents/plugins/marketplace.json`, a marketplace of this one plugin at
 * `./`, so that `codex plugin marketplace add <dir>` (a local path or a git repository) then
 * `codex plugin add <plugin>@<plugin>` installs it. Codex copies the folder into
 * `$CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/`.
 *
 * Codex 0.171 reads a manifest's `skills`, `mcpServers` and `hooks` in place of its defaults (`skills/`,
 * `.mcp.json`, `hooks/hooks.json`; checked with the real CLI), so the last two are always named, lest it
 * start another format's server or run Gemini CLI's hooks, and the skills and the commands (skills the
 * user alone starts) share `codex/skills/`. Codex prefixes a plugin's skills with its name: the user
 * starts a command as `$<plugin>:<command>`. Agents are not part of a Codex plugin (its manifest has no
 * field for them).
 */
export const emitCodexPlugin: PluginFormatEmitter = (plan) => {
  const info = plan.plugin
  const files: OutputFile[] = []
  const manifest: { [key: string]: JsonValue } = { name: info.name, version: info.version, description: info.description, ...manifestMetadata(info) }
  if ((plan.skills ?? []).length + (plan.commands ?? []).length > 0) {
    const command: CommandFile = {
      ...harness('codex').commands[0]!,
      path: (name) => `${ROOT}/skills/${name}/SKILL.md`,
      args: (name) => `the text after \`$${info.name}:${name}\` in the user's message`,
    }
    files.push(...skillsIn(plan, `${ROOT}/skills`, ['codex']), ...commandsAs(plan, command, ['codex']))
    manifest.skills = `./${ROOT}/skills/`
  }
  const served = plan.tools.filter((tool) => hasNativeForm(plan, tool, 'codex')).map((tool) => tool.name)
  const servers = { ...(served.length > 0 && { [plan.serverName]: mcpServer(plan, info, served) }), ...pluginServerEntries(plan, ['codex']) }
  files.push({ kind: 'owned', path: `${ROOT}/mcp.json`, content: jsonDocument({ mcpServers: servers }) })
  manifest.mcpServers = `./${ROOT}/mcp.json`
  files.push({ kind: 'owned', path: `${ROOT}/hooks.json`, content: jsonDocument({ hooks: pluginHookGroups(plan, 'codex', ROOT_VARIABLE) }) })
  manifest.hooks = `./${ROOT}/hooks.json`
  files.push({ kind: 'owned', path: '.codex-plugin/plugin.json', content: jsonDocument(manifest) })
  const marketplace = { name: info.name, plugins: [{ name: info.name, source: { source: 'local', path: './' } }] }
  files.push({ kind: 'owned', path: '.agents/plugins/marketplace.json', content: jsonDocument(marketplace) })
  return { files }
}

/**
 * The server's entry of `codex/mcp.json`: the project block's settings (enabled tools, timeouts,
 * approval modes, forwarded variables), started by a launcher that finds the installed plugin. Codex
 * 0.171 expands no variable in a plugin server's `command` or `args`, and resolves a relative `cwd`
 * against the plugin's folder; but the tools must run in the user's folder, the thread's, where Codex
 * starts a server without `cwd`. So the launcher finds the plugin's copy of the server in Codex's plugin
 * cache, `$CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/` (`CODEX_HOME` forwarded, else
 * `~/.codex`), by this build's name and version, under any marketplace.
 */
function mcpServer(plan: Plan, info: PluginInfo, served: string[]): { [key: string]: JsonValue } {
  const block = mcpServerBlock(plan, served)
  return { ...block, command: 'node', args: ['-e', launcherSource(plan, info)], env_vars: [...plan.env, 'CODEX_HOME'] }
}

function launcherSource(plan: Plan, info: PluginInfo): string {
  const server = mcpServerScript(plan)
  return [
    `const { existsSync, readdirSync } = require('node:fs'); const { join } = require('node:path'); const { homedir } = require('node:os');`,
    `const cache = join(process.env.CODEX_HOME || join(homedir(), '.codex'), 'plugins', 'cache');`,
    `const server = join(${jsString(info.name)}, ${jsString(info.version)}, ${jsString(server)});`,
    `const found = (existsSync(cache) ? readdirSync(cache) : []).map((marketplace) => join(cache, marketplace, server)).find((path) => existsSync(path));`,
    `if (!found) { console.error(server + ' not found in any marketplace of ' + cache + ': install the plugin with codex plugin add.'); process.exit(1) }`,
    `require(found)`,
  ].join(' ')
}
