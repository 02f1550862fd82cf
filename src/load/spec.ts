import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** A registry named on the command line or in plugin options: a module path and the export to use. */
export interface RegistrySpec {
  /** The module path as given, relative to the project root (or absolute). */
  path: string
  /** The export holding the registry, when the spec names one (else the default export, or the module's one registry). */
  exportName?: string
}

// The export name must be an identifier, so a Windows drive letter (`C:\...`) is never mistaken for one.
const SPEC = /^(.+?)(?:[:#]([A-Za-z_$][\w$]*))?$/

/** Parses `path/to/registry.ts:exportName`, `path#exportName`, or a bare path. */
export function parseRegistrySpec(spec: string): RegistrySpec | undefined {
  const match = SPEC.exec(spec.trim())
  if (!match) return undefined
  return match[2] === undefined ? { path: match[1]! } : { path: match[1]!, exportName: match[2] }
}

const MODULE_EXTENSIONS = ['.ts', '.mts', '.tsx', '.js', '.mjs', '.jsx']

/**
 * Resolves a module path the way the original Python tool's `agents:registry` named a module: a path
 * without extension finds `agents.ts` (or .mts, .js, ...) or `agents/index.ts`. An existing file is used as is.
 */
export function resolveModulePath(path: string): string {
  if (existsSync(path) && statSync(path).isFile()) return path
  const candidates = [...MODULE_EXTENSIONS.map((ext) => path + ext), ...MODULE_EXTENSIONS.map((ext) => join(path, `index${ext}`))]
  return candidates.find((candidate) => existsSync(candidate)) ?? path
}
