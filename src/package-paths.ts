import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
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

let build: Promise<string> | undefined

/**
 * unplugin-oac's version, and the time this module's file was written: a rebuilt checkout of
 * unplugin-oac (same version, new code) does not reuse what the previous build cached.
 */
export function ownBuild(): Promise<string> {
  build ??= (async () => {
    const [pkg, self] = await Promise.all([readFile(join(packageRoot, 'package.json'), 'utf8'), stat(fileURLToPath(import.meta.url))])
    return `${(JSON.parse(pkg) as { version: string }).version}@${self.mtimeMs}`
  })()
  return build
}

/** True when running from the TypeScript sources (tests), false from the built dist/. */
const fromSources = fileURLToPath(import.meta.url).startsWith(join(packageRoot, 'src') + sep)

/** Modules of this package that esbuild compiles into generated scripts or into the registry bundle. */
export type OwnModule =
  | 'index'
  | 'load/module-table'
  | 'runtime/script'
  | 'runtime/start'
  | 'runtime/hook-start'
  | 'runtime/mcp-server'
  | 'runtime/mcp-bridge'
  | 'runtime/mcp-bridge-start'
  | 'runtime/check-zod'
  | 'runtime/check-typebox'
  | 'runtime/check-sinclair-typebox'

/** The absolute path of one of our own modules, from src/ or dist/ to match how we are running. */
export function ownModule(name: OwnModule): string {
  return fromSources ? join(packageRoot, 'src', `${name}.ts`) : join(packageRoot, 'dist', `${name}.js`)
}
