import { isRecord, listFolder, readJson, readProjectFile } from '../source-text.js'
import type { HarnessRead, HarnessReader } from '../types.js'
import { readMcpJson } from './claude.js'
import { readInstructionFiles, readRuleFolder } from './instructions.js'
import { readMcpServers, VSCODE_CONFIG } from './mcp-servers.js'

/*
 * The harnesses whose project files the import reads only for instructions and MCP servers: GitHub
 * Copilot, oh-my-pi and Cline. Their agents, commands and skills are Claude Code's files or formats the
 * other readers read (`.claude/commands`, `.agents/skills`), or not read yet.
 */

function joined(...reads: HarnessRead[]): HarnessRead {
  return { definitions: reads.flatMap((read) => read.definitions), notCarried: reads.flatMap((read) => read.notCarried) }
}

/** GitHub Copilot: `.github/copilot-instructions.md`, `.github/instructions/*.instructions.md` (`applyTo`), `.mcp.json`, `.github/mcp.json`, `.vscode/mcp.json`. */
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
    return joined(
      await readInstructionFiles(root, ['.github/copilot-instructions.md'], 'copilot'),
      await readRuleFolder(root, { folder: '.github/instructions', suffix: '.instructions.md', key: 'applyTo' }, 'copilot'),
      ...servers.map(({ servers: definitions, notCarried }) => ({ definitions, notCarried })),
    )
  },
}

/** oh-my-pi: `.omp/rules/*.md` (`globs`, `alwaysApply`), `.omp/mcp.json`. */
export const ompReader: HarnessReader = {
  harness: 'omp',
  async read(root): Promise<HarnessRead> {
    const servers = await readMcpJson(root, '.omp/mcp.json', 'omp')
    return joined(await readRuleFolder(root, { folder: '.omp/rules', suffix: '.md', key: 'globs', alwaysKey: 'alwaysApply' }, 'omp'), { definitions: servers.servers, notCarried: servers.notCarried })
  },
}

/** Cline: `.clinerules` (one file, or a folder of rule files with `paths`), `.cline/rules`. */
export const clineReader: HarnessReader = {
  harness: 'cline',
  async read(root): Promise<HarnessRead> {
    const workflows = { workflows: "Cline's workflows are its commands, which the import does not read yet" }
    const asFolder = (await listFolder(root, '.clinerules')).length > 0
    return joined(
      asFolder ? await readRuleFolder(root, { folder: '.clinerules', suffix: '.md', key: 'paths', otherFolders: workflows }, 'cline') : await readInstructionFiles(root, ['.clinerules'], 'cline'),
      await readRuleFolder(root, { folder: '.cline/rules', suffix: '.md', key: 'paths' }, 'cline'),
    )
  },
}
