/**
 * WCAG 2.x relative luminance (0 black … 1 white) of a `#rgb` or `#rrggbb` colour, to pick text
 * that stays readable on an operator's colour.
 * https://www.w3.org/TR/WCAG22/#dfn-relative-luminance
 */
export function relativeLuminance(hex: string): number {
  const digits = hex.slice(1)
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** Whether black text reads better than white on this colour (the larger WCAG contrast ratio). */
export function prefersDarkText(hex: string): boolean {
  const l = relativeLuminance(hex)
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05)
}
