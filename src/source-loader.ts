import { extname } from 'node:path'
import type { Loader } from 'esbuild'

/** esbuild's loader for a source file whose text a plugin hands over (the registry bundle, the tool scripts). */
export function sourceLoader(file: string): Loader {
  const extension = extname(file)
  if (extension === '.tsx') return 'tsx'
  if (extension === '.jsx') return 'jsx'
  return extension.endsWith('ts') ? 'ts' : 'js'
}
