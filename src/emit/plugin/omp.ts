import { harness } from '../../compile/harnesses/index.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { JsonValue } from '../../define/types.js'
import { commandsAs } from '../commands.js'
import { pluginHookExtension } from '../hooks.js'
import { bridgeName, bridgesMcpServers } from '../codegen/mcp-bridge.js'
import { ompBridgeExtension, ompToolFactory, ompTools } from '../omp.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'

/** oh-my-pi's own folder in the plugin folder. */
const ROOT = 'omp'

/**
 * oh-my-pi: an omp plugin package, `package.json`'s `omp` key naming a tool factory per tool and the
 * extensions (the MCP bridge's, the hooks') under `omp/`, which omp 18.2 loads from a package that
 * `omp plugin install <dir>` links (or installs from npm). omp reads such a package's conventional
 * folders as well: the skills of the root `skills/` (written once for every format that reads it, see
 * index.ts) and the markdown commands of the root `commands/`, where Gemini CLI's are TOML files omp
 * passes over.
 *
 * Not the Claude format: omp installs it from a marketplace, but serves its MCP server's tools (as
 * `mcp__<plugin>_<server>_<tool>`) and never runs its hooks; and it links the package of a marketplace
 * plugin too, so a folder installed that way shows each tool twice (docs/plugins.md).
 */
export const emitOmpPlugin: PluginFormatEmitter = (plan) => {
  const files: OutputFile[] = []
  const manifest: { [key: string]: JsonValue } = {}
  const tools = ompTools(plan)
  if (tools.length > 0) {
    manifest.tools = tools.map((tool) => {
      const path = `${ROOT}/tools/${tool.name}/index.ts`
      files.push({ kind: 'owned', path, content: ompToolFactory(plan, tool, path) })
      return `./${path}`
    })
  }
  const extensions: string[] = []
  if (bridgesMcpServers(plan, 'omp')) {
    const path = `${ROOT}/extensions/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: ompBridgeExtension(plan, path) })
    extensions.push(`./${path}`)
  }
  const hooks = pluginHookExtension(plan, 'omp', ROOT)
  if (hooks) {
    files.push(hooks)
    extensions.push(`./${hooks.path}`)
  }
  if (extensions.length > 0) manifest.extensions = extensions
  if ((plan.commands ?? []).length > 0) {
    // omp reads the markdown commands of a package's `commands/` (its manifest's `commands` key is never read in 18.2).
    const file: CommandFile = { ...harness('omp').commands[0]!, path: (command) => `commands/${command}.md` }
    files.push(...commandsAs(plan, file, ['omp']))
  }
  return { files, packageJson: { omp: manifest } }
}
