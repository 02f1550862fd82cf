import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { harness as describe } from '../compile/harnesses/index.js'
import type { Harness } from '../define/types.js'
import { DEFAULT_OUT, IMPORTABLE, importProject, ImportReadError, ImportRefused, writeNewFiles } from '../import/index.js'
import { disagreementMessage } from '../import/merge.js'

const where = (at: { file: string; line: number }) => `${at.file}:${at.line}`

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/** `oac import [dir] [--from claude,opencode,codex] [--out agents/registry.ts] [--dry-run]`: returns the exit code. */
export async function runImport(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values: { from?: string; out?: string; 'dry-run'?: boolean }
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { from: { type: 'string' }, out: { type: 'string' }, 'dry-run': { type: 'boolean' } } }))
  } catch (error) {
    err(`oac: ${(error as Error).message}\nUsage: oac import [dir] [--from ${IMPORTABLE.join(',')}] [--out ${DEFAULT_OUT}] [--dry-run]\n`)
    return 2
  }
  if (positionals.length > 1) {
    err(`oac: oac import takes one folder, not "${positionals[1]}"\n`)
    return 2
  }
  let from: Harness[] | undefined
  if (values.from !== undefined) {
    const names = values.from.split(',').map((name) => name.trim()).filter(Boolean)
    const unknown = names.filter((name) => !(IMPORTABLE as readonly string[]).includes(name))
    if (names.length === 0 || unknown.length > 0) {
      err(`oac: --from takes a comma-separated list of ${IMPORTABLE.join(', ')}; got "${values.from}"\n`)
      return 2
    }
    from = names as Harness[]
  }
  const outFile = (values.out ?? DEFAULT_OUT).replace(/\\/g, '/')
  if (!/\.(?:ts|mts)$/.test(outFile) || outFile.startsWith('/') || outFile.split('/').includes('..')) {
    err(`oac: --out names the registry module to write inside the folder, e.g. ${DEFAULT_OUT}; got "${values.out}"\n`)
    return 2
  }
  const root = resolve(positionals[0] ?? '.')
  try {
    const result = await importProject(root, { ...(from && { from }), out: outFile })
    const { agents, commands, skills, hooks, rules, mcpServers } = result.registry
    if (result.found.length === 0) {
      const agentsMd = result.agentsMd ? ' (AGENTS.md stays yours: the harnesses read it as they did)' : ''
      err(`oac: found no agents, commands, skills, hooks, rules or MCP servers of ${(from ?? IMPORTABLE).map((id) => describe(id).title).join(', ')} in ${positionals[0] ?? '.'}${agentsMd}; oac init starts a registry instead\n`)
      for (const item of result.notCarried) err(`  ${where(item.at)}  ${item.what}: ${item.why}\n`)
      return 1
    }
    const counts = [plural(agents.length, 'agent'), plural(commands.length, 'command'), plural(skills.length, 'skill'), plural(hooks.length, 'hook'), plural(rules.length, 'rule'), plural(mcpServers.length, 'MCP server')].join(', ')
    const lines = [`oac: ${values['dry-run'] ? 'would import' : 'imported'} ${counts} from ${result.found.map((id) => describe(id).title).join(', ')} into ${outFile}`]
    lines.push(...result.files.map((file) => `  ${file.path}`))
    if (result.disagreements.length > 0) lines.push('', 'Said differently in two harnesses:', ...result.disagreements.map((d) => `  ${disagreementMessage(d)}`))
    if (result.notCarried.length > 0) lines.push('', 'Not carried (left as it is, where it is):', ...result.notCarried.map((item) => `  ${where(item.at)}  ${item.what}: ${item.why}`))
    if (result.agentsMd) lines.push('', `${where(result.agentsMd)}  stays yours, and is no rule: compile adds the always-on rules to it, in a block of its own, and every harness reads it`)
    lines.push('', `Next: npx oac compile ${outFile} --dry-run (lists what the first compile would change)`)
    if (result.afterImport.length > 0) lines.push('Before the first compile:', ...result.afterImport.map((item) => `  ${where(item.at)}  ${item.what}`))
    if (!values['dry-run']) await writeNewFiles(root, result.files, `Import into a fresh folder: --out ${freshOut(outFile)}`)
    out(`${lines.join('\n')}\n`)
    return 0
  } catch (error) {
    if (error instanceof ImportReadError || error instanceof ImportRefused) {
      err(`oac: ${error.message}\n`)
      return 1
    }
    throw error
  }
}

/** A registry path in a folder of its own, for the message when the default one is taken. */
function freshOut(out: string): string {
  const parts = out.split('/')
  return [...parts.slice(0, -1), 'imported', parts.at(-1)!].join('/')
}
