import { z } from 'zod'
import { defaults } from '../config/defaults.js'
import { isLoopbackHostname } from '../config/loopback-hosts.js'

const b = defaults.branding

/** A CSS colour as hex only (`#rgb` or `#rrggbb`): nothing else can reach the stylesheet. */
const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'colours are hex: #rgb or #rrggbb')

const DATA_LOGO = /^data:image\/(?:png|svg\+xml|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/

/** The logo: an https URL (http on loopback hosts only), or a base64 `data:` image of bounded size. */
const logoUrl = z
  .string()
  .min(1)
  .refine((value) => {
    if (value.startsWith('data:')) return value.length <= b.maxLogoDataUriLength && DATA_LOGO.test(value)
    const url = URL.parse(value)
    if (url === null || url.username !== '' || url.password !== '') return false
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))
  }, `logoUrl must be an https URL (http on loopback hosts only) or a data:image/(png|svg+xml|jpeg|webp);base64, URI of at most ${b.maxLogoDataUriLength} characters`)

/**
 * The operator's branding of every page (login, consent, logout, errors, the home page): a product
 * name, a logo and colours. Validated so that nothing from it can inject markup or CSS.
 */
export const brandingSchema = z.strictObject({
  /** Shown in each page's header and title. Default `defaults.branding.productName`. */
  productName: z
    .string()
    .min(1)
    .max(b.maxProductNameLength)
    .regex(/^[^\p{Cc}]+$/u, 'productName must not contain control characters')
    .optional(),
  logoUrl: logoUrl.optional(),
  colors: z
    .strictObject({
      /** Buttons and links. */
      primary: hexColor.optional(),
      /** The page behind the card. */
      background: hexColor.optional(),
      /** Text. */
      text: hexColor.optional(),
    })
    .optional(),
})

export type BrandingInput = z.input<typeof brandingSchema>

/** Branding with its defaults filled in, ready for the layout and the page headers. */
export interface PageBranding {
  productName: string
  logoUrl?: string
  colors: { primary?: string; background?: string; text?: string }
}

/** The pages' look when nothing is configured. */
export const DEFAULT_BRANDING: PageBranding = Object.freeze({ productName: b.productName, colors: Object.freeze({}) }) as PageBranding

/** Validates branding (throws a TypeError naming what is wrong) and fills in the defaults. */
export function resolveBranding(input: BrandingInput | undefined): PageBranding {
  if (input === undefined) return DEFAULT_BRANDING
  const parsed = brandingSchema.safeParse(input)
  if (!parsed.success) {
    throw new TypeError(`invalid branding:\n  ${parsed.error.issues.map((issue) => `branding.${issue.path.join('.')}: ${issue.message}`).join('\n  ')}`)
  }
  const { productName, logoUrl: logo, colors = {} } = parsed.data
  return {
    productName: productName ?? b.productName,
    ...(logo !== undefined ? { logoUrl: logo } : {}),
    colors: {
      ...(colors.primary !== undefined ? { primary: colors.primary } : {}),
      ...(colors.background !== undefined ? { background: colors.background } : {}),
      ...(colors.text !== undefined ? { text: colors.text } : {}),
    },
  }
}
