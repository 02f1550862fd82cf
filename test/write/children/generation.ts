import type { OutputFile } from '../../../src/emit/types.js'

/** Files per generation in the crash test, and the largest one (bytes). */
export const FILES = 40
const MAX_SIZE = 96 * 1024

/** Deterministic content of file `index` in generation `g`; its size changes with every generation,
 * so a file cut short is never mistaken for a whole one. */
export function content(g: number, index: number): string {
  const size = 1024 + ((g * 7919 + index * 104_729) % MAX_SIZE)
  const header = `gen=${g} file=${index}\n`
  const unit = `${g}:${index}:abcdefghijklmnopqrstuvwxyz0123456789\n`
  return header + unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + `\nend gen=${g}\n`
}

/** Every file of a generation: owned files in two folders, plus our entries in the user's merge files. */
export function generation(g: number): OutputFile[] {
  const files: OutputFile[] = []
  for (let i = 0; i < FILES; i++) {
    files.push({ kind: 'owned', path: `${i % 2 === 0 ? 'scripts' : '.claude/agents'}/file-${i}.txt`, content: content(g, i) })
  }
  const value = { command: 'node', args: [`gen-${g}`, 'x'.repeat(1 + (g % 5000))] }
  files.push({ kind: 'merge', path: '.mcp.json', format: 'json', entries: [{ keyPath: ['mcpServers', 'oac-tools'], value }] })
  files.push({ kind: 'merge', path: '.codex/agents/planner.toml', format: 'toml', entries: [{ keyPath: ['mcp_servers', 'oac-tools'], value }] })
  return files
}
