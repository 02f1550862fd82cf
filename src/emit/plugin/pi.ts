import { harness } from '../../compile/harnesses/index.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { JsonValue } from '../../define/types.js'
import { commandsAs } from '../commands.js'
import { pluginHookExtension } from '../hooks.js'
import { bridgeName, bridgesMcpServers } from '../codegen/mcp-bridge.js'
import { piBridgeExtension, piExtension, piTools } from '../pi.js'
import { skillsIn } from '../skills.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'

/** The pi package's own folder in the plugin folder. */
const ROOT = 'pi'

/**
 * pi: the folder is a pi package, `package.json`'s `pi` key naming its extensions (the tools' and the
 * hooks'), skills and prompts under `pi/`, and the `pi-package` keyword. pi 0.73 reads only the paths
 * the key names (its conventional `skills/`, `extensions/` and `prompts/` only without the key), so the
 * other formats' folders at the root stay out of it. `pi install <dir>` adds the folder to
 * `~/.pi/agent/settings.json` where it is, without copying it; from npm, `pi install npm:<name>`.
 * The extensions find the scripts relative to themselves, and the tools run in pi's working folder.
 */
export const emitPiPackage: PluginFormatEmitter = (plan) => {
  const files: OutputFile[] = []
  const manifest: { [key: string]: JsonValue } = {}
  const extensions: string[] = []
  const tools = piTools(plan)
  if (tools.length > 0) {
    const path = `${ROOT}/extensions/${plan.serverName}.ts`
    files.push({ kind: 'owned', path, content: piExtension(plan, tools, path) })
    extensions.push(`./${path}`)
  }
  if (bridgesMcpServers(plan, 'pi')) {
    const path = `${ROOT}/extensions/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: piBridgeExtension(plan, path) })
    extensions.push(`./${path}`)
  }
  const hooks = pluginHookExtension(plan, 'pi', ROOT)
  if (hooks) {
    files.push(hooks)
    extensions.push(`./${hooks.path}`)
  }
  if (extensions.length > 0) manifest.extensions = extensions
  if ((plan.skills ?? []).length > 0) {
    files.push(...skillsIn(plan, `${ROOT}/skills`, ['pi']))
    manifest.skills = [`./${ROOT}/skills`]
  }
  if ((plan.commands ?? []).length > 0) {
    const prompts: CommandFile = { ...harness('pi').commands[0]!, path: (command) => `${ROOT}/prompts/${command}.md` }
    files.push(...commandsAs(plan, prompts, ['pi']))
    manifest.prompts = [`./${ROOT}/prompts`]
  }
  return { files, packageJson: { keywords: ['pi-package'], pi: manifest } }
}
