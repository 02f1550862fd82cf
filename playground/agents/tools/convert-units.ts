import { Type } from '@sinclair/typebox'
import { defineTool } from 'unplugin-oac'

const FACTORS_TO_METRES = { mm: 0.001, cm: 0.01, m: 1, km: 1000, in: 0.0254, ft: 0.3048, mi: 1609.344 } as const

export const convertUnits = defineTool({
  name: 'convert_units',
  description: 'Convert a length between metric and imperial units.',
  input: Type.Object({
    value: Type.Number({ description: 'The length to convert' }),
    from: Type.String({ enum: Object.keys(FACTORS_TO_METRES), description: 'Unit of the value' }),
    to: Type.String({ enum: Object.keys(FACTORS_TO_METRES), description: 'Unit to convert to' }),
    precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Decimal places' })),
  }),
  effects: { readOnly: true, idempotent: true },
  run({ value, from, to, precision }) {
    const metres = value * FACTORS_TO_METRES[from as keyof typeof FACTORS_TO_METRES]
    const result = metres / FACTORS_TO_METRES[to as keyof typeof FACTORS_TO_METRES]
    return `${value} ${from} = ${result.toFixed(precision ?? 3)} ${to}`
  },
})
