import { posix } from 'node:path'
import { NAMESPACE } from '../compile/command-names.js'
import { harness as describe } from '../compile/harnesses/index.js'
import { BUILTIN_TOOLS, type BuiltinTool } from '../define/hooks.js'
import type { Harness, JsonValue } from '../define/types.js'
import { jsString, jsValue } from '../emit/codegen/escape.js'
import { hookCommandModule } from './hook-command.js'
import type { MergedAgent, MergedRegistry, MergedRule } from './merge.js'
import type { ImportedCommand, ImportedHook, ImportedMcpServer, ImportedMcpValue, ImportedSkill } from './types.js'

/** A file the import writes, its path relative to the project. */
export interface RegistryFile {
  path: string
  content: string
}

/** A text as its own file (a prompt, instructions), ending in one line break. */
const text = (content: string) => `${content.trimEnd()}\n`

/** `{ file: "./prompts/x.md" }` for a text written next to the module. */
const fileRef = (path: string) => `{ file: ${jsString(`./${path}`)} }`

/** Object members, one a line at `indent`, each `key: value` with a trailing comma. */
function members(indent: string, entries: Array<[string, string | undefined]>): string {
  return entries
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${indent}${key}: ${value},\n`)
    .join('')
}

const hasKeys = (value: object) => Object.keys(value).length > 0

function agentCode(agent: MergedAgent, files: RegistryFile[], base: string): string {
  const prompt = `prompts/${agent.name}.md`
  files.push({ path: posix.join(base, prompt), content: text(agent.prompt) })
  return `  defineAgent({\n${members('    ', [
    ['name', jsString(agent.name)],
    ['description', jsString(agent.description)],
    ['prompt', fileRef(prompt)],
    // `subagent` is the default: written only when the files said another.
    ['mode', agent.mode === undefined || agent.mode === 'subagent' ? undefined : jsString(agent.mode)],
    ['model', hasKeys(agent.model) ? jsValue(agent.model as { [key: string]: JsonValue }, '    ') : undefined],
    ['builtinTools', hasKeys(agent.builtinTools) ? jsValue(agent.builtinTools as { [key: string]: JsonValue }, '    ') : undefined],
    ['harness', hasKeys(agent.harness) ? jsValue(agent.harness as { [key: string]: JsonValue }, '    ') : undefined],
  ])}  }),\n`
}

function commandCode(command: ImportedCommand, files: RegistryFile[], base: string): string {
  // A namespace is a folder, as in the harnesses that have one: `commands/git/commit.md`.
  const prompt = `commands/${command.name.split(NAMESPACE).join('/')}.md`
  files.push({ path: posix.join(base, prompt), content: text(command.prompt) })
  return `  defineCommand({\n${members('    ', [
    ['name', jsString(command.name)],
    ['description', command.description === undefined ? undefined : jsString(command.description)],
    ['prompt', fileRef(prompt)],
    ['argumentHint', command.argumentHint === undefined ? undefined : jsString(command.argumentHint)],
    ['agent', command.agent === undefined ? undefined : jsString(command.agent)],
    ['model', command.model && hasKeys(command.model) ? jsValue(command.model as { [key: string]: JsonValue }, '    ') : undefined],
    ['harness', command.harness && hasKeys(command.harness) ? jsValue(command.harness as { [key: string]: JsonValue }, '    ') : undefined],
  ])}  }),\n`
}

function skillCode(skill: ImportedSkill, files: RegistryFile[], base: string): string {
  const folder = `skills/${skill.name}`
  files.push({ path: posix.join(base, folder, 'SKILL.md'), content: text(skill.instructions) })
  const extra = Object.keys(skill.files).sort()
  // Extra files keep their bytes: they are the skill's, not prompts.
  for (const path of extra) files.push({ path: posix.join(base, folder, path), content: skill.files[path]! })
  const filesCode = extra.length === 0 ? undefined : `{\n${extra.map((path) => `      ${jsString(path)}: ${fileRef(`${folder}/${path}`)},\n`).join('')}    }`
  return `  defineSkill({\n${members('    ', [
    ['name', jsString(skill.name)],
    ['description', jsString(skill.description)],
    ['instructions', fileRef(`${folder}/SKILL.md`)],
    ['files', filesCode],
    ['modelInvocation', skill.modelInvocation ? undefined : 'false'],
    ['license', skill.license === undefined ? undefined : jsString(skill.license)],
    ['compatibility', skill.compatibility === undefined ? undefined : jsString(skill.compatibility)],
    ['metadata', skill.metadata === undefined ? undefined : jsValue(skill.metadata, '    ')],
    ['allowedTools', skill.allowedTools === undefined ? undefined : jsValue(skill.allowedTools, '    ')],
    ['harness', skill.harness && hasKeys(skill.harness) ? jsValue(skill.harness as { [key: string]: JsonValue }, '    ') : undefined],
  ])}  }),\n`
}

function ruleCode(rule: MergedRule, files: RegistryFile[], base: string): string {
  const path = `rules/${rule.name}.md`
  files.push({ path: posix.join(base, path), content: text(rule.text) })
  return `  defineRule({\n${members('    ', [
    ['name', jsString(rule.name)],
    ['description', jsString(rule.description)],
    ['text', fileRef(path)],
    ['paths', rule.paths === undefined ? undefined : jsValue(rule.paths)],
  ])}  }),\n`
}

/** A server's value: a literal, or `fromEnv('NAME')`. */
const mcpValue = (value: ImportedMcpValue) => (typeof value === 'string' ? jsString(value) : `fromEnv(${jsString(value.env)})`)

function mcpMap(values: Record<string, ImportedMcpValue>): string | undefined {
  const keys = Object.keys(values)
  return keys.length === 0 ? undefined : `{\n${keys.map((key) => `      ${jsString(key)}: ${mcpValue(values[key]!)},\n`).join('')}    }`
}

const readsEnvironment = (server: ImportedMcpServer) => [...server.args, ...Object.values(server.env), ...Object.values(server.headers), server.bearerToken].some((value) => typeof value === 'object')

function mcpServerCode(server: ImportedMcpServer): string {
  return `  defineMcpServer({\n${members('    ', [
    ['name', jsString(server.name)],
    ['command', server.command === undefined ? undefined : jsString(server.command)],
    ['args', server.args.length === 0 ? undefined : `[${server.args.map(mcpValue).join(', ')}]`],
    ['env', mcpMap(server.env)],
    ['url', server.url === undefined ? undefined : jsString(server.url)],
    ['bearerToken', server.bearerToken === undefined ? undefined : mcpValue(server.bearerToken)],
    ['headers', mcpMap(server.headers)],
  ])}  }),\n`
}

/**
 * The portable built-ins a matcher names, when every alternative of it is one of the harness's
 * built-in names (`Bash`, `Edit|Write`): then the hook's `tools` say it in every harness. Otherwise
 * undefined, and the run matches the harness's tool names itself.
 */
export function matcherTools(hook: ImportedHook): BuiltinTool[] | undefined {
  if (hook.matcher === undefined || (hook.on !== 'beforeTool' && hook.on !== 'afterTool')) return undefined
  const builtins = describe(hook.from).hooks.builtins
  const tools: BuiltinTool[] = []
  for (const name of hook.matcher.split('|')) {
    const tool = BUILTIN_TOOLS.find((candidate) => builtins[candidate]?.includes(name.trim()))
    if (tool === undefined) return undefined
    if (!tools.includes(tool)) tools.push(tool)
  }
  return tools
}

/** The hook's module export (the hook runtime finds a hook by its module's exports): its name in camel case, `claudePreToolUse`. */
function hookIdentifier(hook: ImportedHook): string {
  return hook.name.replace(/[^A-Za-z0-9]+(.)/g, (_, next: string) => next.toUpperCase())
}

function hookCode(hook: ImportedHook): string {
  const tools = matcherTools(hook)
  const spec: { [key: string]: JsonValue } = {
    command: hook.command,
    harness: hook.from,
    event: hook.nativeEvent,
    ...(hook.matcher !== undefined && tools === undefined && { matcher: hook.matcher }),
  }
  const description = `Runs \`${hook.command}\` as ${describe(hook.from).title}'s ${hook.nativeEvent} hook${hook.matcher === undefined ? '' : ` for ${hook.matcher}`} did (${hook.at.file}:${hook.at.line}).`
  return `export const ${hookIdentifier(hook)} = defineHook({\n${members('  ', [
    ['name', jsString(hook.name)],
    ['description', jsString(description)],
    ['on', jsString(hook.on)],
    ['tools', tools === undefined ? undefined : jsValue(tools)],
    // The harnesses went on when a command hook failed; a definition blocks unless it says so.
    ['onError', hook.on === 'beforeTool' ? jsString('allow') : undefined],
    // Claude Code's and Codex's own default for a command is 60 seconds.
    ['timeoutMs', String(hook.timeoutMs ?? 60_000)],
    ['run', `command.${hook.on}(${jsValue(spec, '  ')})`],
  ])}})\n`
}

/** The module name of an import from `from` to `to` (both relative to the project), with the `.js` a module of NodeNext resolves. */
function moduleSpecifier(fromFile: string, toFile: string): string {
  const relative = posix.relative(posix.dirname(fromFile), toFile).replace(/\.ts$/, '.js')
  return relative.startsWith('.') ? relative : `./${relative}`
}

/**
 * The registry module at `out` (relative to the project), its texts as files next to it, and the
 * hooks (with the module their runs come from) as modules of their own. Deterministic: the same
 * definitions give the same bytes.
 */
export function registryFiles(registry: MergedRegistry, out: string, harnesses: readonly Harness[]): RegistryFile[] {
  const base = posix.dirname(out)
  const files: RegistryFile[] = []
  const imports = [
    ...(registry.agents.length > 0 ? ['defineAgent'] : []),
    ...(registry.commands.length > 0 ? ['defineCommand'] : []),
    ...(registry.mcpServers.length > 0 ? ['defineMcpServer'] : []),
    'defineRegistry',
    ...(registry.rules.length > 0 ? ['defineRule'] : []),
    ...(registry.skills.length > 0 ? ['defineSkill'] : []),
    ...(registry.mcpServers.some(readsEnvironment) ? ['fromEnv'] : []),
  ]
  const lists: string[] = [`  agents: [\n${registry.agents.map((agent) => agentCode(agent, files, base).replace(/^(?=.)/gm, '  ')).join('')}  ],\n`]
  if (registry.commands.length > 0) lists.push(`  commands: [\n${registry.commands.map((command) => commandCode(command, files, base).replace(/^(?=.)/gm, '  ')).join('')}  ],\n`)
  if (registry.skills.length > 0) lists.push(`  skills: [\n${registry.skills.map((skill) => skillCode(skill, files, base).replace(/^(?=.)/gm, '  ')).join('')}  ],\n`)
  if (registry.rules.length > 0) lists.push(`  rules: [\n${registry.rules.map((rule) => ruleCode(rule, files, base).replace(/^(?=.)/gm, '  ')).join('')}  ],\n`)
  if (registry.mcpServers.length > 0) lists.push(`  mcpServers: [\n${registry.mcpServers.map((server) => mcpServerCode(server).replace(/^(?=.)/gm, '  ')).join('')}  ],\n`)
  const head = [`import { ${imports.join(', ')} } from 'unplugin-oac'`]
  if (registry.hooks.length > 0) {
    const hooksFile = posix.join(base, 'hooks.ts')
    const helperFile = posix.join(base, 'hook-command.ts')
    const used = [...new Set(registry.hooks.map((hook) => hook.from))].sort((a, b) => harnesses.indexOf(a) - harnesses.indexOf(b))
    files.push({ path: helperFile, content: hookCommandModule(used) })
    files.push({
      path: hooksFile,
      content: `// Written by \`oac import\`: the command hooks of the harnesses' settings, each a definition whose run starts the same command.\nimport { defineHook } from 'unplugin-oac'\nimport * as command from ${jsString(moduleSpecifier(hooksFile, helperFile))}\n\n${registry.hooks.map(hookCode).join('\n')}\nexport const hooks = [${registry.hooks.map(hookIdentifier).join(', ')}]\n`,
    })
    head.push(`import { hooks } from ${jsString(moduleSpecifier(out, hooksFile))}`)
    lists.push('  hooks,\n')
  }
  const source = `// Written by \`oac import\` from the project's harness files: this registry is now their source (oac compile ${out}).\n${head.join('\n')}\n\nexport const registry = defineRegistry({\n${lists.join('')}})\n`
  // Indented one level more inside the lists; blank lines stay blank.
  files.unshift({ path: out, content: source.replace(/^ +$/gm, '') })
  return files
}
