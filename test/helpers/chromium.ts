import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/**
 * Launches the system Chromium headless. Fails loudly when it is missing: a page test that
 * silently skipped would pass off a missing browser as a pass.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`)
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}
