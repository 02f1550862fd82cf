import { listFolder } from '../source-text.js'
import type { HarnessRead, HarnessReader } from '../types.js'
import { readMcpJson } from './claude.js'
import { readInstructionFiles, readRuleFolder } from './instructions.js'

/*
 * The harnesses whose project files the import reads only for instructions and MCP servers: oh-my-pi
 * and Cline. Their agents, commands and skills are formats the other readers read (`.agents/skills`),
 * or not read yet.
 */

export function joined(...reads: HarnessRead[]): HarnessRead {
  return { definitions: reads.flatMap((read) => read.definitions), notCarried: reads.flatMap((read) => read.notCarried) }
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
