import type { SourceLocation } from './types.js'

/**
 * The location of the code that called a define function, read from a stack trace.
 * `depth` counts frames above this function: 2 is the caller of the define function.
 * Inside a bundled registry it names the bundle; the loader maps it back to the user's file.
 */
export function callerLocation(depth = 2): SourceLocation {
  const holder: { stack?: string } = {}
  const previous = Error.stackTraceLimit
  Error.stackTraceLimit = depth + 2
  Error.captureStackTrace(holder, callerLocation)
  Error.stackTraceLimit = previous
  const frames = (holder.stack ?? '').split('\n').slice(1)
  const frame = frames[depth - 1] ?? ''
  const match = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?\s*$/.exec(frame)
  if (!match) return { file: '<unknown>', line: 0, column: 0 }
  const file = match[1]!.startsWith('file://') ? decodeURIComponent(new URL(match[1]!).pathname) : match[1]!
  return { file, line: Number(match[2]), column: Number(match[3]) }
}
