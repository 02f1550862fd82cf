import { clineBridgeModule, clinePluginModule, clineTools } from '../cline.js'
import { bridgeName, bridgesMcpServers } from '../codegen/mcp-bridge.js'
import { pluginHookExtension } from '../hooks.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'

/** Cline's own folder in the plugin folder. */
const ROOT = 'cline'

/**
 * Cline: its plugin modules under `cline/` (the tools' and the hooks'), as in a project's `.cline/plugins/`;
 * they find the scripts relative to themselves. Cline's skills, workflows and rules are not plugin parts.
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
  return { files }
}
