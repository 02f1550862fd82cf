import { parse as parseToml } from 'smol-toml'
import { GEMINI_AGENT_KEYS, gemini } from '../../compile/harnesses/gemini.js'
import { qwen } from '../../compile/harnesses/qwen.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { baseName, ImportReadError, isRecord, listFolder, readFrontmatter, readJson, readProjectFile } from '../source-text.js'
import type { HarnessRead, HarnessReader, ImportedAgent, ImportedCommand, NotCarried } from '../types.js'
import { type CommandText, commandFilesIn, commandPromptFrom, readMarkdownCommands, readSkills } from './markdown.js'
import { readInstructionFiles, readRuleFolder, type RuleFolder } from './instructions.js'
import { GEMINI_SETTINGS, readMcpServers } from './mcp-servers.js'

/** Gemini CLI and Qwen Code fill `{{args}}`, the definition's own placeholder (text-syntax.ts, `GEMINI_SYNTAX`). */
/** `!{cmd}` runs a shell command (braces inside it are its own: such a command stays listed). */
const GEMINI_TEXT: CommandText = { placeholder: () => '{{args}}', shell: /!\{([^{}]*)\}/ }

/** Gemini CLI or its fork Qwen Code: where each keeps its files, and which agent keys it accepts (undefined: any). */
interface GeminiFamilyFiles {
  harness: Extract<Harness, 'gemini' | 'qwen'>
  folder: string
  agentFolder: string
  acceptedKeys?: readonly string[]
  commands: 'toml' | 'markdown'
  instructions: string
  ruleFolder?: RuleFolder
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'))

async function readAgents(root: string, family: GeminiFamilyFiles): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  for (const entry of await listFolder(root, family.agentFolder)) {
    if (!entry.isFile || !entry.name.endsWith('.md')) continue
    const file = `${family.agentFolder}/${entry.name}`
    const { data, body, lineOf } = readFrontmatter((await readProjectFile(root, file))!, file)
    const { name, description, tools, model, mcp_servers: servers, ...rest } = data
    const agentName = typeof name === 'string' ? name : baseName(entry.name, '.md')
    const extra: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(rest)) {
      if (family.acceptedKeys === undefined || family.acceptedKeys.includes(key)) extra[key] = value
      else read.notCarried.push({ at: { file, line: lineOf(key) }, what: `\`${key}\` of agent "${agentName}"`, why: 'the harness does not accept it in an agent file, so compile would refuse it' })
    }
    if (servers !== undefined) read.notCarried.push({ at: { file, line: lineOf('mcp_servers') }, what: `the MCP servers of agent "${agentName}"`, why: "servers of one agent are not read yet: move them to the project's settings (every agent's) and import again" })
    const builtins = Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === 'string') : []
    const agent: ImportedAgent = {
      kind: 'agent',
      name: agentName,
      description: typeof description === 'string' ? description : '',
      prompt: body.trimEnd(),
      ...(typeof model === 'string' && { model: { [family.harness]: model } }),
      ...(builtins.length > 0 && { builtinTools: { [family.harness]: builtins } }),
      ...(Object.keys(extra).length > 0 && { harness: { [family.harness]: extra } }),
      from: family.harness,
      at: { file, line: 1 },
    }
    read.definitions.push(agent)
  }
  return read
}

/** Gemini CLI's `.gemini/commands/<name>.toml`: `description` and `prompt`; a subfolder's commands are namespaced (`git/commit.toml` is `git:commit`). */
async function readTomlCommands(root: string, folder: string, from: Harness): Promise<HarnessRead> {
  const found = await commandFilesIn(root, folder, '.toml', gemini.commands[0]!.names.folders !== undefined)
  const read: HarnessRead = { definitions: [], notCarried: found.notCarried }
  for (const { file, name } of found.files) {
    const text = (await readProjectFile(root, file))!
    let data: { [key: string]: JsonValue }
    try {
      data = parseToml(text) as { [key: string]: JsonValue }
    } catch (error) {
      throw new ImportReadError({ file, line: (error as { line?: number }).line ?? 1 }, `this is not TOML (${(error as Error).message.split('\n')[0]})`)
    }
    if (typeof data.prompt !== 'string') {
      read.notCarried.push({ at: { file, line: 1 }, what: `command "${name}"`, why: 'it has no `prompt`' })
      continue
    }
    const { prompt, problems } = commandPromptFrom(data.prompt, name, GEMINI_TEXT)
    // The definition's placeholder is the harness's own: only what is not a placeholder is a problem.
    for (const problem of problems.filter((p) => !p.includes('`{{args}}`, which a definition reads as a placeholder'))) read.notCarried.push({ at: { file, line: 1 }, what: `command "${name}"`, why: problem })
    const command: ImportedCommand = { kind: 'command', name, ...(typeof data.description === 'string' && { description: data.description }), prompt: prompt.trimEnd(), from, at: { file, line: 1 } }
    read.definitions.push(command)
  }
  return read
}

/** The project settings: servers are definitions; hooks (Gemini's own wire) and other keys are listed. */
function readSettings(text: string, file: string, from: Harness): HarnessRead {
  const json = readJson(text, file)
  if (!isRecord(json.value)) return { definitions: [], notCarried: [] }
  const notCarried: NotCarried[] = []
  const servers = readMcpServers(json.value.mcpServers, GEMINI_SETTINGS, from, file, (name, key) => json.lineOf(key === undefined ? ['mcpServers', name] : ['mcpServers', name, key]))
  notCarried.push(...servers.notCarried)
  for (const key of Object.keys(json.value)) {
    if (key === 'mcpServers') continue
    notCarried.push({
      at: { file, line: json.lineOf([key]) },
      what: `\`${key}\``,
      why: key === 'hooks' ? "the imported hooks' runner speaks Claude Code's and Codex's hook wire, not this one; write these as hook definitions by hand" : 'no definition holds this setting; it stays in your settings file, which compile merges into and never removes',
      keyPath: [key],
    })
  }
  return { definitions: servers.servers, notCarried }
}

function geminiFamilyReader(family: GeminiFamilyFiles, commandFolder: string): HarnessReader {
  return {
    harness: family.harness,
    async read(root): Promise<HarnessRead> {
      const read = await readAgents(root, family)
      const commands =
        family.commands === 'toml'
          ? await readTomlCommands(root, commandFolder, family.harness)
          : await readMarkdownCommands(root, commandFolder, family.harness, GEMINI_TEXT, { argumentHint: 'argument-hint', namespaces: qwen.commands[0]!.names.folders !== undefined }).then(({ commands: found, notCarried }) => ({
              definitions: found,
              // `{{args}}` is the placeholder here.
              notCarried: notCarried.filter((item) => !item.why.includes('which a definition reads as the arguments')),
            }))
      read.definitions.push(...commands.definitions)
      read.notCarried.push(...commands.notCarried)
      for (const folder of [...new Set([...describeSkillFolders(family), `${family.folder}/skills`])]) {
        const skills = await readSkills(root, folder, family.harness)
        read.definitions.push(...skills.skills)
        read.notCarried.push(...skills.notCarried)
      }
      const settingsFile = `${family.folder}/settings.json`
      const settings = await readProjectFile(root, settingsFile)
      const parts = [await readInstructionFiles(root, [family.instructions], family.harness)]
      if (settings !== undefined) parts.push(readSettings(settings, settingsFile, family.harness))
      if (family.ruleFolder) parts.push(await readRuleFolder(root, family.ruleFolder, family.harness))
      for (const part of parts) {
        read.definitions.push(...part.definitions)
        read.notCarried.push(...part.notCarried)
      }
      return read
    },
  }
}

const describeSkillFolders = (family: GeminiFamilyFiles) => (family.harness === 'gemini' ? gemini : qwen).skills.folders

/** Gemini CLI's project files: agents (closed frontmatter), TOML commands, skills; servers, GEMINI.md; hooks are listed. */
export const geminiReader = geminiFamilyReader(
  { harness: 'gemini', folder: '.gemini', agentFolder: folderOf(gemini.agentFile('x')), acceptedKeys: GEMINI_AGENT_KEYS.filter((key) => key !== 'mcp_servers'), commands: 'toml', instructions: 'GEMINI.md' },
  folderOf(gemini.commands[0]!.path('x')),
)

/** Qwen Code's project files: agents (lenient frontmatter), Markdown commands, skills; servers, QWEN.md and `.qwen/rules`; hooks are listed. */
export const qwenReader = geminiFamilyReader(
  { harness: 'qwen', folder: '.qwen', agentFolder: folderOf(qwen.agentFile('x')), commands: 'markdown', instructions: 'QWEN.md', ruleFolder: { folder: '.qwen/rules', suffix: '.md', key: 'paths' } },
  folderOf(qwen.commands[0]!.path('x')),
)
