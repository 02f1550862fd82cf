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

/**
 * The key path step into a list for an item that is any JSON value (a hook's matcher group in a
 * settings file): `[...list, ARRAY_VALUE, json]` names the element whose value is `json` (the item as
 * `itemKey` writes it), as an entry of ours, owned as an ARRAY_ITEM string is. Its value is the item.
 */
export const ARRAY_VALUE = '[{}]'

/** The key path of the item `value` in the list at `list`. */
export function listItemPath(list: readonly string[], value: JsonValue): string[] {
  return typeof value === 'string' ? [...list, ARRAY_ITEM, value] : [...list, ARRAY_VALUE, itemKey(value)]
}

/** A JSON value as one string whatever its key order, to name it in a key path. */
export function itemKey(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(itemKey).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${itemKey(value[key] as JsonValue)}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** One key path we own inside a user-editable file, and the value it must hold. */
export interface MergeEntry {
  /**
   * e.g. ['mcpServers', 'oac-tools'] in JSON, or ['mcp_servers', 'oac-tools'] / ['name'] in TOML. In
   * JSON, ['permissions', 'allow', '[]', 'x'] is the string item "x" of the list `permissions.allow`
   * (its value is "x"): only that item is ours, never the list (see ARRAY_ITEM).
   */
  keyPath: string[]
  value: JsonValue
  /** The definition to rename so that we no longer write this key, where it is not our server or an agent (a user's `defineMcpServer`). */
  renamed?: string
}

/** Entries we own inside a file the user may also edit: only these keys are touched. */
export interface MergeFile {
  kind: 'merge'
  path: string
  /** `markdown`: each entry a block between marker lines of a Markdown file (key path `[id]`, the block's text as its value). */
  format: 'json' | 'toml' | 'markdown'
  entries: MergeEntry[]
  /** A harness that reads the file as strict JSON, skipping all of it when it holds a comment: the write step then warns about one. */
  strictJsonReader?: string
}

export type OutputFile = OwnedFile | MergeFile
