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

/** A Markdown file's frontmatter values and body, as a harness reads them. */
function markdown(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { data: {}, body: normalText(text) }
  return { data: parseYaml(match[1]) ?? {}, body: normalText(text.slice(match[0].length)) }
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
      // A command in a subfolder is namespaced (`git:commit`): the import lists it, and it counts as lost.
      const compiledPath = path.includes('/') ? undefined : await findCompiled(back, folder, path)
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
    if (path.includes('/') || !(await exists(join(back, file)))) { add('command', file, ['the command (no file written)']); continue }
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
  return rows
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
  if (item.what.startsWith('the instructions in')) return 'instructions (CLAUDE.md, AGENTS.md, ...)'
  if (/MCP server/.test(item.what)) return 'MCP servers'
  if (item.what.startsWith('the permission')) return 'permissions'
  if (/^the commands in .*\/$/.test(item.what)) return 'commands in subfolders (namespaced)'
  if (/hook/.test(item.what)) return 'hooks of other types or events'
  if (item.what.startsWith('the plugin')) return 'opencode plugins (code)'
  if (/^`[^`]+` of (agent|command|skill)/.test(item.what)) return `a field of ${/of (agent|command|skill)/.exec(item.what)[1]}s`
  if (/^the file .* of skill/.test(item.what)) return item.why.startsWith('compile writes') ? "Codex's agents/openai.yaml with more than its policy" : 'non-text skill files'
  if (/^`[^`]+`$/.test(item.what)) return 'settings keys'
  if (/^command /.test(item.what) && /^(its text has|it uses the positional)/.test(item.why)) return 'commands whose text another harness would run or fill in (!`cmd`, $1)'
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
  const result = { name, harnesses: '', rows: [], notCarried: [], failure: undefined, typecheck: undefined }
  results.push(result)
  const imported = spawnSync(process.execPath, [cli, 'import', project], { encoding: 'utf8' })
  if (imported.status !== 0) {
    result.failure = `import: ${(imported.stderr || imported.stdout).trim().split('\n')[0].replace(project, '.')}`
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
console.log([pad('project', 48), pad('from', 28), pad('agents', 8), pad('cmds', 8), pad('skills', 8), pad('listed', 7), ...(values.typecheck ? [pad('tsc', 5)] : []), 'result'].join(' '))
const totals = { nothingLost: 0, loses: 0, failed: 0 }
const lostReasons = new Map()
const bump = (key) => lostReasons.set(key, (lostReasons.get(key) ?? 0) + 1)
for (const r of results) {
  const lostRows = r.rows.filter((row) => row.lost.length > 0)
  const verdict = r.failure ? 'FAILED' : lostRows.length === 0 && r.notCarried.length === 0 ? 'nothing lost' : 'loses something'
  totals[verdict === 'FAILED' ? 'failed' : verdict === 'nothing lost' ? 'nothingLost' : 'loses']++
  console.log([pad(r.name, 48), pad(r.harnesses.slice(0, 28), 28), pad(count(r.rows, 'agent'), 8), pad(count(r.rows, 'command'), 8), pad(count(r.rows, 'skill'), 8), pad(r.notCarried.length, 7), ...(values.typecheck ? [pad(r.typecheck ?? '-', 5)] : []), verdict].join(' '))
  if (r.failure) console.log(`    ${r.failure}`)
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
console.log(`${results.length} projects: ${totals.nothingLost} round-trip with nothing lost, ${totals.loses} lose something, ${totals.failed} failed to import or compile`)
console.log(`definitions compared: agents ${count(all, 'agent')}, commands ${count(all, 'command')}, skills ${count(all, 'skill')} round-trip whole`)
console.log(`items the import listed as not carried: ${results.reduce((n, r) => n + r.notCarried.length, 0)}`)
console.log('\nWhat is lost, by the number of projects it happens in:')
for (const [key, n] of [...lostReasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) console.log(`  ${String(n).padStart(3)}  ${key}`)
await rm(work, { recursive: true, force: true })
