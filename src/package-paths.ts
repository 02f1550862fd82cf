import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder of unplugin-oac's own package.json, found from this module wherever it was bundled to. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`unplugin-oac: cannot find its own package.json above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
  return dir
}

export const packageRoot = findPackageRoot()

/** True when running from the TypeScript sources (tests), false from the built dist/. */
const fromSources = fileURLToPath(import.meta.url).startsWith(join(packageRoot, 'src') + sep)

/** Modules of this package that esbuild compiles into generated scripts or into the registry bundle. */
export type OwnModule =
  | 'index'
  | 'load/module-table'
  | 'runtime/script'
  | 'runtime/start'
  | 'runtime/mcp-server'
  | 'runtime/check-zod'
  | 'runtime/check-typebox'
  | 'runtime/check-sinclair-typebox'

/** The absolute path of one of our own modules, from src/ or dist/ to match how we are running. */
export function ownModule(name: OwnModule): string {
  return fromSources ? join(packageRoot, 'src', `${name}.ts`) : join(packageRoot, 'dist', `${name}.js`)
}
