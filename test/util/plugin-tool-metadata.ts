import { z } from 'zod'

/**
 * The metadata registry opencode 1.18.33 builds before converting a plugin tool's arguments
 * (registry.ts in its binary; Kilo 7.7.7, its fork, has the same function and the same
 * `toJSONSchema(z.object(args), { io: 'input', metadata })` call): each zod schema's own `.meta()` and
 * `.description`, read through the zod instance that made the schema, re-registered for the harness's own zod.
 */
export function pluginToolMetadata(schema: z.ZodType): z.core.$ZodRegistry<Record<string, unknown>> {
  const registry = z.registry<Record<string, unknown>>()
  const seen = new WeakSet<object>()
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return
    seen.add(value)
    if ('_zod' in value) {
      const node = value as { meta?: () => unknown; description?: unknown; _zod: { def: unknown } }
      const meta = typeof node.meta === 'function' ? node.meta() : undefined
      const description = typeof node.description === 'string' ? node.description : undefined
      const merged = { ...(typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {}), ...(description ? { description } : {}) }
      if (Object.keys(merged).length > 0) registry.add(value as z.ZodType, merged)
      visit(node._zod.def)
      return
    }
    for (const inner of Object.values(value)) visit(inner)
  }
  visit(schema)
  return registry
}
