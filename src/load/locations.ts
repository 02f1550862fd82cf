import { type SourceMapPayload, SourceMap } from 'node:module'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { everyHook, isMcpServer, isTool } from '../define/guards.js'
import type { RegistryDefinition, SourceLocation } from '../define/types.js'

export interface Located {
  file: string
  line: number
  column: number
}

/**
 * Maps a location in the bundled registry module back to the user's file (the bundle carries no
 * source-map comment, so stack traces name the bundle whatever the host's source-map settings).
 * `bundleFiles` are the paths the bundle may be reported under. The map is parsed on the first
 * location in the bundle: a load that runs no module of the user's (no change) maps none.
 */
export function bundleLocator(bundleFiles: readonly string[], sourceMap: SourceMapPayload, root: string): <L extends Located>(location: L) => L {
  let map: SourceMap | undefined
  return (location) => {
    if (!bundleFiles.includes(location.file)) return location
    map ??= new SourceMap(sourceMap)
    const origin = map.findOrigin(location.line, location.column)
    if (!('fileName' in origin)) return location
    const file = origin.fileName.startsWith('file:') ? fileURLToPath(origin.fileName) : resolve(root, origin.fileName)
    return { ...location, file, line: origin.lineNumber, column: origin.columnNumber }
  }
}

/** Points the `source` of every reachable definition at the user's file (definitions come from this load's own module instance). */
export function relocateDefinitions(registry: RegistryDefinition, locate: (location: SourceLocation) => SourceLocation): void {
  // An agent's tools may hold MCP servers beside tools.
  const tools = (list: unknown) => (Array.isArray(list) ? list.filter((item) => isTool(item) || isMcpServer(item)) : [])
  const hooks = everyHook(registry)
  const definitions: Array<{ source: SourceLocation }> = [registry, ...tools(registry.tools), ...tools(registry.mcpServers), ...hooks, ...hooks.flatMap((hook) => tools(hook.tools))]
  // Agents and skills carry tools of their own; commands and rules none.
  const owners: unknown[] = [registry.agents, registry.skills, registry.commands, registry.rules].flatMap((list) => (Array.isArray(list) ? list : []))
  for (const owner of owners) {
    if (typeof owner === 'object' && owner !== null) definitions.push(owner as { source: SourceLocation }, ...tools((owner as { tools?: unknown }).tools))
  }
  for (const definition of definitions) {
    if (definition.source) (definition as { source: SourceLocation }).source = locate(definition.source)
  }
}
