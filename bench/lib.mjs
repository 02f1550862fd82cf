// Shared helpers of the benchmarks: timing, statistics, the built package, temp folders, stdio JSON-RPC.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { benchTmp, repoRoot } from './generate.mjs'

/**
 * The bench runs a snapshot of the built package, bench/.tmp/pkg/ (package.json, dist/, and a link to
 * the repository's node_modules), taken once at the start by `snapshotPackage`: a rebuild of dist/
 * during a run (other work in the same checkout) cannot mix two versions into one set of figures.
 */
export const packageDir = join(benchTmp, 'pkg')
export const distDir = join(packageDir, 'dist')

export function snapshotPackage() {
  const built = join(repoRoot, 'dist')
  if (!existsSync(join(built, 'api.js'))) throw new Error(`${built} is missing: run \`npm run build\` first (npm run bench does).`)
  rmSync(packageDir, { recursive: true, force: true })
  mkdirSync(packageDir, { recursive: true })
  cpSync(built, distDir, { recursive: true, preserveTimestamps: true })
  cpSync(join(repoRoot, 'package.json'), join(packageDir, 'package.json'))
  symlinkSync(relative(packageDir, join(repoRoot, 'node_modules')), join(packageDir, 'node_modules'), 'dir')
}

/** Imports a module of the built package, like a user of the published package would. */
export async function importDist(name) {
  const file = join(distDir, name)
  if (!existsSync(file)) throw new Error(`${file} is missing: the bench snapshots dist/ at its start (snapshotPackage).`)
  return import(pathToFileURL(file).href)
}

/**
 * `writeOutputs` of the built package. dist/api.js exports the compiler but not the write stage, so a
 * watch-style driver outside the package has to find it in the chunks dist/api.js imports (by the
 * function's own name, which rollup keeps when it renames the export).
 */
export async function importWriteOutputs() {
  const api = await importDist('api.js')
  if (typeof api.writeOutputs === 'function') return api.writeOutputs
  const source = readFileSync(join(distDir, 'api.js'), 'utf8')
  for (const [, chunk] of source.matchAll(/from '(\.\/chunks\/[^']+\.js)'/g)) {
    const namespace = await import(pathToFileURL(join(distDir, chunk)).href)
    const found = Object.values(namespace).find((value) => typeof value === 'function' && value.name === 'writeOutputs')
    if (found) return found
  }
  throw new Error('writeOutputs is neither exported by dist/api.js nor found in the chunks it imports.')
}

export async function tempDir(label) {
  mkdirSync(join(benchTmp, 'out'), { recursive: true })
  return mkdtemp(join(benchTmp, 'out', `${label}-`))
}

export const removeDir = (dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 })

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

/** Milliseconds `fn` takes; `fn` may return a value that is kept in `result`. */
export async function timed(fn) {
  const start = performance.now()
  const result = await fn()
  return { ms: performance.now() - start, result }
}

/**
 * Runs each named contender `rounds` times, after `warmup` untimed rounds, rotating the order every
 * round so that no contender always runs first (or right after a heavy one). Returns every sample.
 * `contenders` maps a name to `async (round) => void` (`round` is -1.. for warm-up rounds).
 */
export async function rotate(contenders, { rounds, warmup = 1, log = () => {} }) {
  const names = Object.keys(contenders)
  const samples = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = -warmup; round < rounds; round++) {
    // Warm-up rounds keep the given order (a contender may depend on the first one having run once).
    const offset = round < 0 ? 0 : round % names.length
    const order = names.map((_, i) => names[(i + offset) % names.length])
    for (const name of order) {
      const { ms } = await timed(() => contenders[name](round))
      if (round >= 0) samples[name].push(ms)
      log(`  ${round < 0 ? 'warm-up' : `round ${round + 1}/${rounds}`} ${name}: ${ms.toFixed(1)} ms`)
    }
  }
  return samples
}

/**
 * A child process spoken to in newline-delimited JSON-RPC over stdio (the MCP stdio transport):
 * `request` resolves with the message that answers its id.
 */
export class StdioPeer {
  constructor(command, args, options) {
    this.child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] })
    this.nextId = 1
    this.pending = new Map()
    this.stderr = ''
    let buffer = ''
    this.child.stdout.setEncoding('utf8')
    this.child.stdout.on('data', (data) => {
      buffer += data
      let newline
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.trim()) this.receive(line)
      }
    })
    this.child.stderr.setEncoding('utf8')
    this.child.stderr.on('data', (data) => {
      this.stderr = (this.stderr + data).slice(-4000)
    })
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })))
    this.exited.then(({ code, signal }) => {
      for (const { reject } of this.pending.values()) reject(new Error(`${command} ${args.join(' ')} exited (${code ?? signal}) before answering.\n${this.stderr}`))
      this.pending.clear()
    })
    const failPending = (error) => {
      for (const { reject } of this.pending.values()) reject(error)
      this.pending.clear()
    }
    this.child.on('error', failPending)
    // A write after the peer has gone: EPIPE says what its exit says (and, unheard, would end the bench); anything else fails the waiting requests.
    this.child.stdin.on('error', (error) => {
      if (error.code !== 'EPIPE') failPending(error)
    })
  }

  receive(line) {
    let message
    try {
      message = JSON.parse(line)
    } catch {
      throw new Error(`not a JSON-RPC line on stdout: ${line.slice(0, 200)}`)
    }
    const waiter = message.id !== undefined && this.pending.get(message.id)
    if (!waiter) return
    this.pending.delete(message.id)
    if (message.error) waiter.reject(new Error(`JSON-RPC error ${message.error.code}: ${message.error.message}`))
    else waiter.resolve(message.result)
  }

  request(method, params) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  }

  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`)
  }

  /** Closes stdin (how an MCP client ends a stdio server) and waits for the exit; kills it after 5 s. */
  async close() {
    this.child.stdin.end()
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000)
    await this.exited
    clearTimeout(timer)
  }
}

/** The MCP handshake up to the first `tools/list` answer; returns the listed tools. */
export async function mcpHandshake(peer) {
  await peer.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'oac-bench', version: '0.0.0' },
  })
  peer.notify('notifications/initialized')
  const listed = await peer.request('tools/list', {})
  return listed.tools
}

/** Runs a process to its end with `input` on stdin; rejects on a non-zero exit. */
export function runProcess(command, args, { cwd, input = '', env = process.env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${stderr || stdout}`))
    })
    // A child that exits before reading its input fails the write with EPIPE; its exit code tells why.
    child.stdin.on('error', (error) => {
      if (error.code !== 'EPIPE') reject(error)
    })
    child.stdin.end(input)
  })
}
