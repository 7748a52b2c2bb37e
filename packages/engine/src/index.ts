export * from './errors.ts';
export * from './events/events.ts';
export * from './interpreter/host.ts';
export * from './ir/duration.ts';
export * from './json.ts';
