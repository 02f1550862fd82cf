// Reads a V8 .cpuprofile (from `node --cpu-prof`) and prints where the time went: the top functions by
// self time, and the top files (by package, or by path inside this repository) by self time.
// Usage: node bench/top-frames.mjs <file.cpuprofile> [count]
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoRoot } from './generate.mjs'

const [file, countArg] = process.argv.slice(2)
if (!file) throw new Error('usage: node bench/top-frames.mjs <file.cpuprofile> [count]')
const count = Number(countArg ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8'))

// Self time per node: samples are node ids, timeDeltas the microseconds before each sample.
const selfMicros = new Map()
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0)

const where = (url) => {
  if (!url) return '(native)'
  const path = url.startsWith('file://') ? fileURLToPath(url) : url
  const modules = path.lastIndexOf('node_modules/')
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length)
  return path.startsWith(repoRoot) ? relative(repoRoot, path) : path
}
const packageOf = (url) => {
  const path = where(url)
  if (path === '(native)' || path.startsWith('node:')) return path.startsWith('node:') ? 'node:*' : path
  if (!url.includes('node_modules/')) return path
  const parts = path.split('/')
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

const byFunction = new Map()
const byFile = new Map()
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0
  if (!micros) continue
  const { functionName, url, lineNumber } = node.callFrame
  const fn = `${functionName || '(anonymous)'}  ${where(url)}:${lineNumber + 1}`
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros)
  const owner = packageOf(url)
  byFile.set(owner, (byFile.get(owner) ?? 0) + micros)
}

const print = (title, map) => {
  console.log(`\n${title}`)
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`  ${(micros / 1000).toFixed(0).padStart(7)} ms ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`)
  }
}
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`)
print('self time by function', byFunction)
print('self time by package / file', byFile)
