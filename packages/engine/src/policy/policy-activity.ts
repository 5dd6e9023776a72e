/**
 * Policies built and forward passes run in this thread (module state is per thread): an observable of where
 * planning happens, e.g. that a server's event loop runs none while its planning threads run them all.
 */
export interface PolicyActivity {
  /** Policies rebuilt from weights (`RlPolicy.create`, artifact loads included). */
  readonly built: number;
  /** Batched forward passes of a policy's network (`RlPolicy.evaluate` chunks). */
  readonly forwardPasses: number;
}

let built = 0;
let forwardPasses = 0;

export function countPolicyBuilt(): void {
  built++;
}

export function countForwardPass(): void {
  forwardPasses++;
}

/** This thread's counts since it started. */
export function policyActivity(): PolicyActivity {
  return { built, forwardPasses };
}
