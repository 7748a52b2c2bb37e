/**
 * Test doubles other packages' tests may use (`@weft/adapters/test`), kept out of the product
 * folders: a local OpenAI-compatible server that answers model calls without a network.
 */
export { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server.ts';
