import { copilot } from '../../compile/harnesses/copilot.js'
import type { CommandFile } from '../../compile/harnesses/types.js'
import type { JsonValue } from '../../define/types.js'
import { baseName, isRecord, listFolder, readFrontmatter, readJson, readProjectFile } from '../source-text.js'
import type { HarnessRead, HarnessReader, ImportedAgent } from '../types.js'
import { readMcpJson } from './claude.js'
import { readInstructionFiles, readRuleFolder } from './instructions.js'
import { type CommandText, readMarkdownCommands } from './markdown.js'
import { readMcpServers, VSCODE_CONFIG } from './mcp-servers.js'
import { joined } from './rules-only.js'

/** The folder of `copilot.agentFile`, and the suffix of its agent files. */
const AGENT_FILE = copilot.agentFile('x')
const AGENTS = AGENT_FILE.slice(0, AGENT_FILE.lastIndexOf('/'))
const AGENT_SUFFIX = AGENT_FILE.slice(AGENTS.length + 2)

/** VS Code's prompt files: the command file compile writes for it (`.github/prompts/<name>.prompt.md`). */
const PROMPT_FILE: CommandFile = copilot.commands.find((file) => file.reader === 'VS Code')!
const PROMPTS = PROMPT_FILE.path('x').slice(0, -'/x.prompt.md'.length)

/** VS Code fills `${input:args}` with what the user typed; any other `${...}` is a variable of its own (`${file}`, `${selection}`). */
const VSCODE_TEXT: CommandText = { placeholder: (command) => PROMPT_FILE.args(command), unsaid: /\$\{[^}]*\}/ }

/**
 * `.github/agents/<name>.agent.md` (`.md` too, which Copilot reads as well): `description`, `model`
 * (`model.copilot`), `tools` as written (`builtinTools.copilot`: Copilot's own names and aliases, which
 * the emitter lists as given), every other key into `harness.copilot`.
 */
async function readAgents(root: string): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  for (const entry of await listFolder(root, AGENTS)) {
    if (!entry.isFile || !entry.name.endsWith('.md')) continue
    const file = `${AGENTS}/${entry.name}`
    const { data, body } = readFrontmatter((await readProjectFile(root, file))!, file)
    const { name, description, model, tools, ...rest } = data
    const builtins = Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === 'string') : []
    const agent: ImportedAgent = {
      kind: 'agent',
      name: typeof name === 'string' ? name : entry.name.endsWith(AGENT_SUFFIX) ? baseName(entry.name, AGENT_SUFFIX) : baseName(entry.name, '.md'),
      description: typeof description === 'string' ? description : '',
      prompt: body.trimEnd(),
      ...(typeof model === 'string' && { model: { copilot: model } }),
      ...(builtins.length > 0 && { builtinTools: { copilot: builtins } }),
      ...(Object.keys(rest).length > 0 && { harness: { copilot: rest as { [key: string]: JsonValue } } }),
      from: 'copilot',
      at: { file, line: 1 },
    }
    read.definitions.push(agent)
  }
  return read
}

/**
 * GitHub Copilot's project files: agents, VS Code's prompt files as commands, `.github/copilot-instructions.md`,
 * `.github/instructions/*.instructions.md` (`applyTo`), and the servers of `.mcp.json`, `.github/mcp.json`
 * and `.vscode/mcp.json`. Its skills and the CLI's commands are Claude Code's and the shared folders'.
 */
export const copilotReader: HarnessReader = {
  harness: 'copilot',
  async read(root): Promise<HarnessRead> {
    const servers = [await readMcpJson(root, '.mcp.json', 'copilot'), await readMcpJson(root, '.github/mcp.json', 'copilot')]
    const vscodeFile = '.vscode/mcp.json'
    const vscode = await readProjectFile(root, vscodeFile)
    if (vscode !== undefined) {
      const json = readJson(vscode, vscodeFile)
      servers.push(readMcpServers(isRecord(json.value) ? json.value.servers : undefined, VSCODE_CONFIG, 'copilot', vscodeFile, (name, key) => json.lineOf(key === undefined ? ['servers', name] : ['servers', name, key])))
    }
    const prompts = await readMarkdownCommands(root, PROMPTS, 'copilot', VSCODE_TEXT, {
      suffix: '.prompt.md',
      namespaces: PROMPT_FILE.names.folders !== undefined,
      argumentHint: 'argument-hint',
      agent: (data) => (typeof data.agent === 'string' ? { agent: data.agent, keys: ['agent'] } : { keys: [] }),
    })
    return joined(
      await readAgents(root),
      { definitions: prompts.commands, notCarried: prompts.notCarried },
      await readInstructionFiles(root, ['.github/copilot-instructions.md'], 'copilot'),
      await readRuleFolder(root, { folder: '.github/instructions', suffix: '.instructions.md', key: 'applyTo' }, 'copilot'),
      ...servers.map(({ servers: definitions, notCarried }) => ({ definitions, notCarried })),
    )
  },
}
