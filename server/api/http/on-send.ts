/**
 * The end of a callback-style onSend hook (an async hook costs every answer a promise and a microtask turn): the body
 * is handed on at once, or, when it is being made off the event loop (a large answer's hash or compression), once its
 * promise settles.
 */
import type { onSendHookHandler } from "fastify";

type OnSendDone = Parameters<onSendHookHandler>[3];

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

export function finishOnSend(done: OnSendDone, body: unknown): void {
  if (!(body instanceof Promise)) {
    done(null, body);
    return;
  }
  body.then(
    (ready: unknown) => done(null, ready),
    (error: unknown) => done(asError(error)),
  );
}

/** For a hook whose synchronous part threw. */
export function failOnSend(done: OnSendDone, error: unknown): void {
  done(asError(error));
}
