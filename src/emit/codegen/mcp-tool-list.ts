/* The parts of a tool the MCP server lists besides its input schema (bundle/entries.ts writes them into the server). */
import type { PlannedTool } from '../../compile/plan.js'
import type { ToolEffects } from '../../define/types.js'

/** MCP's name for each effect a tool declares (its tool annotations). */
const ANNOTATIONS: Record<keyof ToolEffects, string> = {
  readOnly: 'readOnlyHint',
  destructive: 'destructiveHint',
  idempotent: 'idempotentHint',
  external: 'openWorldHint',
}

/**
 * The MCP tool annotations of a tool: the hints of its declared effects, each it names and none it
 * does not (MCP's defaults for an absent hint are the cautious ones), and its title, which clients of
 * MCP's first annotations read there (Claude Code names a call `<server> - <annotations.title> (MCP)`);
 * undefined when it has neither.
 */
export function mcpAnnotations(tool: Pick<PlannedTool, 'effects' | 'title'>): { [hint: string]: boolean | string } | undefined {
  if (tool.effects === undefined && tool.title === undefined) return undefined
  const annotations: { [hint: string]: boolean | string } = tool.title === undefined ? {} : { title: tool.title }
  for (const [effect, hint] of Object.entries(ANNOTATIONS) as Array<[keyof ToolEffects, string]>) {
    const value = tool.effects?.[effect]
    if (value !== undefined) annotations[hint] = value
  }
  return annotations
}

/** The output schema MCP can list for a tool: its canonical one when its root is an object (compile warns about the rest). */
export function mcpOutputSchema(tool: PlannedTool): PlannedTool['output'] {
  return tool.output?.type === 'object' ? tool.output : undefined
}
