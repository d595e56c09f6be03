import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const PREFIX = 'enc:v1:'

/**
 * AES-256-GCM for secrets at rest (client secrets, upstream tokens). The output is a string
 * `enc:v1:<iv>.<ciphertext>.<tag>` (base64url), so an encrypted value is recognisable and a
 * plain one is never mistaken for it. `context` is bound as additional data: a value encrypted
 * for one record cannot be pasted into another.
 */
export class SecretBox {
  readonly #key: Buffer

  constructor(key: string | Buffer) {
    this.#key = typeof key === 'string' ? Buffer.from(key, 'base64url') : key
    if (this.#key.length !== 32) throw new Error('SecretBox needs a 32-byte key')
  }

  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX)
  }

  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(Buffer.from(context))
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return `${PREFIX}${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`
  }

  open(sealed: string, context = ''): string {
    if (!SecretBox.isSealed(sealed)) throw new Error('not a sealed value')
    const [iv, ciphertext, tag] = sealed.slice(PREFIX.length).split('.')
    if (iv === undefined || ciphertext === undefined || tag === undefined) throw new Error('malformed sealed value')
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'))
    decipher.setAAD(Buffer.from(context))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
  }
}
