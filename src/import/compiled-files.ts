import { join } from 'node:path'
import { DEFAULT_SERVER_NAME } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { MergeFile } from '../emit/types.js'
import { skillLauncherScript } from '../emit/skills.js'
import { jsonFormat } from '../write/json-merge.js'
import { hashBytes, hashValue, type MergeRecord, manifestPath, readManifest } from '../write/manifest.js'
import type { MergeFormat } from '../write/merge-common.js'
import { owners } from '../write/owners.js'
import { tomlFormat } from '../write/toml-merge.js'
import { readProjectFile } from './source-text.js'
import type { HarnessRead, ImportedDefinition, ImportedSkill, NotCarried } from './types.js'

/*
 * A project unplugin-oac compiled into holds the output of a registry: its agents, commands, skills and
 * rules are that registry's definitions, with what compile adds (an agent's and a skill's tool docs, a
 * skill's copies of its tools' scripts). Read back as the user's, they would come back without the tools
 * those parts document, and compile would write them beside the registry's own. They are told by what
 * compile itself writes: the manifest (`.oac/manifest.<server>.json`) that lists each file it wrote whole
 * with the hashes of what it wrote, and each file it merged entries into (a Codex role file, a settings
 * file), whose entries the write stage's own merge takes out again to see what is left of the user's;
 * and, in a tree without a manifest, a skill's copy of a script, made again with the emitter's own
 * function. Each is listed once. A file with the user's text beside ours (the root AGENTS.md and its
 * block of rules, a settings file) stays the user's, read as before.
 */

/** A file compile wrote, as a manifest records it. */
type Listed = { manifest: string } & ({ kind: 'owned'; sha256: readonly string[] } | { kind: 'merge'; merge: MergeRecord })

/** What a manifest says of a file in the project now: compile's whole (edited by hand since, or not). */
interface Compiled {
  manifest: string
  edited: boolean
}

/** The merge formats whose entries can be taken out again to see the user's rest (a Markdown block is read around by the instruction reader). */
const MERGE_FORMATS: Partial<Record<MergeFile['format'], MergeFormat>> = { json: jsonFormat, toml: tomlFormat }

/** The project's manifests: every file they list, and a listed item for each that cannot be read. */
async function manifestRecords(root: string): Promise<{ records: Map<string, Listed>; notCarried: NotCarried[] }> {
  const records = new Map<string, Listed>()
  const notCarried: NotCarried[] = []
  for (const owner of await owners(root)) {
    const path = manifestPath(owner)
    const { manifest, diagnostics } = await readManifest(join(root, path), path, owner)
    if (diagnostics.length > 0) {
      notCarried.push({ at: { file: path, line: 1 }, what: `the list of files unplugin-oac wrote for "${owner}"`, why: 'it is damaged, so the import cannot tell the files compile wrote from yours: every file it lists is read as yours' })
      continue
    }
    for (const [file, { sha256 }] of Object.entries(manifest.files)) records.set(file, { manifest: path, kind: 'owned', sha256 })
    for (const [file, merge] of Object.entries(manifest.merges)) records.set(file, { manifest: path, kind: 'merge', merge })
  }
  return { records, notCarried }
}

/** Tells the files and keys compile wrote in a project by its manifests. */
class CompiledTree {
  private readonly rests = new Map<string, Promise<{ text: string; rest: string; format: MergeFormat } | undefined>>()

  constructor(
    private readonly root: string,
    private readonly records: Map<string, Listed>,
  ) {}

  /** The file, when a manifest says compile wrote all of it. */
  async whole(file: string): Promise<Compiled | undefined> {
    const record = this.records.get(file)
    if (record === undefined) return undefined
    if (record.kind === 'owned') {
      const content = await readProjectFile(this.root, file)
      return content === undefined ? undefined : { manifest: record.manifest, edited: !record.sha256.includes(hashBytes(content)) }
    }
    const merged = await this.rest(file)
    if (merged === undefined || merged.rest.trim() !== '') return undefined
    const edited = record.merge.entries.some((entry) => {
      const now = merged.format.read(merged.text, entry.keyPath)
      return now === undefined || !entry.sha256.includes(hashValue(now))
    })
    return { manifest: record.manifest, edited }
  }

  /** The manifest that lists the file, when every entry at `keyPath` there is one compile merged in. */
  async key(file: string, keyPath: readonly string[]): Promise<string | undefined> {
    const merged = await this.rest(file)
    if (merged === undefined) return undefined
    const ours = merged.format.read(merged.text, keyPath) !== undefined && merged.format.read(merged.rest, keyPath) === undefined
    return ours ? this.records.get(file)!.manifest : undefined
  }

  /** A merged file's text, and what is left of it once the write stage's own merge takes compile's entries out (undefined: none, or not a JSON or TOML merge). */
  private rest(file: string): Promise<{ text: string; rest: string; format: MergeFormat } | undefined> {
    let known = this.rests.get(file)
    if (known === undefined) this.rests.set(file, (known = this.takeOut(file)))
    return known
  }

  private async takeOut(file: string): Promise<{ text: string; rest: string; format: MergeFormat } | undefined> {
    const record = this.records.get(file)
    const format = record?.kind === 'merge' ? MERGE_FORMATS[record.merge.format] : undefined
    const text = format && (await readProjectFile(this.root, file))
    if (record?.kind !== 'merge' || format === undefined || text === undefined) return undefined
    const { merge } = record
    const none: MergeFile = { kind: 'merge', path: file, format: merge.format, entries: [] }
    try {
      const rest = format.merge(text, none, merge.entries, { kept: [], forced: [], ...(merge.tablesSeparator !== undefined && { tablesSeparator: merge.tablesSeparator }), ...(merge.scaffold && { scaffold: merge.scaffold }) }).text
      return { text, rest, format }
    } catch {
      // A file the merge cannot read is not one compile could have left so: the user's, read as before.
      return undefined
    }
  }
}

/** What a definition is called in a listed item. */
function described(definition: ImportedDefinition): string {
  const kind = definition.kind === 'mcp-server' ? 'MCP server' : definition.kind
  return `${kind} "${definition.name}"`
}

const IMPORT_INSTEAD = 'import the registry that holds it rather than its output'

function compiledWhy({ manifest, edited }: Compiled): string {
  return `unplugin-oac compiled this file (${manifest} lists it)${edited ? ', and it was edited by hand since (make the edit in the registry)' : ''}; ${IMPORT_INSTEAD} (where that registry is gone, delete ${manifest} and import again: the files are then read as yours)`
}

/** The folder of a skill (its SKILL.md's), where its other files are. */
const skillFolder = (skill: ImportedSkill) => skill.at.file.slice(0, -'/SKILL.md'.length)

/** The copy of a script a project's skill holds for one of its tools, as compile writes it there. */
function isSkillLauncher(skill: ImportedSkill, path: string, content: string): boolean {
  const launcher = targetOf({ serverName: DEFAULT_SERVER_NAME }).skillLauncher
  return launcher !== undefined && path.endsWith('.mjs') && content === skillLauncherScript(launcher, skill.name, `${skillFolder(skill)}/${path}`, path)
}

/**
 * The reads without what compile wrote: each definition read from a file compile wrote, each skill's
 * copy of a script compile made, each file and key the readers list that compile wrote, listed once
 * with what to import instead; the readers' other items about those files (and the files of a compiled
 * skill's folder) go with them.
 */
export async function withoutCompiled(root: string, reads: readonly HarnessRead[]): Promise<{ reads: HarnessRead[]; notCarried: NotCarried[] }> {
  const { records, notCarried } = await manifestRecords(root)
  const tree = new CompiledTree(root, records)
  const listed = new Set<string>()
  const list = (item: NotCarried, once = item.at.file) => {
    if (listed.has(once)) return
    listed.add(once)
    notCarried.push(item)
  }
  /** The files compile wrote, and the folders of compiled skills, whose other files go with them. */
  const compiledFiles = new Set<string>()
  const compiledFolders: string[] = []
  const definitionsOf: ImportedDefinition[][] = []
  for (const read of reads) {
    const definitions: ImportedDefinition[] = []
    definitionsOf.push(definitions)
    for (const definition of read.definitions) {
      const compiled = await tree.whole(definition.at.file)
      if (compiled) {
        compiledFiles.add(definition.at.file)
        if (definition.kind === 'skill') compiledFolders.push(`${skillFolder(definition)}/`)
        list({ at: { file: definition.at.file, line: 1 }, what: described(definition), why: compiledWhy(compiled) })
        continue
      }
      if (definition.kind !== 'skill') {
        definitions.push(definition)
        continue
      }
      const files: { [path: string]: string } = {}
      for (const [path, content] of Object.entries(definition.files)) {
        const file = `${skillFolder(definition)}/${path}`
        const whole = await tree.whole(file)
        if (whole || isSkillLauncher(definition, path, content)) {
          compiledFiles.add(file)
          list({ at: { file, line: 1 }, what: `the file "${path}" of skill "${definition.name}"`, why: whole ? compiledWhy(whole) : `unplugin-oac generated it: the skill's copy of a tool's script, which compile writes for a tool the skill's definition names; ${IMPORT_INSTEAD}` })
        } else files[path] = content
      }
      definitions.push({ ...definition, files })
    }
  }
  // Once every reader's files are known (a skill folder two harnesses read is compiled for both): the readers' items.
  const left: HarnessRead[] = []
  for (const [i, read] of reads.entries()) {
    const own: NotCarried[] = []
    for (const item of read.notCarried) {
      const { file } = item.at
      if (compiledFiles.has(file) || compiledFolders.some((folder) => file.startsWith(folder))) continue
      // A file compile wrote that holds no definition (a plugin of hooks, a settings file it made): once, as the file it is.
      const whole = await tree.whole(file)
      if (whole) {
        list({ at: { file, line: 1 }, what: `the file ${file}`, why: compiledWhy(whole) })
        continue
      }
      const manifest = item.keyPath && (await tree.key(file, item.keyPath))
      if (manifest) list({ at: item.at, what: item.what, why: `unplugin-oac merged it into this file (${manifest} lists it); ${IMPORT_INSTEAD}` }, `${file}\0${item.keyPath!.join('\0')}`)
      else own.push(item)
    }
    left.push({ definitions: definitionsOf[i]!, notCarried: own })
  }
  return { reads: left, notCarried }
}
