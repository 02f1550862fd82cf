import { MCP_SERVER_ENTRY } from '../../compile/script-names.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { literalSecretKind } from '../../secrets.js'
import { isRecord } from '../source-text.js'
import type { ImportedMcpServer, ImportedMcpValue, NotCarried, ReadLocation } from '../types.js'

/*
 * Third-party MCP servers, read from each harness's configuration format (the inverse of
 * src/emit/mcp-servers.ts, whose formats are src/compile/harnesses/mcp-formats.ts): a reference to an
 * environment variable, in whatever syntax the file writes it, becomes the variable's name (`fromEnv`
 * in the registry), and a literal that looks like a secret is never carried: it is listed, and the
 * registry names a variable to set in its place.
 */

/** How one format lays out a server entry. */
export interface McpFormat {
  /** The command as one list, `[command, ...args]` (opencode's `local`). */
  commandList?: boolean
  /** The key of a stdio server's environment. */
  envKey: string
  /** The keys that hold a streamable-HTTP server's URL, and the `type`s that say SSE (which no definition has). */
  urlKeys: string[]
  /** A URL key that means SSE, not streamable HTTP (Gemini CLI's and Qwen Code's `url`). */
  sseUrlKey?: string
  /** Codex's keys that name variables: `env_vars`, `bearer_token_env_var`, `env_http_headers`. */
  codexNames?: boolean
  /** Keys of the entry the format has that carry nothing a harness needs from a definition (`type`, `$schema`). */
  ignored?: string[]
}

export const MCP_JSON: McpFormat = { envKey: 'env', urlKeys: ['url'], ignored: ['type'] }
export const GEMINI_SETTINGS: McpFormat = { envKey: 'env', urlKeys: ['httpUrl'], sseUrlKey: 'url', ignored: ['type'] }
export const OPENCODE_CONFIG: McpFormat = { commandList: true, envKey: 'environment', urlKeys: ['url'], ignored: ['type'] }
export const CODEX_CONFIG: McpFormat = { envKey: 'env', urlKeys: ['url'], codexNames: true }
export const VSCODE_CONFIG: McpFormat = { envKey: 'env', urlKeys: ['url'], ignored: ['type'] }

/** A whole value that names a variable: `${X}`, `${env:X}`, `{env:X}`, `$X`. */
const WHOLE_REFERENCE = /^(?:\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}|\{env:([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*))$/
/** A reference inside a longer text, or one a definition cannot say (a default, VS Code's `${input:...}`). */
const ANY_REFERENCE = /\$\{[^}]*\}|\{env:[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/

const BEARER = /^Bearer[ \t]+(.+)$/i

/** An upper-case variable name from words: `github` and `token` -> `GITHUB_TOKEN`. */
function variableName(...words: string[]): string {
  return words.join('_').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase().replace(/^(?=\d)/, '_')
}

/** The bundled server of a compiled registry, started through its launcher (src/emit/mcp-launcher.ts). */
function isCompiledServer(entry: { [key: string]: JsonValue }): boolean {
  return JSON.stringify(entry).includes(`${MCP_SERVER_ENTRY}.cjs`)
}

interface ValueContext {
  server: string
  at: ReadLocation
  notCarried: NotCarried[]
}

/** Why a server cannot be a definition; thrown inside `readServer` and listed for the whole server. */
class Unfit extends Error {}

/**
 * A value as a definition holds it: a whole reference as the variable's name; a literal secret as a
 * variable to set (listed); other literals as they are. A reference inside a longer text has no form.
 */
function value(raw: JsonValue | undefined, field: string, key: string | undefined, context: ValueContext, variable: () => string): ImportedMcpValue {
  if (typeof raw !== 'string') throw new Unfit(`its ${field} is not text`)
  const whole = WHOLE_REFERENCE.exec(raw)
  if (whole) return { env: whole[1] ?? whole[2] ?? whole[3]! }
  const partial = ANY_REFERENCE.exec(raw)
  if (partial) throw new Unfit(`its ${field} has \`${partial[0]}\` in it, and a definition's value is a literal or one whole variable, fromEnv('NAME') (not part of a text, nor with a default or a prompt)`)
  const secret = literalSecretKind(key, raw)
  if (secret) {
    const name = variable()
    context.notCarried.push({ at: context.at, what: `the ${field} of MCP server "${context.server}"`, why: `it is a literal that looks like ${secret}, which the import does not copy: the registry takes it from the environment as fromEnv('${name}'); set ${name} where the harness runs` })
    return { env: name }
  }
  return raw
}

function stringMap(raw: JsonValue | undefined, field: string): Record<string, JsonValue> {
  if (raw === undefined) return {}
  if (!isRecord(raw)) throw new Unfit(`its ${field} is not a map`)
  return raw
}

function readServer(name: string, entry: { [key: string]: JsonValue }, format: McpFormat, context: ValueContext, from: Harness, lineOf: (key: string) => number): ImportedMcpServer {
  const { at } = context
  const server: ImportedMcpServer = { kind: 'mcp-server', name, args: [], env: {}, headers: {}, from, at }
  const used = new Set(format.ignored ?? [])
  if (format.sseUrlKey !== undefined && entry[format.sseUrlKey] !== undefined && !format.urlKeys.some((key) => entry[key] !== undefined)) throw new Unfit('it is an SSE server, and a server definition is stdio or streamable HTTP')
  if (typeof entry.type === 'string' && /^sse$/i.test(entry.type)) throw new Unfit('it is an SSE server, and a server definition is stdio or streamable HTTP')
  const urlKey = format.urlKeys.find((key) => entry[key] !== undefined)
  if (entry.command !== undefined) {
    used.add('command').add('args').add(format.envKey)
    const list = format.commandList && Array.isArray(entry.command) ? entry.command : [entry.command, ...(Array.isArray(entry.args) ? entry.args : entry.args === undefined ? [] : [entry.args])]
    const [command, ...args] = list
    if (typeof command !== 'string' || command === '') throw new Unfit('its command is not text')
    if (ANY_REFERENCE.test(command)) throw new Unfit(`its command has \`${ANY_REFERENCE.exec(command)![0]}\`, and a definition's command is a literal`)
    server.command = command
    server.args = args.map((arg, i) => value(arg, `argument ${i + 1}`, undefined, context, () => variableName(name, 'arg', String(i + 1))))
    for (const [key, raw] of Object.entries(stringMap(entry[format.envKey], format.envKey))) server.env[key] = value(raw, `variable ${key}`, key, context, () => variableName(key))
    if (format.codexNames && entry.env_vars !== undefined) {
      used.add('env_vars')
      if (!Array.isArray(entry.env_vars)) throw new Unfit('its env_vars is not a list')
      for (const variable of entry.env_vars) if (typeof variable === 'string') server.env[variable] = { env: variable }
    }
  } else if (urlKey !== undefined) {
    used.add(urlKey).add('headers')
    const url = entry[urlKey]
    if (typeof url !== 'string') throw new Unfit('its URL is not text')
    if (ANY_REFERENCE.test(url)) throw new Unfit(`its URL has \`${ANY_REFERENCE.exec(url)![0]}\`, and a definition's url is a literal`)
    server.url = url
    const headers = format.codexNames ? stringMap(entry.http_headers, 'http_headers') : stringMap(entry.headers, 'headers')
    for (const [header, raw] of Object.entries(headers)) {
      const bearer = typeof raw === 'string' && header.toLowerCase() === 'authorization' ? BEARER.exec(raw) : null
      if (bearer) {
        const token = value(bearer[1]!, 'bearer token', 'token', context, () => variableName(name, 'token'))
        // A bearer token is a secret whatever it looks like: a literal one is listed too.
        if (typeof token === 'string') {
          const variable = variableName(name, 'token')
          context.notCarried.push({ at, what: `the bearer token of MCP server "${name}"`, why: `it is written in the file, which the import does not copy: the registry takes it from the environment as fromEnv('${variable}'); set ${variable} where the harness runs` })
          server.bearerToken = { env: variable }
        } else server.bearerToken = token
        continue
      }
      server.headers[header] = value(raw, `header ${header}`, header, context, () => variableName(name, header))
    }
    if (format.codexNames) {
      used.add('http_headers').add('bearer_token_env_var').add('env_http_headers')
      if (typeof entry.bearer_token_env_var === 'string') server.bearerToken = { env: entry.bearer_token_env_var }
      for (const [header, variable] of Object.entries(stringMap(entry.env_http_headers, 'env_http_headers'))) if (typeof variable === 'string') server.headers[header] = { env: variable }
    }
  } else throw new Unfit('it has neither a command nor a URL')
  for (const key of Object.keys(entry)) {
    if (!used.has(key)) context.notCarried.push({ at: { file: at.file, line: lineOf(key) }, what: `\`${key}\` of MCP server "${name}"`, why: 'a server definition has no such field; compile writes the server without it' })
  }
  return server
}

/**
 * The servers of a map by name (`mcpServers`, `mcp`, `servers`, `[mcp_servers]`): each a definition, or
 * listed with why not. The compiled registry's own server is listed as the registry's.
 */
export function readMcpServers(servers: JsonValue | undefined, format: McpFormat, from: Harness, file: string, lineOf: (name: string, key?: string) => number): { servers: ImportedMcpServer[]; notCarried: NotCarried[] } {
  const found: ImportedMcpServer[] = []
  const notCarried: NotCarried[] = []
  if (!isRecord(servers)) return { servers: found, notCarried }
  for (const [name, entry] of Object.entries(servers)) {
    const at = { file, line: lineOf(name) }
    if (!isRecord(entry)) {
      notCarried.push({ at, what: `MCP server "${name}"`, why: 'its entry is not a map' })
      continue
    }
    if (isCompiledServer(entry)) {
      notCarried.push({ at, what: `MCP server "${name}"`, why: "unplugin-oac compiled it: it serves a registry's own tools, and that registry holds them" })
      continue
    }
    const own: NotCarried[] = []
    try {
      found.push(readServer(name, entry, format, { server: name, at, notCarried: own }, from, (key) => lineOf(name, key)))
      notCarried.push(...own)
    } catch (error) {
      if (!(error instanceof Unfit)) throw error
      notCarried.push({ at, what: `MCP server "${name}"`, why: `${error.message}; it stays in this file, which compile merges into and never removes` })
    }
  }
  return { servers: found, notCarried }
}
