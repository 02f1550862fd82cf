import type { JsonValue } from '../../define/types.js'
import { filesUnder, isRecord, readJson, readProjectFile } from '../source-text.js'
import type { NotCarried, ReadLocation } from '../types.js'

const SERVERS_LATER = 'third-party MCP servers are carried once `defineMcpServer` exists (issue 35); until then the server stays in this file, which compile merges into and never removes'
const RULES_LATER = 'instructions are carried once `defineRule` exists (issue 34); until then the file stays as it is, and compile does not touch it'

/** The environment variables a server's value refers to (`${GITHUB_TOKEN}`, `{env:X}`), which a `fromEnv` will name. */
export function envReferences(value: JsonValue): string[] {
  const text = JSON.stringify(value)
  const inText = [...text.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}|\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1] ?? match[2]!)
  return [...new Set([...inText, ...namedVariables(value)])]
}

/** Variables Codex's TOML names by key: `env_vars = ["X"]`, `bearer_token_env_var = "X"`. */
function namedVariables(value: JsonValue): string[] {
  if (!isRecord(value)) return []
  return Object.entries(value).flatMap(([key, item]) => {
    if (key === 'env_vars' && Array.isArray(item)) return item.filter((name): name is string => typeof name === 'string')
    if (key.endsWith('_env_var') && typeof item === 'string') return [item]
    return namedVariables(item)
  })
}

/** A server the import lists: its name, and the variables its values refer to. */
export function serverNotCarried(at: ReadLocation, name: string, value: JsonValue): NotCarried {
  const refs = envReferences(value)
  const what = `MCP server "${name}"${refs.length > 0 ? ` (its values refer to ${refs.map((ref) => `\${${ref}}`).join(', ')})` : ''}`
  return { at, what, why: SERVERS_LATER, later: 'defineMcpServer' }
}

/** An instruction file the import lists. */
export function ruleNotCarried(file: string): NotCarried {
  return { at: { file, line: 1 }, what: `the instructions in ${file}`, why: RULES_LATER, later: 'defineRule' }
}

/** The JSON server files (`mcpServers` maps), instruction files and rule folders a harness reads, each entry listed. */
export async function notCarriedYet(root: string, where: { servers?: string[]; serverKey?: string; instructions?: string[]; ruleFolders?: string[] }): Promise<NotCarried[]> {
  const found: NotCarried[] = []
  for (const file of where.servers ?? []) {
    const text = await readProjectFile(root, file)
    if (text === undefined) continue
    const json = readJson(text, file)
    const key = where.serverKey ?? 'mcpServers'
    const servers = isRecord(json.value) ? json.value[key] : undefined
    if (!isRecord(servers)) continue
    for (const [name, value] of Object.entries(servers)) found.push(serverNotCarried({ file, line: json.lineOf([key, name]) }, name, value))
  }
  for (const file of where.instructions ?? []) if ((await readProjectFile(root, file)) !== undefined) found.push(ruleNotCarried(file))
  for (const folder of where.ruleFolders ?? []) for (const path of await filesUnder(root, folder)) if (path.endsWith('.md')) found.push(ruleNotCarried(`${folder}/${path}`))
  return found
}
