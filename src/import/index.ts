import { mkdir, open } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Harness } from '../define/types.js'
import { withoutCompiled } from './compiled-files.js'
import { withoutUnfit } from './fit.js'
import { type Disagreement, type Merged, mergeReads } from './merge.js'
import { claudeReader } from './readers/claude.js'
import { codexReader } from './readers/codex.js'
import { geminiReader, qwenReader } from './readers/gemini.js'
import { kiloReader, opencodeReader } from './readers/opencode.js'
import { copilotReader } from './readers/copilot.js'
import { clineReader, ompReader } from './readers/rules-only.js'
import { rootAgentsMd, withoutAgentsMd } from './readers/instructions.js'
import { readProjectFile } from './source-text.js'
import type { AfterImport, HarnessRead, HarnessReader, NotCarried, ReadLocation } from './types.js'
import { type RegistryFile, registryFiles } from './write-registry.js'

export { ImportReadError } from './source-text.js'
export type { AfterImport, Disagreement, NotCarried, RegistryFile }

/** The harnesses `oac import` reads, in the order that decides a disagreement when `--from` names none. */
export const READERS: readonly HarnessReader[] = [claudeReader, opencodeReader, codexReader, geminiReader, qwenReader, kiloReader, copilotReader, ompReader, clineReader]
export const IMPORTABLE: readonly Harness[] = READERS.map((reader) => reader.harness)

export interface ImportOptions {
  /** The harnesses to read, first wins a disagreement (default: every one with a reader, in READERS' order). */
  from?: readonly Harness[]
  /** The registry module to write, relative to the project (default: agents/registry.ts). */
  out?: string
}

export interface ImportResult {
  files: RegistryFile[]
  registry: Merged['registry']
  notCarried: NotCarried[]
  disagreements: Disagreement[]
  /** The harnesses whose files held a definition. */
  found: Harness[]
  /** The root AGENTS.md, when it holds text of the user's: it stays theirs, and compile adds the rules to it. */
  agentsMd?: ReadLocation
  /** What to delete before the first compile: files whose text is a rule now, which compile writes for every harness itself. */
  afterImport: AfterImport[]
}

export const DEFAULT_OUT = 'agents/registry.ts'

/** Reads a project's harness files and makes the registry files (nothing is written: see `writeImport`). */
export async function importProject(root: string, options: ImportOptions = {}): Promise<ImportResult> {
  const from = options.from ?? IMPORTABLE
  const readers = from.map((id) => {
    const reader = READERS.find((candidate) => candidate.harness === id)
    if (!reader) throw new Error(`oac import reads ${IMPORTABLE.join(', ')}; it cannot read ${id} yet.`)
    return reader
  })
  const read: HarnessRead[] = []
  for (const reader of readers) read.push(await reader.read(root))
  // What unplugin-oac compiled into the project is a registry's output, not the user's: listed, not carried.
  const { reads, notCarried: compiled } = await withoutCompiled(root, read)
  const merged = mergeReads(reads)
  const agentsMd = await rootAgentsMd(root)
  const copies: ReadLocation[] = []
  if (agentsMd !== undefined) {
    // AGENTS.md's text in another file (CLAUDE.md for Claude Code) is no rule: AGENTS.md stays, and says it.
    merged.registry.rules = merged.registry.rules.flatMap((rule) => {
      if (rule.paths !== undefined) return [rule]
      const own = withoutAgentsMd(rule.text, agentsMd)
      if (own === undefined) copies.push(rule.at, ...rule.also)
      return own === undefined ? [] : [{ ...rule, text: own }]
    })
  }
  const fit = withoutUnfit(merged.registry)
  const out = options.out ?? DEFAULT_OUT
  const alwaysOn = fit.registry.rules.some((rule) => rule.paths === undefined)
  const afterImport: AfterImport[] = [
    ...fit.registry.rules.flatMap((rule) =>
      [rule, ...rule.also.map((at) => ({ at, listedIn: undefined }))].map(({ at, listedIn }) => {
        const why = `its text is the rule "${rule.name}" now, which compile writes for every harness (kept, a harness would read it twice, or compile would refuse to overwrite it)`
        return listedIn ? { at: listedIn, what: `take "${at.file}" out of the list: ${why}` } : { at, what: `delete the file: ${why}` }
      }),
    ),
    // Once there are always-on rules, every harness reads AGENTS.md (Claude Code through .claude/CLAUDE.md): a copy of it would be read twice.
    ...(alwaysOn ? copies.map((at) => ({ at, what: 'delete the file: it holds the text of AGENTS.md, which every harness reads once the rules are compiled (kept, it would be read twice)' })) : []),
  ]
  return {
    files: registryFiles(fit.registry, out, from),
    registry: fit.registry,
    notCarried: [...compiled, ...merged.notCarried, ...fit.notCarried],
    disagreements: merged.disagreements,
    found: harnessesWithOwnFiles(readers, reads),
    ...(agentsMd !== undefined && { agentsMd: { file: 'AGENTS.md', line: 1 } }),
    afterImport,
  }
}

/** The harnesses that read a definition from a file no harness before them read (opencode reads Claude Code's skills too). */
function harnessesWithOwnFiles(readers: readonly HarnessReader[], reads: readonly HarnessRead[]): Harness[] {
  const seen = new Set<string>()
  return readers.filter((_, i) => {
    const files = reads[i]!.definitions.map((definition) => definition.at.file)
    const own = files.some((file) => !seen.has(file))
    for (const file of files) seen.add(file)
    return own
  }).map((reader) => reader.harness)
}

/** A file the import would write is there already: it writes nothing. */
export class ImportRefused extends Error {}

/**
 * Writes the files into the project, each new: when any is there already it writes none and says
 * which (a file of the user's is never overwritten). Each file is opened with `wx`, so one that
 * appears meanwhile is not overwritten either.
 */
export async function writeNewFiles(root: string, files: readonly RegistryFile[], fix: string): Promise<void> {
  const present: string[] = []
  for (const file of files) if ((await readProjectFile(root, file.path)) !== undefined) present.push(file.path)
  if (present.length > 0) throw new ImportRefused(`${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} there already, and oac never overwrites a file: nothing was written. ${fix}`)
  for (const file of files) {
    const path = join(root, ...file.path.split('/'))
    await mkdir(dirname(path), { recursive: true })
    const handle = await open(path, 'wx')
    try {
      await handle.writeFile(file.content)
    } finally {
      await handle.close()
    }
  }
}
