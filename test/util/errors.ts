import { OacError } from '../../src/diagnostics.js'

/** The OacError `run` throws; anything else thrown, or nothing, fails the test. */
export function thrown(run: () => unknown): OacError {
  try {
    run()
  } catch (error) {
    if (error instanceof OacError) return error
    throw error
  }
  throw new Error('expected an OacError')
}
