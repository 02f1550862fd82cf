import { claude } from '../../compile/harnesses/claude.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { baseName, claudeFrontmatterRepair, type Frontmatter, ImportReadError, isRecord, listFolder, readFrontmatter, readJson, readProjectFile } from '../source-text.js'
import type { HarnessRead, HarnessReader, ImportedAgent, NotCarried } from '../types.js'
import { readCommandHooks } from './command-hooks.js'
import { type CommandText, readMarkdownCommands, readSkills } from './markdown.js'
import { readInstructionFiles, readRuleFolder } from './instructions.js'
import { MCP_JSON, readMcpServers } from './mcp-servers.js'

/** The folder of `claude.agentFile`: where Claude Code reads a project's subagents. */
const AGENTS = claude.agentFile('x').slice(0, -'/x.md'.length)

/** Frontmatter keys a definition's own fields carry; any other stays in `harness.claude`. */
const OWN_KEYS = new Set(['name', 'description', 'tools', 'model'])

/** Claude Code fills `$ARGUMENTS` and `$n`, and reads `\$ARGUMENTS` as the text `$ARGUMENTS` (text-syntax.ts, `CLAUDE_SYNTAX`). */
export const CLAUDE_TEXT: CommandText = {
  // Not after a backslash (text), nor before `[n]` (a positional placeholder).
  placeholder: () => /(?<!\\)\$ARGUMENTS(?!\[)/,
  unescape: (text) => text.replace(/\\\$(?=ARGUMENTS|\d)/g, '$'),
  // It counts from 0: `$0` and `$ARGUMENTS[0]` are the first word (text-syntax.ts).
  positional: { pattern: /(?<!\\)\$(?:ARGUMENTS\[(\d+)\]|(\d+)(?!\w))/, word: ([index]) => Number(index) + 1 },
  shell: /(?<=^|\s)!`([^`]+)`/m,
  frontmatterRepair: claudeFrontmatterRepair,
}

async function readAgents(root: string): Promise<{ agents: ImportedAgent[]; notCarried: NotCarried[] }> {
  const agents: ImportedAgent[] = []
  const notCarried: NotCarried[] = []
  for (const entry of await listFolder(root, AGENTS)) {
    if (!entry.isFile || !entry.name.endsWith('.md')) continue
    const file = `${AGENTS}/${entry.name}`
    let matter: Frontmatter
    try {
      matter = readFrontmatter((await readProjectFile(root, file))!, file, claudeFrontmatterRepair)
    } catch (error) {
      if (!(error instanceof ImportReadError)) throw error
      notCarried.push({ at: error.at, what: `the agent ${file}`, why: 'its frontmatter is not YAML, even as Claude Code repairs it: Claude Code reads no field of it (and without a description, no agent); fix it and import again' })
      continue
    }
    const { data, body, lineOf } = matter
    const name = typeof data.name === 'string' ? data.name : baseName(entry.name, '.md')
    const extra: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(data)) {
      if (OWN_KEYS.has(key)) continue
      // An agent's own hooks run while it works: a definition's agent `hooks` would carry them, but as code.
      if (key === 'hooks') notCarried.push({ at: { file, line: lineOf(key) }, what: `the hooks of agent "${name}"`, why: 'hooks that run for one agent are carried only as code (an agent definition\'s `hooks`); add them there by hand' })
      else extra[key] = value
    }
    // `tools` is a comma-separated list (or a YAML list); no key means every tool.
    const tools = typeof data.tools === 'string' ? data.tools.split(',').map((tool) => tool.trim()).filter(Boolean) : Array.isArray(data.tools) ? data.tools.filter((tool): tool is string => typeof tool === 'string') : []
    // `inherit` is what the emitter writes for an agent without a model.
    const model = typeof data.model === 'string' && data.model !== 'inherit' ? data.model : undefined
    agents.push({
      kind: 'agent',
      name,
      description: typeof data.description === 'string' ? data.description : '',
      prompt: body.trimEnd(),
      ...(model !== undefined && { model: { claude: model } }),
      ...(tools.length > 0 && { builtinTools: { claude: tools } }),
      ...(Object.keys(extra).length > 0 && { harness: { claude: extra } }),
      from: 'claude',
      at: { file, line: 1 },
    })
  }
  return { agents, notCarried }
}

/** What `.claude/settings.json` holds besides hooks: permission items name the harness's own tools, which no approval rule selects. */
function settingsNotCarried(json: ReturnType<typeof readJson>, file: string): NotCarried[] {
  const value = json.value
  if (!isRecord(value)) return []
  const notCarried: NotCarried[] = []
  for (const key of Object.keys(value)) {
    if (key === 'hooks') continue
    if (key === 'permissions' && isRecord(value.permissions)) {
      for (const [list, items] of Object.entries(value.permissions)) {
        if (!Array.isArray(items)) continue
        items.forEach((item, i) => {
          notCarried.push({ at: { file, line: json.lineOf(['permissions', list, i]) }, what: `the permission ${JSON.stringify(item)} (\`permissions.${list}\`)`, why: 'a config\'s approval rules decide for the registry\'s own tools; this one stays in your settings, which compile merges into and never removes' })
        })
      }
      continue
    }
    notCarried.push({ at: { file, line: json.lineOf([key]) }, what: `\`${key}\``, why: 'no definition holds this setting; it stays in your settings file, which compile leaves as it is' })
  }
  return notCarried
}

/** A JSON file of Claude Code's `.mcp.json` shape (`mcpServers`), which the Copilot CLI and oh-my-pi read too. */
export async function readMcpJson(root: string, file: string, from: Harness): Promise<ReturnType<typeof readMcpServers>> {
  const text = await readProjectFile(root, file)
  if (text === undefined) return { servers: [], notCarried: [] }
  const json = readJson(text, file)
  return readMcpServers(isRecord(json.value) ? json.value.mcpServers : undefined, MCP_JSON, from, file, (name, key) => json.lineOf(key === undefined ? ['mcpServers', name] : ['mcpServers', name, key]))
}

/** Claude Code's project files: subagents, commands, skills, hooks (`.claude/settings.json`), `.mcp.json` servers, CLAUDE.md and `.claude/rules`. */
export const claudeReader: HarnessReader = {
  harness: 'claude',
  async read(root): Promise<HarnessRead> {
    const read: HarnessRead = { definitions: [], notCarried: [] }
    const add = (part: { notCarried: NotCarried[] }, definitions: HarnessRead['definitions']) => {
      read.definitions.push(...definitions)
      read.notCarried.push(...part.notCarried)
    }
    const agents = await readAgents(root)
    add(agents, agents.agents)
    for (const file of claude.commands) {
      const folder = file.path('x').slice(0, -'/x.md'.length)
      const commands = await readMarkdownCommands(root, folder, 'claude', CLAUDE_TEXT, {
        argumentHint: file.fields.argumentHint,
        namespaces: file.names.folders !== undefined,
        model: file.fields.model,
        // `context: fork` with `agent` runs the command as that agent (the emitter writes both).
        agent: (data) => (data.context === 'fork' && typeof data.agent === 'string' ? { agent: data.agent, keys: ['context', 'agent'] } : { keys: [] }),
      })
      add(commands, commands.commands)
    }
    for (const folder of claude.skills.folders) {
      const skills = await readSkills(root, folder, 'claude', { unescape: CLAUDE_TEXT.unescape, frontmatterRepair: claudeFrontmatterRepair })
      add(skills, skills.skills)
    }
    const settingsFile = claude.hooks.registration.file()
    const settings = await readProjectFile(root, settingsFile)
    if (settings !== undefined) {
      const json = readJson(settings, settingsFile)
      const hooks = readCommandHooks(json, settingsFile, 'claude')
      add(hooks, hooks.hooks)
      read.notCarried.push(...settingsNotCarried(json, settingsFile))
    }
    const servers = await readMcpJson(root, '.mcp.json', 'claude')
    add(servers, servers.servers)
    const instructions = await readInstructionFiles(root, ['CLAUDE.md', '.claude/CLAUDE.md'], 'claude')
    add(instructions, instructions.definitions)
    const rules = await readRuleFolder(root, { folder: '.claude/rules', suffix: '.md', key: 'paths', repair: claudeFrontmatterRepair }, 'claude')
    add(rules, rules.definitions)
    if ((await readProjectFile(root, 'CLAUDE.local.md')) !== undefined) {
      read.notCarried.push({ at: { file: 'CLAUDE.local.md', line: 1 }, what: 'the instructions in CLAUDE.local.md', why: "they are one person's, kept out of the project's files; they stay as they are" })
    }
    return read
  },
}
