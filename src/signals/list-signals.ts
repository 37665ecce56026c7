// `fed signal list` is an operation above the transport now (src/messaging); its old home still exports it.
export * from '../messaging/list-signals.js';
