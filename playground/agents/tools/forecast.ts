import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

const CONDITIONS = ['sunny', 'cloudy', 'rain', 'wind', 'snow'] as const

/** A stable pseudo-random number from a string, so the demo needs no network and answers the same each time. */
function seed(text: string): number {
  let hash = 2166136261
  for (const char of text.toLowerCase()) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619)
  return hash >>> 0
}

/** The made-up forecast of a city: each day's condition and high in °C. */
export function dailyForecast(city: string, days: number): Array<{ condition: (typeof CONDITIONS)[number]; celsius: number }> {
  const base = seed(city)
  return Array.from({ length: days }, (_, day) => ({ condition: CONDITIONS[(base >> day) % CONDITIONS.length]!, celsius: ((base >> (day * 3)) % 30) - 5 }))
}

export const forecast = defineTool({
  name: 'forecast',
  description: 'Get a daily weather forecast for a city.',
  input: z.object({
    city: z.string().min(1).describe('City name to look up'),
    days: z.number().int().min(1).max(7).default(3).describe('How many days to forecast'),
    units: z.enum(['metric', 'imperial']).optional().describe('Temperature units (default from FORECAST_UNITS)'),
  }),
  // The answer's shape: checked before it leaves the tool, and structured output where the harness takes it.
  output: z.object({
    city: z.string(),
    units: z.enum(['metric', 'imperial']),
    days: z.array(z.object({ day: z.number().int(), condition: z.enum(CONDITIONS), high: z.number().describe('Highest temperature, in the units') })),
  }),
  effects: { readOnly: true, idempotent: true },
  async run({ city, days, units }, ctx) {
    const unit = units ?? (ctx.env.FORECAST_UNITS === 'imperial' ? 'imperial' : 'metric')
    const forecastDays = []
    for (const [day, { condition, celsius }] of dailyForecast(city, days).entries()) {
      ctx.progress(`day ${day + 1} of ${days}`)
      // Simulates a slow upstream service; resolves early when the caller cancels.
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (ctx.signal.aborted) throw new Error('cancelled')
      forecastDays.push({ day: day + 1, condition, high: unit === 'metric' ? celsius : Math.round((celsius * 9) / 5 + 32) })
    }
    return { city, units: unit, days: forecastDays }
  },
})
