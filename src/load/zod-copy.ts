import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** A zod 4 version, as zod records it on every schema (`schema._zod.version`). */
export interface ZodVersion {
  major: number
  minor: number
  patch: number
}

/**
 * The project's own copy of zod, as the registry module imported it. zod keeps `.describe()` and
 * `.meta()` in a registry per copy (zod before 4.1.13 does not share it across copies), so only the
 * copy a schema was made with can convert it faithfully; its `toJSONSchema` is that conversion.
 */
export interface ZodCopy {
  version: ZodVersion
  /** Where the copy lives (its `zod/v4/core` module), for messages. */
  location: string
  toJSONSchema(schema: unknown, params: { io: 'input' | 'output'; target: 'draft-2020-12'; unrepresentable: 'throw' }): Record<string, unknown>
}

let probeCount = 0

/**
 * Imports `zod/v4/core` from `folder`, the folder the registry bundle was imported from, so Node
 * resolves it exactly as it resolved the registry's own `import 'zod'` and hands back the same module
 * instance (and with it the same metadata registry). Undefined when the project has no zod.
 */
export async function projectZod(folder: string): Promise<ZodCopy | undefined> {
  const probe = join(folder, `zod-probe-${process.pid}-${++probeCount}.mjs`)
  try {
    await writeFile(
      probe,
      'export { toJSONSchema, version } from "zod/v4/core"\nexport const location = import.meta.resolve("zod/v4/core")\n',
    )
    const core = (await import(pathToFileURL(probe).href)) as { toJSONSchema?: unknown; version?: unknown; location?: unknown }
    if (typeof core.toJSONSchema !== 'function' || !isZodVersion(core.version)) return undefined
    return {
      version: core.version,
      location: typeof core.location === 'string' && core.location.startsWith('file:') ? fileURLToPath(core.location) : String(core.location),
      toJSONSchema: core.toJSONSchema as ZodCopy['toJSONSchema'],
    }
  } catch {
    return undefined
  } finally {
    await rm(probe, { force: true })
  }
}

export function isZodVersion(value: unknown): value is ZodVersion {
  if (typeof value !== 'object' || value === null) return false
  const { major, minor, patch } = value as Record<string, unknown>
  return typeof major === 'number' && typeof minor === 'number' && typeof patch === 'number'
}
