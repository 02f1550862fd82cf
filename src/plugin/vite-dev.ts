import { dirname, join } from 'node:path'
import type { ViteDevServer } from 'vite'
import type { Generated } from '../api.js'
import { isOwnWrite } from '../write/index.js'
import { writeTree } from './output.js'
import { bundlerLog, failureText } from './report.js'
import type { OacSession, WatchPlan } from './session.js'
import { RESOLVED_VIRTUAL_ID } from './virtual.js'

const STRUCTURE_EVENTS = new Set(['add', 'unlink', 'addDir', 'unlinkDir'])

/**
 * Keeps the target current while `vite` serves: compiles at start, then after every change to a file
 * the definitions came from (or a file added to their folders), writes what changed and reloads
 * `virtual:oac` in every environment. Vite calls no output hooks in dev, so this writes directly.
 * Returns `stop`, for the server's close: no update starts after it, and it resolves once the one
 * under way has written its files.
 */
export function serveAgentTree(server: ViteDevServer, session: OacSession, target: string): () => Promise<void> {
  const logger = server.config.logger
  let plan: WatchPlan = session.watchPlan([target], [])
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  async function update(): Promise<void> {
    let generated: Generated | undefined
    try {
      generated = await session.generated()
      const report = await writeTree(generated, target, session.options.force ?? false)
      for (const warning of [...generated.diagnostics, ...report.diagnostics].filter((d) => d.severity === 'warning')) {
        logger.warn(`[unplugin-oac] ${bundlerLog([warning], session.root).message}`)
      }
    } catch (error) {
      logger.error(`[unplugin-oac] the agent tree was not updated:\n${failureText(error)}`, { timestamp: true })
    }
    const outputs = generated ? generated.files.map((file) => join(target, file.path)) : []
    plan = session.watchPlan([target], outputs)
    // Vite already watches its root; definitions elsewhere (a workspace package) are added here.
    server.watcher.add([...plan.files, ...plan.dirs])
    for (const environment of Object.values(server.environments)) {
      const module = environment.moduleGraph.getModuleById(RESOLVED_VIRTUAL_ID)
      if (module) await environment.reloadModule(module)
    }
  }

  function schedule(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = update().finally(() => {
      running = undefined
      if (again) {
        again = false
        schedule()
      }
    })
  }

  server.watcher.on('all', (event, file) => {
    if (isOwnWrite(file)) return
    if (plan.files.includes(file) || (STRUCTURE_EVENTS.has(event) && plan.dirs.includes(dirname(file)))) schedule()
  })
  schedule()
  return async () => {
    stopped = true
    await running
  }
}
