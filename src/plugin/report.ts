import { relative, resolve, sep } from 'node:path'
import { type Diagnostic, formatDiagnostic, formatDiagnosticBody, OacError } from '../diagnostics.js'
import { showStacks } from '../debug.js'

/** A diagnostic in the shape Rollup, Rolldown and Vite take for `this.error` / `this.warn`. */
export interface BundlerLog {
  message: string
  code?: string
  /** The definition's file, absolute. */
  id?: string
  loc?: { file: string; line: number; column: number }
  /** Empty unless NODE_DEBUG asks for stacks: the stack of a definition problem is our code's, not the user's. */
  stack?: string
}

/** The diagnostics a failed compile carries; any other error (a bug of ours) becomes one diagnostic with its message. */
export function diagnosticsOf(error: unknown): readonly Diagnostic[] {
  if (error instanceof OacError) return error.diagnostics
  const message = error instanceof Error ? (showStacks() ? (error.stack ?? error.message) : error.message) : String(error)
  return [
    {
      severity: 'error',
      code: 'internal',
      message,
      fix: showStacks() ? 'This is a bug in unplugin-oac: please report it with this stack.' : 'This is a bug in unplugin-oac: please report it (NODE_DEBUG=oac:stack adds the stack).',
    },
  ]
}

export function errorsOf(error: unknown): Diagnostic[] {
  return diagnosticsOf(error).filter((d) => d.severity === 'error')
}

/** Where a diagnostic points, as an absolute file and 1-based line and column. */
export function locationOf(diagnostic: Diagnostic, root: string): BundlerLog['loc'] {
  if (!diagnostic.file) return undefined
  return { file: resolve(root, diagnostic.file), line: diagnostic.line ?? 1, column: diagnostic.column ?? 1 }
}

/**
 * One log for one or more diagnostics. The first gives the location, which the bundler prints itself
 * (so its text leaves the place out, unless `placeInText`: Vite prints a warning's text alone); any
 * other keeps its own file and line in the message.
 */
export function bundlerLog(diagnostics: readonly Diagnostic[], root: string, options: { placeInText?: boolean } = {}): BundlerLog {
  const first = diagnostics[0]
  const loc = first && locationOf(first, root)
  return {
    message: diagnostics.map((d, index) => (index === 0 && loc && !options.placeInText ? formatDiagnosticBody(d) : formatDiagnostic(d))).join('\n'),
    ...(first && { code: first.code }),
    ...(loc && { id: loc.file, loc }),
    ...(!showStacks() && { stack: '' }),
  }
}

/** A failed compile as text for a logger (the Vite dev server has no build to fail). */
export function failureText(error: unknown): string {
  return diagnosticsOf(error).map(formatDiagnostic).join('\n')
}

/**
 * Lets a host show warnings again only when they changed: a watch rebuild with the same warnings as
 * the last build it reported stays quiet, as do the several environments of one Vite build.
 */
export class WarningGate {
  private last: string | undefined

  /** The warnings to show now: all of them when they differ from the last ones shown, else none. */
  changed(warnings: readonly Diagnostic[]): readonly Diagnostic[] {
    const key = JSON.stringify(warnings)
    if (key === this.last) return []
    this.last = key
    return warnings
  }

  /** After a failed build the next warnings are shown again, whatever they are. */
  reset(): void {
    this.last = undefined
  }
}

/** What a build did with the agent tree, for one short summary line. */
export interface TreeSummary {
  target: string
  config: string
  written: readonly string[]
  unchanged: readonly string[]
  removed: readonly string[]
  /** True when the build cache served the build: the tree was already as it should be. */
  cached?: boolean
}

/** `agent tree (config prod) in build/: 3 written, 40 unchanged, 0 removed (.claude/ 4, scripts/ 5, ...)`, relative to the root. */
export function summaryLine(summary: TreeSummary, root: string): string {
  const where = relative(root, summary.target).split(sep).join('/')
  const folder = where === '' ? './' : where.startsWith('..') ? `${summary.target}${sep}` : `${where}/`
  const groups = new Map<string, number>()
  for (const path of [...summary.written, ...summary.unchanged]) {
    const slash = path.indexOf('/')
    const group = slash < 0 ? path : path.slice(0, slash + 1)
    groups.set(group, (groups.get(group) ?? 0) + 1)
  }
  const tree = [...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([group, count]) => (group.endsWith('/') ? `${group} ${count}` : group))
  const counts = summary.cached
    ? `${summary.unchanged.length} files up to date (build cache)`
    : `${summary.written.length} written, ${summary.unchanged.length} unchanged, ${summary.removed.length} removed`
  return `agent tree (config ${summary.config}) in ${folder}: ${counts} [${tree.join(', ')}]`
}

/** Lets a host print the tree's summary once per session, then again only for a build that changed the tree. */
export class SummaryGate {
  private shown = false

  changed(summary: TreeSummary): boolean {
    const show = !this.shown || summary.written.length > 0 || summary.removed.length > 0
    this.shown = true
    return show
  }
}
