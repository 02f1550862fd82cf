import type { HookEvent } from '../define/hooks.js'
import type { AgentMode, Harness, JsonValue } from '../define/types.js'

/** Where a definition, or a piece the import cannot carry, was read: a project-relative path and a 1-based line. */
export interface ReadLocation {
  file: string
  line: number
}

/** An agent as one harness's files say it: the fields of `defineAgent` that harness can hold. */
export interface ImportedAgent {
  kind: 'agent'
  name: string
  description: string
  prompt: string
  mode?: AgentMode
  model?: Partial<Record<Harness, string>>
  builtinTools?: Partial<Record<Harness, string[]>>
  harness?: Partial<Record<Harness, Record<string, JsonValue>>>
  from: Harness
  at: ReadLocation
}

/** A command: its prompt with a definition's placeholders (`{{args}}`, `{{arg<n>}}`, `{{shell:...}}`). */
export interface ImportedCommand {
  kind: 'command'
  name: string
  description?: string
  prompt: string
  argumentHint?: string
  agent?: string
  /** The model its file names, for the harness it came from (each harness's, once merged). */
  model?: Partial<Record<Harness, string>>
  /** Its file's other keys, kept for the harness it came from (each harness's, once merged). */
  harness?: Partial<Record<Harness, { [key: string]: JsonValue }>>
  from: Harness
  at: ReadLocation
}

/** A skill's folder: SKILL.md's body and every other text file in the folder, by its path there. */
export interface ImportedSkill {
  kind: 'skill'
  name: string
  description: string
  instructions: string
  files: Record<string, string>
  modelInvocation: boolean
  /** The Agent Skills format's optional fields, where SKILL.md gives them in the format's shape. */
  license?: string
  compatibility?: string
  metadata?: Record<string, string>
  allowedTools?: string | string[]
  /** SKILL.md's other keys, kept for the harness it came from (each harness's, once merged). */
  harness?: Partial<Record<Harness, { [key: string]: JsonValue }>>
  from: Harness
  at: ReadLocation
}

/** A shell command a harness runs on an event (Claude Code's hook shape, which Codex reads too). */
export interface ImportedHook {
  kind: 'hook'
  name: string
  on: HookEvent
  /** The harness's own event name the command was written for, as the command reads it on stdin. */
  nativeEvent: string
  command: string
  /** The harness's tool matcher, a regular expression over its tool names (undefined: every tool). */
  matcher?: string
  timeoutMs?: number
  from: Harness
  at: ReadLocation
}

/** Instructions: an instruction file's text (the user's, outside any block of ours), always on or for the files `paths` match. */
export interface ImportedRule {
  kind: 'rule'
  name: string
  description: string
  text: string
  paths?: string[]
  from: Harness
  at: ReadLocation
  /** Where a config names the file for the harness to read (opencode's `instructions`), when one does. */
  listedIn?: ReadLocation
}

/** A value of an MCP server: a literal, or a whole value from the environment (`fromEnv`). */
export type ImportedMcpValue = string | { env: string }

/** A third-party MCP server, stdio (`command`) or streamable HTTP (`url`), its references as variable names. */
export interface ImportedMcpServer {
  kind: 'mcp-server'
  name: string
  command?: string
  args: ImportedMcpValue[]
  env: Record<string, ImportedMcpValue>
  url?: string
  bearerToken?: { env: string }
  headers: Record<string, ImportedMcpValue>
  from: Harness
  at: ReadLocation
}

export type ImportedDefinition = ImportedAgent | ImportedCommand | ImportedSkill | ImportedHook | ImportedRule | ImportedMcpServer

/** Something the import read and cannot carry into a definition: listed for the user with its file and line. */
export interface NotCarried {
  at: ReadLocation
  what: string
  why: string
  /** The key it is in a JSON or TOML file compile merges into, when it is one key: compile's own entries there are told apart. */
  keyPath?: string[]
}

/**
 * A step the user takes before the first compile, for a file the import read whose text the registry now
 * says (an instruction file that is a rule): kept, a harness would read the text twice.
 */
export interface AfterImport {
  at: ReadLocation
  what: string
}

/** What one harness's files hold. */
export interface HarnessRead {
  definitions: ImportedDefinition[]
  notCarried: NotCarried[]
}

/** Reads the files one harness reads in a project. */
export interface HarnessReader {
  harness: Harness
  read(root: string): Promise<HarnessRead>
}
