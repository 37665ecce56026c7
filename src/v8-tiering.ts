/**
 * fed's V8 tiering (`import … from 'fed/v8-tiering'`): the flags the built-in agent's executable and fed's
 * launcher set before they compile anything (src/infra/v8/tiering.ts). An entry of its own, with nothing
 * else of fed.
 */
export { chosenTiering, TIERING_ENV, tieringFlags, type Tiering } from './infra/v8/tiering.js';
