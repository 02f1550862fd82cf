import { kilo } from '../../compile/harnesses/kilo.js'
import { opencode } from '../../compile/harnesses/opencode.js'
import type { AgentMode, Harness, JsonValue } from '../../define/types.js'
import { baseName, filesUnder, isRecord, type JsonFile, listFolder, readFrontmatter, readJson, readProjectFile } from '../source-text.js'
import type { HarnessRead, HarnessReader, ImportedAgent, ImportedCommand } from '../types.js'
import { type CommandText, commandPromptFrom, readMarkdownCommands, readSkills } from './markdown.js'
import { readInstructionFiles } from './instructions.js'
import { OPENCODE_CONFIG, readMcpServers } from './mcp-servers.js'

/** opencode or its fork Kilo: the folders and files it reads (the plural folders too, which unplugin-oac does not write). */
interface OpencodeFamilyFiles {
  harness: Extract<Harness, 'opencode' | 'kilo'>
  agentFolders: string[]
  commandFolders: string[]
  skillFolders: string[]
  configFiles: string[]
  pluginFolders: string[]
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'))

const OPENCODE_FILES: OpencodeFamilyFiles = {
  harness: 'opencode',
  agentFolders: [folderOf(opencode.agentFile('x')), '.opencode/agents'],
  commandFolders: [folderOf(opencode.commands[0]!.path('x')), '.opencode/commands'],
  skillFolders: [...opencode.skills.folders, '.opencode/skills', '.opencode/skill'],
  configFiles: ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'],
  pluginFolders: ['.opencode/plugin', '.opencode/plugins'],
}

const KILO_FILES: OpencodeFamilyFiles = {
  harness: 'kilo',
  agentFolders: [folderOf(kilo.agentFile('x')), '.kilo/agent'],
  commandFolders: [folderOf(kilo.commands[0]!.path('x')), '.kilo/commands'],
  skillFolders: [...kilo.skills.folders, '.kilo/skills'],
  configFiles: ['kilo.json', 'kilo.jsonc', '.kilo/kilo.json', '.kilo/kilo.jsonc'],
  pluginFolders: ['.kilo/plugin', '.kilo/plugins'],
}

/** opencode fills `$ARGUMENTS` and `$n`, with no escape (text-syntax.ts, `OPENCODE_SYNTAX`). */
/** opencode counts from 1 (`$0` is no word); it runs `!`cmd`` anywhere in the text (text-syntax.ts). */
const OPENCODE_TEXT: CommandText = { placeholder: () => '$ARGUMENTS', positional: { pattern: /\$(\d+)/, word: ([n]) => Number(n) }, shell: /!`([^`]+)`/ }

const MODES: readonly string[] = ['subagent', 'primary', 'all']

/**
 * An agent from its fields (a Markdown file's frontmatter, or an `agent` entry of opencode.json):
 * `description`, `mode` and `model` are the definition's; the rest (`permission`, `tools`,
 * `temperature`, ...) stays in `harness.opencode`, which the emitter writes back as given. Its
 * `permission` is kept whole rather than made `builtinTools`: opencode's built-ins are allowed unless
 * denied, and the emitter writes `builtinTools` only for agents that have tools of the registry.
 */
function agentFrom(from: OpencodeFamilyFiles['harness'], name: string, fields: { [key: string]: JsonValue }, prompt: string, at: ImportedAgent['at']): ImportedAgent {
  const { description, mode, model, prompt: _prompt, ...rest } = fields
  return {
    kind: 'agent',
    name,
    description: typeof description === 'string' ? description : '',
    prompt: prompt.trimEnd(),
    // An agent file without `mode` is `all` to opencode; the emitter always writes one.
    mode: typeof mode === 'string' && MODES.includes(mode) ? (mode as AgentMode) : 'all',
    ...(typeof model === 'string' && { model: { [from]: model } }),
    ...(Object.keys(rest).length > 0 && { harness: { [from]: rest } }),
    from,
    at,
  }
}

async function readAgentFiles(root: string, family: OpencodeFamilyFiles): Promise<ImportedAgent[]> {
  const agents: ImportedAgent[] = []
  for (const folder of family.agentFolders) {
    for (const entry of await listFolder(root, folder)) {
      if (!entry.isFile || !entry.name.endsWith('.md')) continue
      const file = `${folder}/${entry.name}`
      const { data, body } = readFrontmatter((await readProjectFile(root, file))!, file)
      agents.push(agentFrom(family.harness, baseName(entry.name, '.md'), data, body, { file, line: 1 }))
    }
  }
  return agents
}

/** opencode.json's agents, commands, servers and instruction files are definitions; the rest stays in the file. */
async function readConfig(root: string, json: JsonFile, file: string, from: OpencodeFamilyFiles['harness']): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  if (!isRecord(json.value)) return read
  for (const [key, value] of Object.entries(json.value)) {
    const line = json.lineOf([key])
    if (key === 'agent' && isRecord(value)) {
      for (const [name, fields] of Object.entries(value)) {
        if (!isRecord(fields)) continue
        if (typeof fields.prompt !== 'string') {
          read.notCarried.push({ at: { file, line: json.lineOf([key, name]) }, what: `agent "${name}"`, why: 'it has no `prompt` text: it changes one of opencode\'s own agents, which no definition does' })
          continue
        }
        read.definitions.push(agentFrom(from, name, fields, fields.prompt, { file, line: json.lineOf([key, name]) }))
      }
    } else if (key === 'command' && isRecord(value)) {
      for (const [name, fields] of Object.entries(value)) {
        if (!isRecord(fields) || typeof fields.template !== 'string') continue
        const at = { file, line: json.lineOf([key, name]) }
        const { prompt, problems } = commandPromptFrom(fields.template, name, OPENCODE_TEXT)
        for (const problem of problems) read.notCarried.push({ at, what: `command "${name}"`, why: problem })
        // Its other keys (`subtask`...) are opencode's own, written into its command file as they are.
        const own = Object.fromEntries(Object.entries(fields).filter(([field, value]) => !['template', 'description', 'agent', 'model'].includes(field) || typeof value !== 'string'))
        const command: ImportedCommand = {
          kind: 'command',
          name,
          ...(typeof fields.description === 'string' && { description: fields.description }),
          prompt: prompt.trimEnd(),
          ...(typeof fields.agent === 'string' && { agent: fields.agent }),
          ...(typeof fields.model === 'string' && { model: { [from]: fields.model } }),
          ...(Object.keys(own).length > 0 && { harness: { [from]: own } }),
          from,
          at,
        }
        read.definitions.push(command)
      }
    } else if (key === 'mcp' && isRecord(value)) {
      const servers = readMcpServers(value, OPENCODE_CONFIG, from, file, (name, field) => json.lineOf(field === undefined ? [key, name] : [key, name, field]))
      read.definitions.push(...servers.servers)
      read.notCarried.push(...servers.notCarried)
    } else if (key === 'instructions' && Array.isArray(value)) {
      // Each a file opencode reads whole beside AGENTS.md: a rule. A glob or a URL names no one file.
      for (const [i, item] of value.entries()) {
        if (typeof item !== 'string') continue
        const path = item.replace(/^\.\//, '')
        const rules = /[*?[{]|^[a-z]+:\/\/|^[/~]/i.test(path) || path.split('/').includes('..') ? undefined : await readInstructionFiles(root, [path], from)
        if (rules && rules.definitions.length + rules.notCarried.length > 0) {
          read.definitions.push(...rules.definitions.map((rule) => ({ ...rule, listedIn: { file, line: json.lineOf([key, i]) } })))
          read.notCarried.push(...rules.notCarried)
        } else if (!rules || (await readProjectFile(root, path)) === undefined) {
          read.notCarried.push({ at: { file, line: json.lineOf([key, i]) }, what: `the instructions "${item}"`, why: 'a rule definition is one file of the project, and this names none (a glob, a URL, a file outside the project or not there)' })
        }
      }
    } else if (key !== '$schema') {
      read.notCarried.push({ at: { file, line }, what: `\`${key}\``, why: 'no definition holds this setting; it stays in your config file, which compile leaves as it is' })
    }
  }
  return read
}

function opencodeFamilyReader(family: OpencodeFamilyFiles): HarnessReader {
  return {
    harness: family.harness,
    async read(root): Promise<HarnessRead> {
      const read: HarnessRead = { definitions: [...(await readAgentFiles(root, family))], notCarried: [] }
      for (const folder of family.commandFolders) {
        const namespaces = (family.harness === 'kilo' ? kilo : opencode).commands[0]!.names.folders !== undefined
        const commands = await readMarkdownCommands(root, folder, family.harness, OPENCODE_TEXT, { model: 'model', namespaces, agent: (data) => (typeof data.agent === 'string' ? { agent: data.agent, keys: ['agent'] } : { keys: [] }) })
        read.definitions.push(...commands.commands)
        read.notCarried.push(...commands.notCarried)
      }
      for (const folder of family.skillFolders) {
        const skills = await readSkills(root, folder, family.harness)
        read.definitions.push(...skills.skills)
        read.notCarried.push(...skills.notCarried)
      }
      for (const file of family.configFiles) {
        const text = await readProjectFile(root, file)
        if (text === undefined) continue
        const config = await readConfig(root, readJson(text, file), file, family.harness)
        read.definitions.push(...config.definitions)
        read.notCarried.push(...config.notCarried)
      }
      for (const folder of family.pluginFolders) {
        for (const path of await filesUnder(root, folder)) {
          read.notCarried.push({ at: { file: `${folder}/${path}`, line: 1 }, what: `the plugin ${folder}/${path}`, why: 'a plugin is code for this harness alone; its hooks could become hook definitions by hand' })
        }
      }
      return read
    },
  }
}

/** opencode's project files: agents (files and opencode.json), commands, skills; servers, instruction files; plugins are listed. */
export const opencodeReader = opencodeFamilyReader(OPENCODE_FILES)

/** Kilo's (opencode's fork, under `.kilo/`): the same formats. */
export const kiloReader = opencodeFamilyReader(KILO_FILES)
