import { clineBridgeModule, clinePluginModule, clineTools } from '../cline.js'
import { bridgeName, bridgesMcpServers } from '../codegen/mcp-bridge.js'
import { pluginHookExtension } from '../hooks.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'

/** Cline's own folder in the plugin folder. */
const ROOT = 'cline'

/**
 * Cline: its plugin modules under `cline/` (the tools' and the hooks'), named by `package.json`'s
 * `cline.plugins` key. `cline plugin install <dir>` copies the whole folder (the scripts with it) and
 * loads the paths the key names; without the key, it would load every `.ts` and `.js` file of the
 * folder, pi's extensions among them (docs/cline.md). The modules find the scripts relative to themselves.
 */
export const emitClinePlugin: PluginFormatEmitter = (plan) => {
  const files: OutputFile[] = []
  const tools = clineTools(plan)
  if (tools.length > 0) {
    const path = `${ROOT}/${plan.serverName}.ts`
    files.push({ kind: 'owned', path, content: clinePluginModule(plan, tools, path) })
  }
  if (bridgesMcpServers(plan, 'cline')) {
    const path = `${ROOT}/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: clineBridgeModule(plan, path) })
  }
  const hooks = pluginHookExtension(plan, 'cline', ROOT)
  if (hooks) files.push(hooks)
  if (files.length === 0) return { files }
  return { files, packageJson: { cline: { plugins: [{ paths: files.map((file) => `./${file.path}`) }] } } }
}
