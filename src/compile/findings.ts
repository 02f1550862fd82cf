import type { SourceLocation } from '../define/types.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import type { Diagnostic } from '../diagnostics.js'
import { diagnosticLocation } from './source.js'

/** Collects the diagnostics of one compile, each placed at the definition it is about. */
export class Findings {
  readonly diagnostics: Diagnostic[] = []

  constructor(private readonly root: string) {}

  error(code: DiagnosticCode, message: string, fix: string, at?: SourceLocation): void {
    this.add('error', code, message, fix, at)
  }

  warning(code: DiagnosticCode, message: string, fix: string, at?: SourceLocation): void {
    this.add('warning', code, message, fix, at)
  }

  add(severity: Diagnostic['severity'], code: DiagnosticCode, message: string, fix: string, at?: SourceLocation): void {
    this.diagnostics.push({ severity, code, message, fix, ...(at && diagnosticLocation(this.root, at)) })
  }

  /** `file:line` of a definition, for messages that name a second location. */
  where(at: SourceLocation): string {
    const { file, line } = diagnosticLocation(this.root, at)
    return `${file}:${line}`
  }
}
