/**
 * A child process for the crash and concurrency tests (bundled by the test with esbuild, then run
 * with plain node). Modes:
 *   loop <target> <owner>                 write generation after generation until killed
 *   once <target> <owner> <generation>    write one generation, print the report as JSON
 *   merge <target> <owner> <iterations>   merge this owner's entries into the shared files, again and again
 */
import type { OutputFile } from '../../../src/emit/types.js'
import { writeOutputs } from '../../../src/write/index.js'
import { generation } from './generation.js'

const [mode, target, owner, count] = process.argv.slice(2) as [string, string, string, string | undefined]

async function write(files: OutputFile[]): Promise<void> {
  const report = await writeOutputs(files, { target, mode: 'write', force: false, owner })
  if (report.diagnostics.length > 0) {
    process.stdout.write(`${JSON.stringify(report.diagnostics)}\n`)
    process.exit(3)
  }
}

if (mode === 'loop') {
  process.stderr.write('ready\n') // the test starts its random countdown to SIGKILL from here
  for (let g = Number(count ?? 0); ; g++) await write(generation(g))
} else if (mode === 'once') {
  await write(generation(Number(count)))
} else if (mode === 'merge') {
  for (let i = 0; i < Number(count); i++) {
    const value = { command: 'node', args: [owner, String(i)] }
    await write([
      { kind: 'merge', path: '.mcp.json', format: 'json', entries: [{ keyPath: ['mcpServers', owner], value }] },
      { kind: 'merge', path: '.codex/agents/shared.toml', format: 'toml', entries: [{ keyPath: ['mcp_servers', owner], value }] },
    ])
  }
}
