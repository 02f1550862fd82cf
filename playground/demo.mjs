// `npm run demo`: builds the playground with vite and the unplugin-oac plugin, then shows what it produced.
import { execFileSync, spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'

const root = fileURLToPath(new URL('.', import.meta.url))
const generated = ['.mcp.json', '.agents', '.claude', '.codex', '.opencode', '.pi', '.omp', '.gemini', '.github', '.qwen', '.kilo', '.vscode', 'scripts', 'prompts']

await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' })

function* walk(path) {
  if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) yield* walk(join(path, name))
  else yield path
}

console.log('\nThe agent tree the build wrote into playground/:\n')
for (const top of generated) {
  try {
    for (const file of walk(join(root, top))) console.log(`  ${relative(root, file).padEnd(48)} ${statSync(file).size} bytes`)
  } catch {
    // A harness the config does not select leaves no folder.
  }
}

const run = (args, input) => execFileSync('node', args, { cwd: root, input, encoding: 'utf8' }).trim()
console.log('\nA tool, run the way an agent runs it (the bash route):\n')
console.log('$ node scripts/convert_units.mjs --value 5 --from km --to mi')
console.log(run(['scripts/convert_units.mjs', '--value', '5', '--from', 'km', '--to', 'mi']))
console.log(`\n$ echo '{"city":"Lisbon","days":2}' | node scripts/forecast.mjs --json`)
console.log(run(['scripts/forecast.mjs', '--json'], '{"city":"Lisbon","days":2}'))
console.log('\n$ node scripts/forecast_chart.mjs --city Lisbon    (the image goes to a file; its path and the details are on stderr)')
const chart = spawnSync('node', ['scripts/forecast_chart.mjs', '--city', 'Lisbon'], { cwd: root, encoding: 'utf8' })
console.log(`${chart.stdout.trim()}\n${chart.stderr.trim()}`)
const files = [...generated.flatMap((top) => {
  try {
    return [...walk(join(root, top))].map((file) => relative(root, file))
  } catch {
    return []
  }
})]
console.log('\nThe skill weather-reports (SKILL.md, its template, and a copy of each tool script that runs from any folder):\n')
for (const file of files.filter((path) => path.includes('/skills/weather-reports/'))) console.log(`  ${file}`)
console.log('\nThe command /forecast, in each harness\'s own format ({{args}} written as each one fills it in):\n')
for (const file of files.filter((path) => /\/(commands?|prompts)\/forecast\.|\/skills\/forecast\//.test(path))) console.log(`  ${file}`)
console.log("\n$ cd src && node ../.agents/skills/weather-reports/scripts/forecast.mjs --city Lisbon --days 1    (the skill's copy, from a subfolder)")
console.log(execFileSync('node', ['../.agents/skills/weather-reports/scripts/forecast.mjs', '--city', 'Lisbon', '--days', '1'], { cwd: join(root, 'src'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())

console.log('\nOpen playground/.claude/agents/planner.md or playground/prompts/planner.md to see an agent prompt,')
console.log('and playground/.claude/settings.json to see which tools run without asking (and which always ask).')
