export type * from './signal-transport.js';
export type * from './registry-store.js';
export type * from './lifecycle-store.js';
export type * from './delivery-fact-store.js';
export type * from './federation-backend.js';
export type * from './federation-journal.js';
export type * from './federation-changes.js';
export type * from './host-directory.js';
