/**
 * Adam (Kingma & Ba 2015) on plain float32 arrays, with tfjs's defaults and update order (bias correction by the
 * running powers of the betas, epsilon added to the corrected second moment's root). The network's weights are
 * small (tens of thousands of values), so one loop over them costs less than the kernel calls of tfjs's optimizer.
 */
export class Adam {
  /** Step size; the training's final phase lowers it as it goes. */
  learningRate: number;
  private readonly beta1 = 0.9;
  private readonly beta2 = 0.999;
  private readonly epsilon = 1e-7;
  private accBeta1 = this.beta1;
  private accBeta2 = this.beta2;
  private first: Float32Array[] | null = null;
  private second: Float32Array[] | null = null;

  constructor(learningRate: number) {
    this.learningRate = learningRate;
  }

  /** Moves each of `weights` against its gradient in `grads` (same shapes), in place. */
  step(weights: readonly Float32Array[], grads: readonly Float32Array[]): void {
    const first = this.first ?? weights.map((w) => new Float32Array(w.length));
    const second = this.second ?? weights.map((w) => new Float32Array(w.length));
    this.first = first;
    this.second = second;
    const { beta1, beta2, epsilon } = this;
    const c1 = 1 - this.accBeta1;
    const c2 = 1 - this.accBeta2;
    const lr = this.learningRate;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i];
      const g = grads[i];
      const m = first[i];
      const v = second[i];
      if (w === undefined || g === undefined || m === undefined || v === undefined || g.length !== w.length) {
        throw new RangeError(`gradient ${i} does not match its weights`);
      }
      for (let j = 0; j < w.length; j++) {
        const gj = g[j] as number;
        const mj = beta1 * (m[j] as number) + (1 - beta1) * gj;
        const vj = beta2 * (v[j] as number) + (1 - beta2) * gj * gj;
        m[j] = mj;
        v[j] = vj;
        w[j] = (w[j] as number) - (lr * (mj / c1)) / (Math.sqrt(vj / c2) + epsilon);
      }
    }
    this.accBeta1 *= beta1;
    this.accBeta2 *= beta2;
  }
}
