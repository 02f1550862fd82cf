import { HARNESSES, type Harness } from './define/types.js'

/**
 * How a code comes: always an `error`, always a `warning`, or `either`, as the case is (a hand edit is
 * a warning with force, else an error; a schema construct is an error for one harness, a warning for
 * another). Only a warning can be turned off or down to a note.
 */
export type CodeSeverity = 'error' | 'warning' | 'either'

/**
 * Every diagnostic code unplugin-oac reports, in one place. `Diagnostic.code` takes only these, so a
 * new code fails the type check until it is listed here; a config profile's `diagnostics` and the
 * CLI's `--diagnostic` name them.
 */
const CODES = {
  'agent-description-missing': 'error',
  'agent-duplicate': 'error',
  'agent-field-invalid': 'error',
  'agent-harness-not-json': 'error',
  'agent-name-invalid': 'error',
  'agent-override-unknown-tool': 'error',
  'agent-prompt-invalid': 'error',
  'agent-tool-unknown': 'error',
  'approval-bash-only': 'warning',
  'approval-unsupported': 'warning',
  'bridge-invalid': 'error',
  'bundle-error': 'error',
  'bundle-warning': 'warning',
  'codex-key-unknown': 'error',
  'codex-value-null': 'error',
  'command-agent-unknown': 'error',
  'command-agent-unsupported': 'warning',
  'command-description-missing': 'error',
  'command-duplicate': 'error',
  'command-field-invalid': 'error',
  'command-name-invalid': 'error',
  'command-placeholder': 'error',
  'command-prompt-invalid': 'error',
  'command-skill-same-name': 'error',
  'config-approval-invalid': 'error',
  'config-approval-unknown-tool': 'error',
  'config-diagnostics-invalid': 'error',
  'config-env-invalid': 'error',
  'config-harness-unknown': 'error',
  'config-hook-unknown': 'error',
  'config-mcp-server-unknown': 'error',
  'config-required': 'error',
  'config-unknown': 'error',
  'definition-invalid': 'error',
  'diagnostic-code-unknown': 'warning',
  'diagnostic-error-kept': 'warning',
  'harness-field-reserved': 'error',
  'harness-field-unknown': 'error',
  'hook-description-missing': 'error',
  'hook-duplicate': 'error',
  'hook-event-unknown': 'error',
  'hook-name-invalid': 'error',
  'hook-on-error-invalid': 'error',
  'hook-timeout-invalid': 'error',
  'hook-tool-unknown': 'error',
  'hook-tools-invalid': 'error',
  'hook-unsupported': 'warning',
  internal: 'error',
  'manifest-invalid': 'error',
  'mcp-env-name-invalid': 'error',
  'mcp-server-duplicate': 'error',
  'mcp-server-field-invalid': 'error',
  'mcp-server-field-unused': 'error',
  'mcp-server-name-invalid': 'error',
  'mcp-server-name-ours': 'error',
  'mcp-server-secret-literal': 'error',
  'mcp-server-transport': 'error',
  'mcp-server-url-invalid': 'error',
  'mcp-server-left-out': 'warning',
  'merge-entry-edited': 'either',
  'merge-entry-kept': 'warning',
  'merge-failed': 'error',
  'merge-file-commented': 'warning',
  'merge-key-secret': 'error',
  'merge-key-taken': 'either',
  'merge-parse-error': 'error',
  'merge-unexpected-shape': 'error',
  'output-path-duplicate': 'error',
  'output-path-invalid': 'error',
  'owned-file-edited': 'either',
  'owned-file-kept': 'warning',
  'owned-path-taken': 'either',
  'owner-invalid': 'error',
  'plugin-name-invalid': 'error',
  'plugin-tool-not-native': 'error',
  'plugin-unsupported': 'warning',
  'plugin-version-invalid': 'error',
  'prompt-file-missing': 'error',
  'prompt-placeholder': 'error',
  'registry-build-failed': 'error',
  'registry-export-missing': 'error',
  'registry-import-failed': 'error',
  'registry-not-defined': 'error',
  'registry-not-found': 'error',
  'registry-spec-invalid': 'error',
  'scope-plugin': 'error',
  'secret-literal': 'error',
  'server-name-invalid': 'error',
  'skill-description-long': 'error',
  'skill-description-missing': 'error',
  'skill-duplicate': 'error',
  'skill-field-invalid': 'error',
  'skill-file-invalid': 'error',
  'skill-instructions-invalid': 'error',
  'skill-name-invalid': 'error',
  'skill-placeholder': 'error',
  'skill-tool-unknown': 'error',
  'skill-user-only-unsupported': 'warning',
  'tool-description-missing': 'error',
  'tool-duplicate': 'error',
  'tool-effects-invalid': 'error',
  'tool-input-not-object': 'error',
  'tool-module-missing': 'error',
  'tool-name-builtin': 'error',
  'tool-name-collision': 'error',
  'tool-name-invalid': 'error',
  'tool-name-reserved': 'error',
  'tool-output-not-object': 'warning',
  'tool-output-package': 'error',
  'tool-replaces-nothing': 'warning',
  'tool-schema-unrepresentable': 'error',
  'tool-schema-construct': 'either',
  'tool-schema-unresolved-ref': 'error',
  'tool-schema-unsupported': 'error',
  'tool-schema-zod-copy': 'error',
  'tool-title-invalid': 'error',
  'tools-not-scoped': 'warning',
  'user-scope-left': 'warning',
  'write-locked': 'error',
} as const satisfies Record<string, CodeSeverity>

/** Codes one harness reports about itself, named `<harness>-<code>` (`codex-no-project-root`). */
const HARNESS_PREFIXED = {
  'no-project-root': 'warning',
} as const satisfies Record<string, CodeSeverity>

/** Codes named `<code>-<harness>`, for the harness that refuses (`tool-replaces-builtin-codex`). */
const HARNESS_SUFFIXED = {
  'tool-replaces-builtin': 'error',
} as const satisfies Record<string, CodeSeverity>

export type DiagnosticCode = keyof typeof CODES | `${Harness}-${keyof typeof HARNESS_PREFIXED}` | `${keyof typeof HARNESS_SUFFIXED}-${Harness}`

/** Every code and how it comes, the harness families spelled out for each harness. */
export const DIAGNOSTIC_CODES: ReadonlyMap<string, CodeSeverity> = new Map<string, CodeSeverity>([
  ...Object.entries(CODES),
  ...HARNESSES.flatMap((id) => [
    ...Object.entries(HARNESS_PREFIXED).map(([code, severity]) => [`${id}-${code}`, severity] as const),
    ...Object.entries(HARNESS_SUFFIXED).map(([code, severity]) => [`${code}-${id}`, severity] as const),
  ]),
])
