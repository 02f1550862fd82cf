import { fileURLToPath, pathToFileURL } from 'node:url'
import { projectPath } from '../project-path.js'
import type { Diagnostic } from '../diagnostics.js'
import type { Located } from './locations.js'

export interface ImportContext {
  root: string
  /** Absolute paths of the user's files in the bundle. */
  inputs: readonly string[]
  /** The registry module, relative to the root. */
  registry: string
  /** The bundle that was imported. */
  bundleFile: string
  /** Maps a location in the bundle to the user's file. */
  locate: (location: Located) => Located
}

const FRAME = /^\s*at (?:.*\()?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?\s*$/

function stackFrames(stack: string): Located[] {
  return stack.split('\n').flatMap((line) => {
    const match = FRAME.exec(line)
    if (!match) return []
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!
    return [{ file, line: Number(match[2]), column: Number(match[3]) }]
  })
}

/**
 * Turns an exception thrown while importing the bundled registry into a diagnostic that points at the
 * user's own file and line (its stack frames are mapped back through the bundle's source map), never at the bundle.
 */
export function importFailure(error: unknown, context: ImportContext): Diagnostic {
  const { root, registry, bundleFile } = context
  const message = error instanceof Error ? error.message : String(error)
  const readable = message.replaceAll(pathToFileURL(bundleFile).href, registry).replaceAll(bundleFile, registry)
  const local = new Set(context.inputs)
  const frames = error instanceof Error && error.stack ? stackFrames(error.stack).map(context.locate) : []
  const frame = frames.find((f) => local.has(f.file))
  const missingPackage = (error as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND'
  return {
    severity: 'error',
    code: 'registry-import-failed',
    message: `Importing ${registry} threw: ${readable}`,
    fix: missingPackage
      ? 'Install the missing package in the project, or fix the import.'
      : 'Fix the code that throws while the registry module loads (definitions should not do work at import time).',
    ...(frame ? { file: projectPath(root, frame.file), line: frame.line, column: frame.column } : { file: registry }),
  }
}
