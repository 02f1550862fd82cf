import { parse as parseToml } from 'smol-toml'
import { CODEX_AGENT_KEYS, codex } from '../../compile/harnesses/codex.js'
import type { JsonValue } from '../../define/types.js'
import { baseName, ImportReadError, isRecord, listFolder, readJson, readProjectFile, tomlLine } from '../source-text.js'
import type { HarnessRead, HarnessReader, ImportedCommand, ImportedSkill, NotCarried } from '../types.js'
import { readCommandHooks } from './command-hooks.js'
import { type CommandText, commandPromptFrom, readSkills } from './markdown.js'
import { CODEX_CONFIG, readMcpServers } from './mcp-servers.js'

const AGENTS = codex.agentFile('x').slice(0, -'/x.toml'.length)
const COMMAND_FILE = codex.commands[0]!
const COMMAND_FOLDER = COMMAND_FILE.path('x').slice(0, -'/x/SKILL.md'.length)
const USER_ONLY = codex.skills.userOnly

/** A skill folder's `agents/openai.yaml` that keeps it from the model (`allow_implicit_invocation: false`). */
const userOnlyFile = 'file' in USER_ONLY ? { path: USER_ONLY.file, says: (text: string) => /allow_implicit_invocation:\s*false/.test(text) } : undefined

function parseTomlFile(text: string, file: string): { [key: string]: JsonValue } {
  try {
    return parseToml(text) as { [key: string]: JsonValue }
  } catch (error) {
    const line = (error as { line?: number }).line ?? 1
    throw new ImportReadError({ file, line }, `this is not TOML (${(error as Error).message.split('\n')[0]})`)
  }
}

async function readAgents(root: string): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  for (const entry of await listFolder(root, AGENTS)) {
    if (!entry.isFile || !entry.name.endsWith('.toml')) continue
    const file = `${AGENTS}/${entry.name}`
    const text = (await readProjectFile(root, file))!
    const { name, description, developer_instructions: instructions, model, mcp_servers: servers, ...rest } = parseTomlFile(text, file)
    const agentName = typeof name === 'string' ? name : baseName(entry.name, '.toml')
    const extra: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(rest)) {
      if (CODEX_AGENT_KEYS.includes(key)) extra[key] = value
      else read.notCarried.push({ at: { file, line: tomlLine(text, key) }, what: `\`${key}\` of agent "${agentName}"`, why: 'Codex 0.171 does not accept it in a role file (it drops the whole role), so compile would refuse it' })
    }
    if (isRecord(servers)) {
      for (const server of Object.keys(servers)) read.notCarried.push({ at: { file, line: tomlLine(text, `mcp_servers.${server}`) }, what: `MCP server "${server}" of agent "${agentName}"`, why: "Codex never starts a role file's own servers (a spawned agent gets the session's); move it to .codex/config.toml and import again" })
    }
    read.definitions.push({
      kind: 'agent',
      name: agentName,
      description: typeof description === 'string' ? description : '',
      prompt: typeof instructions === 'string' ? instructions.trimEnd() : '',
      ...(typeof model === 'string' && { model: { codex: model } }),
      ...(Object.keys(extra).length > 0 && { harness: { codex: extra } }),
      from: 'codex',
      at: { file, line: 1 },
    })
  }
  return read
}

/** The text the emitter writes for `{{args}}` in a command's SKILL.md: Codex has no placeholder, so it names the text after `$<command>`. */
const CODEX_TEXT: CommandText = { placeholder: (command) => COMMAND_FILE.args(command) }

/**
 * `.codex/skills`: a folder the user alone starts is a command (what the emitter writes for one,
 * since Codex reads no project prompts); any other is a skill.
 */
async function readCommandSkills(root: string): Promise<HarnessRead> {
  const { skills, notCarried } = await readSkills(root, COMMAND_FOLDER, 'codex', userOnlyFile ? { userOnlyFile } : {})
  const definitions: Array<ImportedCommand | ImportedSkill> = skills.map((skill) => {
    if (skill.modelInvocation || Object.keys(skill.files).length > 0) return skill
    const { prompt, problems } = commandPromptFrom(skill.instructions, skill.name, CODEX_TEXT)
    for (const problem of problems) notCarried.push({ at: skill.at, what: `command "${skill.name}"`, why: problem })
    return { kind: 'command', name: skill.name, description: skill.description, prompt, from: 'codex', at: skill.at }
  })
  return { definitions, notCarried }
}

async function readConfig(root: string): Promise<HarnessRead> {
  const file = '.codex/config.toml'
  const text = await readProjectFile(root, file)
  if (text === undefined) return { definitions: [], notCarried: [] }
  const notCarried: NotCarried[] = []
  const definitions: HarnessRead['definitions'] = []
  for (const [key, value] of Object.entries(parseTomlFile(text, file))) {
    if (key === 'mcp_servers' && isRecord(value)) {
      const servers = readMcpServers(value, CODEX_CONFIG, 'codex', file, (server, field) => tomlLine(text, field === undefined ? `mcp_servers.${server}` : field))
      definitions.push(...servers.servers)
      notCarried.push(...servers.notCarried)
    } else {
      notCarried.push({ at: { file, line: tomlLine(text, key) }, what: `\`${key}\``, why: 'no definition holds this setting; it stays in your config file, which compile merges into and never removes' })
    }
  }
  return { definitions, notCarried }
}

/** Codex's project files: role files, skills, commands as user-only skills, hooks (`.codex/hooks.json`); `[mcp_servers]` of `.codex/config.toml`. */
export const codexReader: HarnessReader = {
  harness: 'codex',
  async read(root): Promise<HarnessRead> {
    const read = await readAgents(root)
    for (const folder of codex.skills.folders) {
      const skills = await readSkills(root, folder, 'codex', userOnlyFile ? { userOnlyFile } : {})
      read.definitions.push(...skills.skills)
      read.notCarried.push(...skills.notCarried)
    }
    const commands = await readCommandSkills(root)
    read.definitions.push(...commands.definitions)
    read.notCarried.push(...commands.notCarried)
    const hooksFile = codex.hooks.registration.file()
    const hooksText = await readProjectFile(root, hooksFile)
    if (hooksText !== undefined) {
      const hooks = readCommandHooks(readJson(hooksText, hooksFile), hooksFile, 'codex')
      read.definitions.push(...hooks.hooks)
      read.notCarried.push(...hooks.notCarried)
    }
    const config = await readConfig(root)
    read.definitions.push(...config.definitions)
    read.notCarried.push(...config.notCarried)
    return read
  },
}
