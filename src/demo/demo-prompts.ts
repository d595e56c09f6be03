import type { McpServer } from '../server/mcp-server.js'
import { RED_PIXEL_PNG_BASE64 } from './demo-assets.js'

const LANGUAGES = ['English', 'French', 'German', 'Italian', 'Japanese', 'Portuguese', 'Spanish']

/** The demo server's prompts, with arguments and completions. */
export function registerDemoPrompts(server: McpServer): void {
  server.registerPrompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }))
  server.registerPrompt(
    {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
    }),
    { arg1: (value) => ['alpha', 'beta', 'gamma'].filter((v) => v.startsWith(value)) },
  )
  server.registerPrompt(
    {
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that includes an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    (args) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: args.resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  )
  server.registerPrompt({ name: 'test_prompt_with_image', description: 'A prompt that includes image content' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }))
  server.registerPrompt(
    {
      name: 'translate',
      title: 'Translate',
      description: 'Translate a text into a language.',
      arguments: [
        { name: 'language', description: 'Target language', required: true },
        { name: 'text', description: 'Text to translate', required: true },
      ],
    },
    (args) => ({
      description: `Translate into ${args.language}`,
      messages: [{ role: 'user', content: { type: 'text', text: `Translate into ${args.language}:\n\n${args.text}` } }],
    }),
    { language: (value) => LANGUAGES.filter((l) => l.toLowerCase().startsWith(value.toLowerCase())) },
  )
}
