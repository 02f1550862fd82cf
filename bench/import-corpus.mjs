// Measures `oac import` on hand-written harness configurations: each project folder given is copied
// to a temp folder, imported with the CLI, (optionally) type-checked, compiled back with the API, and
// every agent, command and skill it had is compared by meaning with what compile wrote in its place.
// Usage: npm run build && node bench/import-corpus.mjs [--typecheck] [--verbose] <project folder>...
// (each folder holds one project's harness files; docs/import.md says how the corpus is rebuilt).
import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, relative, resolve } from 'node:path'
import { isDeepStrictEqual, parseArgs } from 'node:util'
import { parse as parseToml } from 'smol-toml'
import { parse as parseYaml } from 'yaml'

const repoRoot = resolve(import.meta.dirname, '..')
const cli = join(repoRoot, 'dist/cli.js')
const { compile } = await import(join(repoRoot, 'dist/api.js'))

const { values, positionals } = parseArgs({ allowPositionals: true, options: { typecheck: { type: 'boolean' }, verbose: { type: 'boolean' } } })
if (positionals.length === 0) {
  console.error('Usage: node bench/import-corpus.mjs [--typecheck] [--verbose] <project folder>...')
  process.exit(2)
}

/** Every file under a folder, by its path there (none when it does not exist). */
async function filesUnder(dir) {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/')).sort()
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return []
    throw error
  }
}

const exists = (path) => stat(path).then(() => true, () => false)

/** A text with the same meaning to a model: line endings, trailing spaces and surrounding blank lines aside. */
const normalText = (text) => text.replace(/\r\n?/g, '\n').split('\n').map((line) => line.trimEnd()).join('\n').trim()

/**
 * Claude Code 2.1.332's second try at frontmatter that is not YAML: a plain value holding `: ` or one of
 * {}[]*&#!|>%@` is put in double quotes, and leading tabs become two spaces each.
 */
function claudeRepair(yaml) {
  return yaml.split('\n').map((line) => {
    const match = /^([a-zA-Z_-]+):\s+(\S.*)$/.exec(line)
    if (!match) return line
    const [, key, value] = match
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return line
    if (value.startsWith('[') && value.endsWith(']')) { try { if (Array.isArray(parseYaml(value))) return line } catch {} }
    if (!/[{}[\]*&#!|>%@`]|: /.test(value)) return line
    return `${key}: "${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
  }).join('\n').replace(/^\t+/gm, (tabs) => '  '.repeat(tabs.length))
}

/** A Markdown file's frontmatter values and body, as a harness reads them (Claude Code's files with its repair). */
function markdown(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { data: {}, body: normalText(text) }
  let data
  try { data = parseYaml(match[1]) } catch { data = parseYaml(claudeRepair(match[1])) }
  return { data: data ?? {}, body: normalText(text.slice(match[0].length)) }
}

/** The user's text of an instruction file: outside unplugin-oac's marked blocks. */
function outsideBlocks(text) {
  return text.replace(/^<!-- oac:begin (\S+) -->\r?\n[\s\S]*?^<!-- oac:end \1 -->\r?\n?/gm, '')
}

/** The text inside unplugin-oac's blocks. */
function insideBlocks(text) {
  return [...text.matchAll(/^<!-- oac:begin (\S+) -->\r?\n([\s\S]*?)^<!-- oac:end \1 -->/gm)].map((match) => match[2]).join('\n')
}

/** Globs as a harness reads them: a list or a comma-joined string, brace lists written out. */
function globs(value) {
  const split = (text) => { const parts = []; let depth = 0; let current = ''; for (const c of text) { if (c === ',' && depth === 0) { parts.push(current); current = ''; continue } if (c === '{') depth++; if (c === '}') depth--; current += c } return [...parts, current] }
  const expand = (glob) => { const m = /^([^{]*)\{([^{}]*)\}(.*)$/.exec(glob); return m ? m[2].split(',').flatMap((choice) => expand(`${m[1]}${choice.trim()}${m[3]}`)) : [glob] }
  const items = typeof value === 'string' ? split(value) : Array.isArray(value) ? value : []
  return [...new Set(items.map((item) => String(item).trim()).filter(Boolean).flatMap(expand))].sort()
}

/** Claude Code reads `tools: Read, Grep` and `tools: [Read, Grep]` alike. */
function listField(value) {
  return typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value
}

/** The fields of two parsed files that differ, by key. */
function differingKeys(original, compiled, same = () => false) {
  const keys = new Set([...Object.keys(original ?? {}), ...Object.keys(compiled ?? {})])
  return [...keys].filter((key) => !isDeepStrictEqual(original?.[key], compiled?.[key]) && !same(key, original?.[key], compiled?.[key])).sort()
}

/** What each harness's files hold that compile writes again: [kind, glob-like folder, file test]. */
const MARKDOWN_AGENTS = ['.claude/agents', '.opencode/agent', '.opencode/agents', '.kilo/agents', '.kilo/agent', '.gemini/agents', '.qwen/agents']
const MARKDOWN_COMMANDS = ['.claude/commands', '.opencode/command', '.opencode/commands', '.kilo/command', '.kilo/commands', '.qwen/commands']
const SKILL_FOLDERS = ['.claude/skills', '.agents/skills', '.opencode/skill', '.opencode/skills', '.codex/skills', '.gemini/skills', '.qwen/skills', '.kilo/skills']

/** Where compile writes a definition read from `folder`: the same folder, else that harness's folder of the other spelling. */
function compiledCandidates(folder, name) {
  const alternates = { '.opencode/agents': '.opencode/agent', '.opencode/commands': '.opencode/command', '.kilo/agent': '.kilo/agents', '.kilo/commands': '.kilo/command', '.opencode/skill': '.agents/skills', '.opencode/skills': '.agents/skills', '.codex/skills': '.agents/skills', '.gemini/skills': '.agents/skills', '.qwen/skills': '.agents/skills', '.kilo/skills': '.agents/skills' }
  return [`${folder}/${name}`, ...(alternates[folder] ? [`${alternates[folder]}/${name}`] : [])]
}

async function findCompiled(back, folder, name) {
  for (const candidate of compiledCandidates(folder, name)) if (await exists(join(back, candidate))) return candidate
  return undefined
}

/** Compares every agent, command and skill of the original project with what compile wrote; gives one row per definition. */
async function compare(project, back) {
  const rows = []
  const add = (kind, file, lost) => rows.push({ kind, file, lost })
  for (const folder of MARKDOWN_AGENTS) {
    for (const path of (await filesUnder(join(project, folder))).filter((p) => p.endsWith('.md') && !p.includes('/'))) {
      const file = `${folder}/${path}`
      const compiledPath = await findCompiled(back, folder, path)
      if (!compiledPath) { add('agent', file, ['the agent (no file written)']); continue }
      const original = markdown(await readFile(join(project, file), 'utf8'))
      const compiled = markdown(await readFile(join(back, compiledPath), 'utf8'))
      const lost = differingKeys(original.data, compiled.data, (key, a, b) =>
        // Claude Code runs an agent file without `model` on the session's model: `inherit`, which compile writes.
        (key === 'model' && folder === '.claude/agents' && a === undefined && b === 'inherit') ||
        // opencode reads an agent file without `mode` as `all`, which compile writes.
        (key === 'mode' && folder.startsWith('.opencode/') && a === undefined && b === 'all') ||
        (key === 'tools' && isDeepStrictEqual(listField(a), listField(b)))).map((key) => `field \`${key}\``)
      if (original.body !== compiled.body) lost.push('prompt text')
      add('agent', file, lost)
    }
  }
  for (const path of (await filesUnder(join(project, '.codex/agents'))).filter((p) => p.endsWith('.toml') && !p.includes('/'))) {
    const file = `.codex/agents/${path}`
    if (!(await exists(join(back, file)))) { add('agent', file, ['the agent (no file written)']); continue }
    const role = (text) => { const data = parseToml(text); return { ...data, developer_instructions: normalText(String(data.developer_instructions ?? '')) } }
    const original = role(await readFile(join(project, file), 'utf8'))
    const compiled = role(await readFile(join(back, file), 'utf8'))
    add('agent', file, differingKeys(original, compiled).map((key) => (key === 'developer_instructions' ? 'prompt text' : `field \`${key}\``)))
  }
  for (const { file: config, key } of [{ file: 'opencode.json', key: 'agent' }, { file: 'opencode.jsonc', key: 'agent' }]) {
    if (!(await exists(join(project, config)))) continue
    const { parse } = await import('jsonc-parser')
    const agents = parse(await readFile(join(project, config), 'utf8'))?.[key] ?? {}
    for (const [name, entry] of Object.entries(agents)) {
      if (typeof entry?.prompt !== 'string') continue // a built-in agent's settings: the import lists it
      const file = `${config}#agent.${name}`
      const compiledPath = await findCompiled(back, '.opencode/agent', `${name}.md`)
      if (!compiledPath) { add('agent', file, ['the agent (no file written)']); continue }
      const compiled = markdown(await readFile(join(back, compiledPath), 'utf8'))
      const { prompt, ...fields } = entry
      const lost = differingKeys(fields, compiled.data).map((k) => `field \`${k}\``)
      if (normalText(prompt) !== compiled.body) lost.push('prompt text')
      add('agent', file, lost)
    }
  }
  for (const folder of MARKDOWN_COMMANDS) {
    for (const path of (await filesUnder(join(project, folder))).filter((p) => p.endsWith('.md'))) {
      const file = `${folder}/${path}`
      // A command in a subfolder is namespaced (`git:commit`), and each of these harnesses writes it in the same subfolder.
      const compiledPath = await findCompiled(back, folder, path)
      if (!compiledPath) { add('command', file, ['the command (no file written)']); continue }
      const original = markdown(await readFile(join(project, file), 'utf8'))
      const compiled = markdown(await readFile(join(back, compiledPath), 'utf8'))
      const lost = differingKeys(original.data, compiled.data).map((key) => `field \`${key}\``)
      if (original.body !== compiled.body) lost.push('command text')
      add('command', file, lost)
    }
  }
  for (const path of (await filesUnder(join(project, '.gemini/commands'))).filter((p) => p.endsWith('.toml'))) {
    const file = `.gemini/commands/${path}`
    if (!(await exists(join(back, file)))) { add('command', file, ['the command (no file written)']); continue }
    const command = (text) => { const data = parseToml(text); return { ...data, prompt: normalText(String(data.prompt ?? '')) } }
    const original = command(await readFile(join(project, file), 'utf8'))
    const compiled = command(await readFile(join(back, file), 'utf8'))
    add('command', file, differingKeys(original, compiled).map((key) => (key === 'prompt' ? 'command text' : `field \`${key}\``)))
  }
  for (const folder of SKILL_FOLDERS) {
    let names
    try { names = (await readdir(join(project, folder), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort() } catch { continue }
    for (const name of names) {
      const dir = `${folder}/${name}`
      if (!(await exists(join(project, dir, 'SKILL.md')))) continue
      const lost = []
      const original = markdown(await readFile(join(project, dir, 'SKILL.md'), 'utf8'))
      // A harness names a skill by SKILL.md's `name`, which compile names its folder by.
      const compiledDir = (await findCompiled(back, folder, `${name}/SKILL.md`))?.replace(/\/SKILL\.md$/, '') ??
        (typeof original.data.name === 'string' ? (await findCompiled(back, folder, `${original.data.name}/SKILL.md`))?.replace(/\/SKILL\.md$/, '') : undefined)
      if (!compiledDir) { add('skill', dir, ['the skill (no SKILL.md written)']); continue }
      if (compiledDir.split('/').at(-1) !== name) lost.push(`folder name (written as ${compiledDir})`)
      const compiled = markdown(await readFile(join(back, compiledDir, 'SKILL.md'), 'utf8'))
      lost.push(...differingKeys(original.data, compiled.data).map((key) => `field \`${key}\``))
      if (original.body !== compiled.body) lost.push('SKILL.md text')
      for (const extra of (await filesUnder(join(project, dir))).filter((p) => p !== 'SKILL.md')) {
        const before = await readFile(join(project, dir, extra))
        const after = await readFile(join(back, compiledDir, extra)).catch(() => undefined)
        if (!after) lost.push(`file ${extra}`)
        else if (!before.equals(after)) lost.push(`file ${extra} (changed)`)
      }
      add('skill', dir, lost)
    }
  }
  await compareRules(project, back, add)
  await compareServers(project, back, add)
  return rows
}

/** Instruction files a harness reads whole, and the folders of rule files (their globs' key, a key that says always on). */
const INSTRUCTION_FILES = ['CLAUDE.md', '.claude/CLAUDE.md', 'GEMINI.md', 'QWEN.md', '.github/copilot-instructions.md']
const RULE_FOLDERS = [
  { folder: '.claude/rules', suffix: '.md', key: 'paths' },
  { folder: '.github/instructions', suffix: '.instructions.md', key: 'applyTo' },
  { folder: '.qwen/rules', suffix: '.md', key: 'paths' },
  { folder: '.omp/rules', suffix: '.md', key: 'globs', always: 'alwaysApply' },
  { folder: '.cline/rules', suffix: '.md', key: 'paths' },
]
/**
 * Where compile writes a rule for the files of globs: each harness that scopes rules by path, with its
 * key. Copilot CLI, beside Claude Code (the compile back selects every harness), reads the rule from
 * `.claude/rules` by its `paths:`, so no `.github/instructions` copy is written (docs/instructions.md).
 */
const SCOPED_OUT = [
  { file: (name) => `.claude/rules/${name}.md`, key: 'paths' },
  { file: (name) => `.qwen/rules/${name}.md`, key: 'paths' },
]

/**
 * Each instruction file's text comes back once: an always-on one in the block of rules of AGENTS.md
 * (which every harness reads once compiled), a path rule in each scoped folder with the same globs;
 * the root AGENTS.md's own text stays the user's, so the block must not hold it again.
 */
async function compareRules(project, back, add) {
  const compiledAgents = await readFile(join(back, 'AGENTS.md'), 'utf8').catch(() => '')
  const block = normalText(insideBlocks(compiledAgents))
  const agentsMd = normalText(outsideBlocks(await readFile(join(project, 'AGENTS.md'), 'utf8').catch(() => '')))
  // On lines of its own: a short AGENTS.md (`CLAUDE.md`, a link stored as text) is a word of other texts.
  const holds = (text, part) => `\n${text}\n`.includes(`\n${part}\n`)
  if (agentsMd !== '') add('rule', 'AGENTS.md', holds(block, agentsMd) ? ['its text twice (the block of rules holds it again)'] : [])
  const always = async (file, text) => {
    const own = normalText(outsideBlocks(text).replace(/^[ \t]*@(?:\.\/|\.\.\/)?AGENTS\.md[ \t]*$/gm, ''))
    if (own === '') return
    // AGENTS.md's text in it stays in AGENTS.md (a copy of AGENTS.md is AGENTS.md); the rest is in the block.
    const rest = agentsMd !== '' && holds(own, agentsMd) ? `\n${own}\n`.replace(`\n${agentsMd}\n`, '\n').trim() : own
    add('rule', file, rest === '' || holds(block, rest) ? [] : ['the text (not in the rules of AGENTS.md)'])
  }
  for (const file of INSTRUCTION_FILES) {
    const text = await readFile(join(project, file), 'utf8').catch(() => undefined)
    if (text !== undefined) await always(file, text)
  }
  for (const { folder, suffix, key, always: alwaysKey } of RULE_FOLDERS) {
    for (const path of (await filesUnder(join(project, folder))).filter((p) => p.endsWith(suffix) && !p.includes('/'))) {
      const file = `${folder}/${path}`
      const text = await readFile(join(project, file), 'utf8')
      const original = markdown(text)
      const paths = globs(original.data[key])
      if ((alwaysKey && original.data[alwaysKey] === true) || paths.length === 0 || paths.every((glob) => ['**', '**/*', '*'].includes(glob))) { await always(file, original.body); continue }
      const name = path.slice(0, -suffix.length).replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
      const lost = []
      for (const out of SCOPED_OUT) {
        const compiledText = await readFile(join(back, out.file(name)), 'utf8').catch(() => undefined)
        if (compiledText === undefined) { lost.push(`the rule (no ${out.file(name)} written)`); continue }
        const compiled = markdown(compiledText)
        if (!isDeepStrictEqual(globs(compiled.data[out.key]), paths)) lost.push(`its globs in ${out.file(name)}`)
        if (compiled.body !== original.body) lost.push(`its text in ${out.file(name)}`)
      }
      add('rule', file, lost)
    }
  }
}

/** The MCP server maps of each configuration file, and the file compile writes the same servers into (oh-my-pi reads `.mcp.json`). */
const SERVER_FILES = [
  { file: '.mcp.json', key: 'mcpServers', back: '.mcp.json', parse: 'json' },
  { file: '.omp/mcp.json', key: 'mcpServers', back: '.mcp.json', parse: 'json' },
  { file: '.vscode/mcp.json', key: 'servers', back: '.vscode/mcp.json', parse: 'json' },
  { file: 'opencode.json', key: 'mcp', back: '.opencode/opencode.json', parse: 'json' },
  { file: 'opencode.jsonc', key: 'mcp', back: '.opencode/opencode.json', parse: 'json' },
  { file: '.opencode/opencode.json', key: 'mcp', back: '.opencode/opencode.json', parse: 'json' },
  { file: 'kilo.json', key: 'mcp', back: '.kilo/kilo.json', parse: 'json' },
  { file: 'kilo.jsonc', key: 'mcp', back: '.kilo/kilo.json', parse: 'json' },
  { file: '.gemini/settings.json', key: 'mcpServers', back: '.gemini/settings.json', parse: 'json' },
  { file: '.qwen/settings.json', key: 'mcpServers', back: '.qwen/settings.json', parse: 'json' },
  { file: '.codex/config.toml', key: 'mcp_servers', back: '.codex/config.toml', parse: 'toml' },
]

/** Each server comes back with the same fields, in the file of the format it was written in (a stdio `type` said or not alike). */
async function compareServers(project, back, add) {
  const { parse: parseJsonc } = await import('jsonc-parser')
  const read = async (path, parse) => { const text = await readFile(path, 'utf8').catch(() => undefined); return text === undefined ? undefined : parse === 'toml' ? parseToml(text) : parseJsonc(text) }
  // A stdio `type` said or not, and an empty `env`, `args` or `headers`, say the same.
  const empty = (value) => (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && value !== null && Object.keys(value).length === 0)
  const plain = (entry) => Object.fromEntries(Object.entries(entry ?? {}).filter(([key, value]) => !empty(value) && !(key === 'type' && value === 'stdio')))
  for (const { file, key, back: backFile, parse } of SERVER_FILES) {
    const servers = (await read(join(project, file), parse))?.[key]
    if (!servers || typeof servers !== 'object') continue
    const compiled = (await read(join(back, backFile), parse))?.[key] ?? {}
    for (const [name, entry] of Object.entries(servers)) {
      const lost = []
      if (!(name in compiled)) lost.push(`the server (not in ${backFile})`)
      else for (const field of differingKeys(plain(entry), plain(compiled[name]))) lost.push(`field \`${field}\``)
      add('server', `${file}#${name}`, lost)
    }
  }
}

/** The "Not carried" lines the CLI printed: `path:line  what: why`. */
function notCarried(out) {
  const start = out.indexOf('Not carried (left as it is, where it is):')
  if (start < 0) return []
  const items = []
  for (const line of out.slice(start).split('\n').slice(1)) {
    const match = /^ {2}(\S+:\d+) {2}(.*?): (.*)$/.exec(line)
    if (match) items.push({ at: match[1], what: match[2], why: match[3] })
    else if (!line.startsWith('  ')) break
  }
  return items
}

/** A short name for what kind of thing a not-carried item is, for the totals. */
function reason(item) {
  if (/^(agent|command|skill) "/.test(item.what) && item.why.startsWith('its name ')) return `${item.what.split(' ')[0]}s whose name no definition takes`
  if (/^(agent|command|skill) "/.test(item.what) && item.why.startsWith('it has no description')) return `${item.what.split(' ')[0]}s without a description`
  if (/^`[^`]+` of rule /.test(item.what)) return 'a field of rules'
  if (/^the (rule|files in|instructions)/.test(item.what) || /^rule "/.test(item.what)) return `instructions: ${item.why.slice(0, 60)}`
  if (/ of MCP server /.test(item.what)) return /literal|written in the file/.test(item.why) ? 'a literal secret of an MCP server (a variable named in its place)' : 'a field of MCP servers'
  if (/MCP server/.test(item.what)) return 'MCP servers'
  if (item.what.startsWith('the permission')) return 'permissions'
  if (/^the commands in .*\/$/.test(item.what)) return 'commands in subfolders (namespaced)'
  if (/hook/.test(item.what)) return 'hooks of other types or events'
  if (item.what.startsWith('the plugin')) return 'opencode plugins (code)'
  if (/^`[^`]+` of (agent|command|skill)/.test(item.what)) return `a field of ${/of (agent|command|skill)/.exec(item.what)[1]}s`
  if (/^the file .* of skill/.test(item.what)) return item.why.startsWith('compile writes') ? "Codex's agents/openai.yaml with more than its policy" : 'non-text skill files'
  if (/^`[^`]+`$/.test(item.what)) return 'settings keys'
  if (/^command /.test(item.what) && /^(its text has|it uses )/.test(item.why)) return 'commands whose text a harness reads as syntax no placeholder says (a variable, a "```!" block, `$5`)'
  if (/^command /.test(item.what)) return `command: ${item.why.replace(/".*?"/g, '"…"').slice(0, 60)}`
  return item.what.replace(/".*?"/g, '"…"')
}

function typecheck(work, registries) {
  const tsconfig = join(work, 'tsconfig.json')
  return writeFile(tsconfig, JSON.stringify({
    compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], strict: true, skipLibCheck: true, allowImportingTsExtensions: true, noEmit: true, paths: { 'unplugin-oac': [join(repoRoot, 'dist/index.d.ts')] } },
    files: registries,
  })).then(() => spawnSync(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', tsconfig], { cwd: work, encoding: 'utf8' }))
}

const work = await mkdtemp(join(tmpdir(), 'oac-import-corpus-'))
await symlink(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir')
await writeFile(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
const results = []
for (const source of positionals) {
  const name = basename(resolve(source))
  const project = join(work, name)
  await cp(resolve(source), project, { recursive: true })
  const result = { name, harnesses: '', rows: [], notCarried: [], failure: undefined, nothing: undefined, typecheck: undefined }
  results.push(result)
  const imported = spawnSync(process.execPath, [cli, 'import', project], { encoding: 'utf8' })
  if (imported.status !== 0) {
    const said = (imported.stderr || imported.stdout).trim().split('\n')[0].replace(project, '.')
    // Nothing to carry (only an AGENTS.md, which stays the user's) is no failure; anything else is.
    if (/: found no agents/.test(said)) result.nothing = said
    else result.failure = `import: ${said}`
    continue
  }
  result.harnesses = /from (.*) into /.exec(imported.stdout)?.[1] ?? ''
  result.notCarried = notCarried(imported.stdout)
  try {
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root: project, target: 'back' })
    const errors = compiled.diagnostics.filter((d) => d.severity === 'error')
    if (errors.length > 0) { result.failure = `compile: ${errors[0].message}`; continue }
  } catch (error) {
    result.failure = `compile: ${String(error.message ?? error).split('\n')[0]}`
    continue
  }
  result.rows = await compare(resolve(source), join(project, 'back'))
  if (values.typecheck) {
    const checked = await typecheck(work, [relative(work, join(project, 'agents/registry.ts'))])
    result.typecheck = checked.status === 0 ? 'ok' : (checked.stdout + checked.stderr).trim().split('\n')[0]
  }
}

const pad = (text, width) => String(text).padEnd(width)
const count = (rows, kind) => { const of = rows.filter((r) => r.kind === kind); return `${of.filter((r) => r.lost.length === 0).length}/${of.length}` }
console.log([pad('project', 48), pad('from', 28), pad('agents', 8), pad('cmds', 8), pad('skills', 8), pad('rules', 8), pad('servers', 8), pad('listed', 7), ...(values.typecheck ? [pad('tsc', 5)] : []), 'result'].join(' '))
const totals = { nothingLost: 0, loses: 0, failed: 0, nothing: 0 }
const lostReasons = new Map()
const bump = (key) => lostReasons.set(key, (lostReasons.get(key) ?? 0) + 1)
for (const r of results) {
  const lostRows = r.rows.filter((row) => row.lost.length > 0)
  const verdict = r.failure ? 'FAILED' : r.nothing ? 'nothing to import' : lostRows.length === 0 && r.notCarried.length === 0 ? 'nothing lost' : 'loses something'
  totals[{ FAILED: 'failed', 'nothing to import': 'nothing', 'nothing lost': 'nothingLost', 'loses something': 'loses' }[verdict]]++
  console.log([pad(r.name, 48), pad(r.harnesses.slice(0, 28), 28), pad(count(r.rows, 'agent'), 8), pad(count(r.rows, 'command'), 8), pad(count(r.rows, 'skill'), 8), pad(count(r.rows, 'rule'), 8), pad(count(r.rows, 'server'), 8), pad(r.notCarried.length, 7), ...(values.typecheck ? [pad(r.typecheck ?? '-', 5)] : []), verdict].join(' '))
  if (r.failure) console.log(`    ${r.failure}`)
  if (r.nothing && values.verbose) console.log(`    ${r.nothing}`)
  const seen = new Set()
  for (const row of lostRows) for (const what of row.lost) {
    const key = `${row.kind}: ${what.replace(/^file .*?( \(changed\))?$/, 'a file beside SKILL.md$1').replace(/ \(written as .*\)$/, '')}`
    if (!seen.has(key)) { seen.add(key); bump(`(compared) ${key}`) }
    if (values.verbose) console.log(`    ${row.file}: ${what}`)
  }
  const reasons = new Set(r.notCarried.map(reason))
  for (const key of reasons) bump(`(listed) ${key}`)
  if (values.verbose) for (const item of r.notCarried) console.log(`    listed ${item.at}  ${item.what}`)
}
const all = results.flatMap((r) => r.rows)
console.log('')
console.log(`${results.length} projects: ${totals.nothingLost} round-trip with nothing lost, ${totals.loses} lose something, ${totals.failed} failed to import or compile, ${totals.nothing} had nothing to import`)
console.log(`definitions compared: agents ${count(all, 'agent')}, commands ${count(all, 'command')}, skills ${count(all, 'skill')}, instruction files ${count(all, 'rule')}, MCP servers ${count(all, 'server')} round-trip whole`)
console.log(`items the import listed as not carried: ${results.reduce((n, r) => n + r.notCarried.length, 0)}`)
console.log('\nWhat is lost, by the number of projects it happens in:')
for (const [key, n] of [...lostReasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) console.log(`  ${String(n).padStart(3)}  ${key}`)
await rm(work, { recursive: true, force: true })
