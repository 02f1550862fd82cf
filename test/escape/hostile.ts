import fc from 'fast-check'

/** Fragments that break naive escaping in at least one of our output formats. */
export const HOSTILE_FRAGMENTS = [
  '"',
  "'",
  '`',
  '\\',
  '${',
  '${x}',
  '}',
  '*/',
  '/*',
  '//',
  '</script>',
  '<!--',
  '\n',
  '\r',
  '\r\n',
  '---',
  '\n---\n',
  '...',
  '"""',
  "'''",
  '\0',
  '\u0001',
  '\u0008',
  '\t',
  '\u000b',
  '\u000c',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ud83d\ude00',
  '#',
  '[',
  ']',
  '[[',
  '=',
  ':',
  ': ',
  '- ',
  '? ',
  '|',
  '>',
  '&a',
  '*a',
  '!',
  '!!str',
  '%',
  '@',
  ',',
  '{',
  ' ',
  '  ',
  'yes',
  'no',
  'null',
  '~',
  'true',
  '0x1F',
  '1e3',
  '-0',
  '.inf',
  '2024-01-01',
  '__proto__',
  'constructor',
  '```',
  '~~~',
  '$(',
  '\\u0041',
  '\\n',
]

const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_FRAGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 6 }) },
)

/** Well-formed hostile text: hostile fragments, random unicode and ASCII control characters. */
export const hostileString = fc.oneof(
  { weight: 30, arbitrary: fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join('')) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme' }) },
  // Very long strings: 10k-100k characters of repeated hostile content.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fragment, { minLength: 1, maxLength: 8 }), fc.integer({ min: 10_000, max: 100_000 }))
      .map(([parts, length]) => parts.join('').repeat(Math.ceil(length / Math.max(1, parts.join('').length))).slice(0, length))
      // The cut must not split a surrogate pair.
      .map((text) => text.replace(/[\ud800-\udbff]$/, '')),
  },
)

// fast-check's string units never split a surrogate pair, so lone halves are added by hand.
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code))

/** Also lone UTF-16 surrogates, which JS and JSON escape, YAML escapes, and TOML cannot hold. */
export const anyString = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.array(fc.oneof(fragment, loneSurrogate), { maxLength: 8 }).map((parts) => parts.join('')) },
)

/** True when the string holds a lone surrogate (not representable in UTF-8). */
export function hasLoneSurrogate(value: string): boolean {
  return /\p{Cs}/u.test(value)
}
