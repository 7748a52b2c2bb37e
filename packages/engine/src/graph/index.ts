export * from './compile.ts';
export * from './ids.ts';
export { NODE_HEIGHT, NODE_WIDTH } from './layout.ts';
export type * from './types.ts';
