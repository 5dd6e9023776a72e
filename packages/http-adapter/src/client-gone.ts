/**
 * The reason an expensive request's `abandoned` signal carries, and what work cancelled by it rejects with: the
 * client closed the connection before the answer was sent. Nobody reads what is answered then; the error handler
 * logs it as such (not as a failure) and answers a 503, which frees an `Idempotency-Key` so that a retry runs.
 */
export class ClientGoneError extends Error {
  constructor() {
    super("the client closed the connection before the answer was sent");
    this.name = "ClientGoneError";
  }
}
