// One benchmark scenario, alone in this process, for `node --cpu-prof`:
//   node --cpu-prof --cpu-prof-dir=bench/.tmp/prof bench/profile.mjs <scenario>
//   node bench/top-frames.mjs bench/.tmp/prof/<file>.cpuprofile
// Scenarios: cold-1000, cold-100 (a cold `compile` into an empty folder), incremental-1000 (one
// Compiler: a first build, then the timed rebuild after editing one tool's run body).
// It prints the scenario's wall time and the time spent in each part of the pipeline.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateProject, revisionMarker } from './generate.mjs'
import { importDist, importWriteOutputs, removeDir, snapshotPackage, tempDir, timed } from './lib.mjs'

const scenario = process.argv[2]
snapshotPackage()
const api = await importDist('api.js')

/** Wraps the Compiler's bundler (a private field, reached for timing only) so each build's time is recorded. */
function timeBundler(compiler) {
  const times = []
  const build = compiler.bundler.build.bind(compiler.bundler)
  compiler.bundler.build = async (...args) => {
    const { ms, result } = await timed(() => build(...args))
    times.push(ms)
    return result
  }
  return times
}

if (scenario === 'cold-1000' || scenario === 'cold-100') {
  // What `compile()` does, with the time of each part: generate (load, compile, emit; bundle timed apart), write.
  const project = generateProject({ tools: scenario === 'cold-1000' ? 1000 : 100, agents: 100 })
  const writeOutputs = await importWriteOutputs()
  const target = await tempDir('profile')
  const { ms: totalMs } = await timed(async () => {
    const compiler = new api.Compiler(project.dir)
    const bundleTimes = timeBundler(compiler)
    const generated = await timed(() => compiler.generate({ registry: project.registry, config: project.config }))
    const written = await timed(() =>
      writeOutputs(generated.result.files, { target, mode: 'write', force: false, owner: generated.result.plan.serverName }),
    )
    const disposed = await timed(() => compiler.dispose())
    console.log(
      `${scenario}: generate ${generated.ms.toFixed(0)} ms (bundle stage, with emit alongside, ${bundleTimes[0].toFixed(0)} ms; load + compile ${(generated.ms - bundleTimes[0]).toFixed(0)} ms), ` +
        `write ${written.ms.toFixed(0)} ms (${generated.result.files.length} files), dispose ${disposed.ms.toFixed(0)} ms`,
    )
  })
  console.log(`${scenario}: total ${totalMs.toFixed(0)} ms`)
  await removeDir(target)
} else if (scenario === 'incremental-1000') {
  const project = generateProject({ tools: 1000, agents: 100 })
  const writeOutputs = await importWriteOutputs()
  const target = await tempDir('profile')
  const compiler = new api.Compiler(project.dir)
  const bundleTimes = timeBundler(compiler)
  const options = { registry: project.registry, config: project.config }
  const build = async () => {
    const generated = await timed(() => compiler.generate(options))
    const written = await timed(() =>
      writeOutputs(generated.result.files, { target, mode: 'write', force: false, owner: generated.result.plan.serverName }),
    )
    return `generate ${generated.ms.toFixed(0)} ms (bundle stage, with emit alongside, ${bundleTimes.at(-1).toFixed(0)} ms), write ${written.ms.toFixed(0)} ms (${written.result.written.length} written)`
  }
  console.log(`first build: ${await build()}`)
  const tool = project.tools[1]
  const file = join(project.dir, tool.file)
  const source = await readFile(file, 'utf8')
  await writeFile(file, source.replace(JSON.stringify(revisionMarker(tool.name, 0)), JSON.stringify(revisionMarker(tool.name, 1))))
  try {
    console.log(`rebuild after editing ${tool.name}: ${await build()}`)
  } finally {
    await writeFile(file, source)
    await compiler.dispose()
    await removeDir(target)
  }
} else {
  throw new Error(`unknown scenario "${scenario}": cold-1000, cold-100 or incremental-1000`)
}
