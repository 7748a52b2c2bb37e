import { afterEach, describe, expect, it } from 'vitest';
import { type TestServer, testServices } from '../test-support.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('models.list', () => {
  it('lists every provider, configured or not, without keys or URLs', async () => {
    server = await testServices({
      env: { NODE_ENV: 'test', OPENAI_API_KEY: 'sk-secret-123', WEFT_LOCAL_BASE_URL: 'http://10.0.0.1:11434/v1' },
    });
    const providers = await server.caller().models.list();
    expect(providers).toEqual([
      { id: 'openai', label: 'OpenAI', configured: true },
      { id: 'anthropic', label: 'Anthropic', configured: false },
      { id: 'local', label: expect.any(String), configured: true },
      { id: 'mock', label: expect.any(String), configured: true },
    ]);
    const text = JSON.stringify(providers);
    expect(text).not.toContain('sk-secret');
    expect(text).not.toContain('10.0.0.1');
  });
});

describe('tools.list', () => {
  it('has no tools by default', async () => {
    server = await testServices();
    expect(await server.caller().tools.list()).toEqual([]);
  });

  it('lists host-registered tools with name, description and parameters', async () => {
    const add = {
      description: 'Adds two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: (args: unknown) => args as never,
    };
    server = await testServices({ tools: { add } });
    expect(await server.caller().tools.list()).toEqual([
      { name: 'add', description: 'Adds two numbers', parameters: add.parameters },
    ]);
  });
});
