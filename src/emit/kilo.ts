import { kilo } from '../compile/harnesses/kilo.js'
import type { Plan } from '../compile/plan.js'
import { emitOpencodeFamily } from './opencode.js'
import type { OutputFile } from './types.js'

/**
 * Kilo (an opencode fork): opencode's tool shims and agent files under `.kilo/`, the folder names of
 * Kilo's docs (Kilo 7.7 reads `{tool,tools}/*.ts` and `{agent,agents}/**\/*.md` there), importing
 * `tool` from Kilo's own plugin package; approval rules go into `.kilo/kilo.json`, which Kilo 7.7
 * reads from its project folders as opencode reads `.opencode/opencode.json`; the MCP servers its project
 * config cannot carry, through our bridge plugin in `.kilo/plugins/` (src/emit/opencode-mcp-bridge.ts).
 */
export function emitKilo(plan: Plan): OutputFile[] {
  return emitOpencodeFamily(plan, { harness: 'kilo', toolFolder: '.kilo/tools', agentFile: kilo.agentFile, pluginPackage: '@kilocode/plugin', configFile: '.kilo/kilo.json', pluginFolder: '.kilo/plugins' })
}
