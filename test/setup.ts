import fc from 'fast-check'
import { afterAll } from 'vitest'
import { removeFileFolders } from './util/temp.js'

// Runs before every test file (vitest.config.ts setupFiles): what the file's beforeAll hooks made in the
// temp folder goes after its last test.
afterAll(removeFileFolders)

// Property tests are reproducible: every run draws from one seed, so the suite passes or fails the same
// way each time. FC_SEED=<number> picks another seed; FC_SEED=random draws a new one per run, to hunt for
// counterexamples (a failure prints the seed and path to replay).
const FC_SEED = process.env.FC_SEED ?? '20261201'
if (FC_SEED !== 'random') fc.configureGlobal({ seed: Number(FC_SEED) })
