import type { JsonValue } from '../define/types.js'
import type { MergeEntry, MergeFile } from '../emit/types.js'
import { detectEol, type MergeContext, type MergeFormat, type MergeResult, type PlainValue, type PreviousEntry, staleEntries } from './merge-common.js'

/*
 * Markdown files a user may also write (their AGENTS.md, CLAUDE.md, ...): what we own there is a block
 * between two marker lines, `<!-- oac:begin <id> -->` and `<!-- oac:end <id> -->`, each alone on its
 * line. An entry's key path is `[id]` and its value the block's text. Everything outside our blocks is
 * the user's and keeps every byte: a new block goes at the end, after the user's last line (given a line
 * break if it had none) and one blank line, and taking our last block out takes those again, so the
 * file is what the user had. Their line breaks (CRLF) are used inside our block too.
 */

export function blockBegin(id: string): string {
  return `<!-- oac:begin ${id} -->`
}

export function blockEnd(id: string): string {
  return `<!-- oac:end ${id} -->`
}

/** Where a block lies: its begin line's start, its text's start and end (the end line's start), and past its end line's break. */
interface Block {
  start: number
  bodyStart: number
  bodyEnd: number
  end: number
}

interface Line {
  start: number
  /** The line's text, without its line break. */
  text: string
  /** Past its line break (the text's length for a last line without one). */
  next: number
}

function lines(text: string): Line[] {
  const found: Line[] = []
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    const stop = newline === -1 ? text.length : newline
    const next = newline === -1 ? text.length : newline + 1
    found.push({ start, text: text.slice(start, stop > start && text[stop - 1] === '\r' ? stop - 1 : stop), next })
    start = next
  }
  return found
}

/**
 * Our block `id`: the last begin line that an end line follows, up to the first end line after it.
 * A begin line of the user's own with no end after it, above or below ours, is text like any other.
 */
function findBlock(text: string, id: string): Block | undefined {
  const all = lines(text)
  const open = blockBegin(id)
  const close = blockEnd(id)
  for (let i = all.length - 1; i >= 0; i--) {
    if (all[i]!.text !== open) continue
    const last = all.findIndex((line, j) => j > i && line.text === close)
    if (last === -1) continue
    return { start: all[i]!.start, bodyStart: all[i]!.next, bodyEnd: all[last]!.start, end: all[last]!.next }
  }
  return undefined
}

/** A block's text as we mean it: LF line breaks. */
function blockText(value: JsonValue | PlainValue): string {
  return (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\r\n/g, '\n')
}

/** The lines between the markers as written with `eol`, each ending with it. */
function writtenBody(value: JsonValue, eol: string): string {
  const text = blockText(value)
  return text === '' ? '' : `${text.split('\n').join(eol)}${eol}`
}

function readMarkdown(text: string, keyPath: readonly string[]): PlainValue | undefined {
  if (keyPath.length !== 1) return undefined
  const block = findBlock(text, keyPath[0]!)
  if (!block) return undefined
  const body = text.slice(block.bodyStart, block.bodyEnd).replace(/\r\n/g, '\n')
  return body.endsWith('\n') ? body.slice(0, -1) : body
}

function mergeMarkdown(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[], context: MergeContext): MergeResult {
  const source = text ?? ''
  const eol = detectEol(source)
  let merged = source
  let separator = context.tablesSeparator
  let lineEnd = context.scaffold?.lineEnd

  // Ours taken out; once none is left, the blank line and line break we put before the first go too.
  let removedAtEnd = false
  for (const old of staleEntries(file, previous)) {
    const block = findBlock(merged, old.keyPath[0]!)
    if (!block) continue
    removedAtEnd = block.end === merged.length
    merged = merged.slice(0, block.start) + merged.slice(block.end)
  }
  const oursLeft = file.entries.length > 0 || context.kept.length > 0
  if (!oursLeft) {
    if (removedAtEnd && separator !== undefined && merged.endsWith(separator) && merged.slice(0, merged.length - separator.length).endsWith('\n')) {
      merged = merged.slice(0, merged.length - separator.length)
      if (lineEnd !== undefined && merged.endsWith(lineEnd)) merged = merged.slice(0, merged.length - lineEnd.length)
    }
    return { text: merged }
  }

  for (const entry of file.entries) {
    const id = entry.keyPath[0]!
    const block = findBlock(merged, id)
    if (block) {
      merged = merged.slice(0, block.bodyStart) + writtenBody(entry.value, eol) + merged.slice(block.bodyEnd)
      continue
    }
    const written = `${blockBegin(id)}${eol}${writtenBody(entry.value, eol)}${blockEnd(id)}${eol}`
    if (merged === '') {
      merged = written
      continue
    }
    if (!merged.endsWith('\n')) {
      lineEnd = eol
      merged += eol
    }
    // One blank line between the user's text and our first block; the next block follows ours.
    const followsOurs = file.entries.some((other) => other !== entry && findBlock(merged, other.keyPath[0]!)?.end === merged.length) || context.kept.some((path) => findBlock(merged, path[0]!)?.end === merged.length)
    if (!followsOurs) {
      separator = eol
      merged += eol
    }
    merged += written
  }
  return {
    text: merged,
    ...(separator === undefined ? {} : { tablesSeparator: separator }),
    ...(lineEnd === undefined ? {} : { scaffold: { lineEnd } }),
  }
}

/** A block in the user's text that we did not write: where it starts (it cannot be put back once replaced). */
function markdownDefinition(text: string, entry: MergeEntry): { offset: number } | undefined {
  const block = findBlock(text, entry.keyPath[0]!)
  return block ? { offset: block.start } : undefined
}

export const markdownFormat: MergeFormat = {
  merge: mergeMarkdown,
  read: readMarkdown,
  readBack: (value) => blockText(value),
  definition: markdownDefinition,
}

/** Merges `file`'s blocks into `text` (in memory: a bundle's assets), taking out those of `previous` it no longer has. */
export function mergeMarkdownText(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[]): string {
  return mergeMarkdown(text, file, previous, { kept: [], forced: [] }).text
}
