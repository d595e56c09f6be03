import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { TallyCounter, TallyHistogram } from '../../src/observe/tally.js'

describe('TallyHistogram', () => {
  it('exposes cumulative buckets (a value equal to a bound counts in it), +Inf, sum and count in the Prometheus format', async () => {
    const registry = new Registry()
    const histogram = new TallyHistogram(registry, 'test_seconds', 'A test histogram.', [0.001, 0.01, 0.1])
    const fast = histogram.cell({ method: 'tools/call' })
    for (const value of [0.0005, 0.001, 0.005, 0.5]) histogram.observe(fast, value)
    expect(histogram.cell({ method: 'tools/call' })).toBe(fast)
    const text = await registry.metrics()
    expect(text).toContain('# TYPE test_seconds histogram')
    expect(text).toContain('test_seconds_bucket{method="tools/call",le="0.001"} 2')
    expect(text).toContain('test_seconds_bucket{method="tools/call",le="0.01"} 3')
    expect(text).toContain('test_seconds_bucket{method="tools/call",le="0.1"} 3')
    expect(text).toContain('test_seconds_bucket{method="tools/call",le="+Inf"} 4')
    expect(text).toContain('test_seconds_sum{method="tools/call"} 0.5065')
    expect(text).toContain('test_seconds_count{method="tools/call"} 4')
  })
})

describe('TallyCounter', () => {
  it('keeps one cell per label set, whatever the order the labels are given in', async () => {
    const registry = new Registry()
    const counter = new TallyCounter(registry, 'test_total', 'A test counter.')
    counter.cell({ a: '1', b: '2' }).value += 2
    counter.cell({ b: '2', a: '1' }).value += 1
    counter.cell({ a: '1', b: '3' }).value += 1
    const text = await registry.metrics()
    expect(text).toContain('# TYPE test_total counter')
    expect(text).toContain('test_total{a="1",b="2"} 3')
    expect(text).toContain('test_total{a="1",b="3"} 1')
  })
})
