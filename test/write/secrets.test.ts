import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findSecrets } from '../../src/secrets.js'

// Built by concatenation so this file itself does not look like it holds keys.
const fake = {
  aws: 'AKIA' + 'QYLPMN5HGTRE2XWZ',
  github: 'ghp_' + 'x7Yb2Qk9LmN4pR8sT1vW3zA6cD0eF5gH2jK4',
  githubFineGrained: 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ',
  openai: 'sk-' + 'proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
  anthropic: 'sk-' + 'ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe',
  slack: 'xox' + 'b-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx',
  privateKey: '-----BEGIN ' + 'OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
  google: 'AIza' + 'SyD4x9Qm2Lp7Rt5Vw8Yz1Bc3Ef6Gh0Jk2Mn',
  npm: 'npm_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
}

describe('findSecrets', () => {
  it.each(Object.entries(fake))('finds %s', (_, secret) => {
    const findings = findSecrets(`intro\nvalue: ${secret}\n`)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.offset).toBe('intro\nvalue: '.length)
  })

  it('finds random-looking values assigned to env-like or secret-like names, in every format', () => {
    const value = 'q8Zr3Kx9Lw2Mv7Nt4Pb6Yc1Hd5'
    for (const text of [`API_SECRET = "${value}"`, `"DB_PASSWORD": "${value}"`, `authToken: ${value}`, `env: { SERVICE_KEY: '${value}' }`]) {
      expect(findSecrets(text).map((f) => f.match)).toEqual([value])
    }
    expect(findSecrets('postgres://admin:hunter22@db.example.com/app')[0]?.kind).toBe('a password in a URL')
  })

  it('finds an assigned secret or a URL password wherever it sits in other text (the quick pre-checks never hide one)', () => {
    const filler = fc.string({ unit: fc.constantFrom(...'ab_ZQ09 :=\'"`/.-\n\t'.split('')), maxLength: 60 })
    const value = 'q8Zr3Kx9Lw2Mv7Nt4Pb6Yc1Hd5'
    const secrets = fc.constantFrom(`API_SECRET = "${value}"`, `'DB_PASSWORD': '${value}'`, `authToken:${value}`, 'postgres://admin:hunter22@db.example.com/app')
    fc.assert(
      fc.property(filler, secrets, filler, (before, secret, after) => {
        const found = findSecrets(`${before}\n${secret}\n${after}`)
        const start = before.length + 1
        expect(found.some((f) => f.offset >= start && f.offset + f.match.length <= start + secret.length)).toBe(true)
      }),
    )
  })

  it('finds each known kind of key wherever it sits in other text (the one search for all of them never hides one)', () => {
    const filler = fc.string({ unit: fc.constantFrom(...'ab_ZQ09 :=\'"`/.-\n\t'.split('')), maxLength: 60 })
    fc.assert(
      fc.property(filler, fc.constantFrom(...Object.values(fake)), filler, (before, secret, after) => {
        const found = findSecrets(`${before}\n${secret}\n${after}`)
        const start = before.length + 1
        expect(found.some((f) => f.offset >= start && f.offset + f.match.length <= start + secret.length)).toBe(true)
      }),
    )
  })

  it('leaves ordinary generated text alone', () => {
    const ordinary = [
      'env: { API_URL: "${API_URL}", TOKEN: "{env:TOKEN}" }',
      '"GITHUB_TOKEN": "${GITHUB_TOKEN}"',
      'description: Run the task-specific-analysis-pipeline-tool for the current project',
      'NODE_ENV = "production"',
      'CACHE_DIR = "node_modules/.cache/unplugin-oac"',
      'Commit 3f9a1c2e8b7d6f5a4c3b2a1f0e9d8c7b6a5f4e3d fixed it.',
      'The example key AKIAIOSFODNN7EXAMPLE is from the AWS docs.',
      'sk-this-is-not-a-real-key-just-words',
      'url = "https://example.com/path?x=1"',
      'postgres://localhost:5432/app and postgres://user:${DB_PASSWORD}@db/app',
    ].join('\n')
    expect(findSecrets(ordinary)).toEqual([])
  })
})
