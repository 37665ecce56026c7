/**
 * An optional capability of a port. Every adapter states whether it offers it: with the capability's
 * object (`supported: true`), or with a `NotSupported` saying why. So the engine branches on what a
 * backend can do, never on its name, and a new adapter cannot leave the question unanswered.
 */
export interface NotSupported {
  readonly supported: false;
  /**
   * Why, for a person, as the end of a sentence naming the backend ("… keeps its signals in the
   * nats-jetstream backend, <why>"): what happens there instead, and what to use.
   */
  readonly why: string;
}

/** The capability `T`, offered (`supported: true`), or not (`NotSupported`). */
export type Capability<T> = (T & { readonly supported: true }) | NotSupported;
