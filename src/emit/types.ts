import type { JsonValue } from '../define/types.js'

/** A file we generate whole and own: written if changed, removed when no longer generated. */
export interface OwnedFile {
  kind: 'owned'
  /** Relative to the target folder, POSIX separators. */
  path: string
  content: string
  /** Set for files that should be executable. */
  executable?: boolean
}

/**
 * The key path step into a list. A key path `[...list, ARRAY_ITEM, item]` names the string `item`
 * in the list at `list`, as an entry of ours: we own that one element (added when missing, removed
 * once we no longer write it) and no other element of the list. Its value is the item itself. An
 * element the user wrote stays theirs, also when it holds an item we would add. (JSON only.)
 */
export const ARRAY_ITEM = '[]'

/** One key path we own inside a user-editable file, and the value it must hold. */
export interface MergeEntry {
  /**
   * e.g. ['mcpServers', 'oac-tools'] in JSON, or ['mcp_servers', 'oac-tools'] / ['name'] in TOML. In
   * JSON, ['permissions', 'allow', '[]', 'x'] is the string item "x" of the list `permissions.allow`
   * (its value is "x"): only that item is ours, never the list (see ARRAY_ITEM).
   */
  keyPath: string[]
  value: JsonValue
}

/** Entries we own inside a file the user may also edit: only these keys are touched. */
export interface MergeFile {
  kind: 'merge'
  path: string
  format: 'json' | 'toml'
  entries: MergeEntry[]
  /** A harness that reads the file as strict JSON, skipping all of it when it holds a comment: the write step then warns about one. */
  strictJsonReader?: string
}

export type OutputFile = OwnedFile | MergeFile
