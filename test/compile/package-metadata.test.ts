import { describe, expect, it } from 'vitest'
import { packageMetadata } from '../../src/compile/package-metadata.js'

/* package.json's metadata as npm normalises it (normalize-package-data), for the plugin manifests. */

describe('packageMetadata', () => {
  it('reads an author string "Name <email> (url)" as npm does, and any part of it', () => {
    expect(packageMetadata({ author: 'Ada Field <ada@example.com> (https://example.com/ada)' }).author).toEqual({ name: 'Ada Field', email: 'ada@example.com', url: 'https://example.com/ada' })
    expect(packageMetadata({ author: 'Ada Field (https://example.com/ada)' }).author).toEqual({ name: 'Ada Field', url: 'https://example.com/ada' })
    expect(packageMetadata({ author: 'Ada Field' }).author).toEqual({ name: 'Ada Field' })
    expect(packageMetadata({ author: { name: 'Team', email: 'team@example.com', web: 'https://example.com' } }).author).toEqual({ name: 'Team', email: 'team@example.com', url: 'https://example.com' })
  })

  it.each([
    ['github:owner/repo', 'https://github.com/owner/repo'],
    ['owner/repo', 'https://github.com/owner/repo'],
    ['gitlab:owner/repo', 'https://gitlab.com/owner/repo'],
    ['bitbucket:owner/repo', 'https://bitbucket.org/owner/repo'],
    ['git+https://github.com/owner/repo.git', 'https://github.com/owner/repo'],
    ['git://github.com/owner/repo.git', 'https://github.com/owner/repo'],
    ['git@github.com:owner/repo.git', 'https://github.com/owner/repo'],
    ['https://example.com/code/repo', 'https://example.com/code/repo'],
  ])('reads the repository %s as %s, a string or a { type, url } object', (repository, url) => {
    expect(packageMetadata({ repository }).repository).toBe(url)
    expect(packageMetadata({ repository: { type: 'git', url: repository } }).repository).toBe(url)
  })

  it('keeps license, homepage and the keywords that are words; leaves out what is absent or of another type', () => {
    expect(packageMetadata({ license: 'MIT', homepage: 'https://example.com', keywords: ['a', '', 3, 'b'] })).toEqual({ license: 'MIT', homepage: 'https://example.com', keywords: ['a', 'b'] })
    expect(packageMetadata({ author: 42, license: '', repository: {}, keywords: 'a' })).toEqual({})
  })
})
