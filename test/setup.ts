import { afterAll } from 'vitest'
import { removeFileFolders } from './util/temp.js'

// Runs before every test file (vitest.config.ts setupFiles): what the file's beforeAll hooks made in the
// temp folder goes after its last test.
afterAll(removeFileFolders)
