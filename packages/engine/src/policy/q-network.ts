import seedrandom from "seedrandom";
import { tf } from "../backend/tf-backend.js";
import { at } from "../base/checked-index.js";
import type { Adam } from "./adam.js";

/**
 * A small MLP with a structured head. Raw outputs per state: the marginal value of one more unit of stock (over
 * the reference price), an effective shadow price kappa, and a residual per action. The action values are
 *   u_a = margin_a - kappa * rate_a + residual_a
 * with margin_a and rate_a today's centred expected margin and units sold (capped by stock): pricing trades today's margin
 * against the stock each price uses up, so the network only has to learn how much a unit of stock is worth.
 * Both stock-value outputs are residuals on the fluid (deterministic) marginal value input, so an untrained
 * network prices like the fluid bid-price heuristic and training learns the stochastic correction.
 */
export interface QNetworkShape {
  readonly inputs: number;
  readonly hidden: readonly number[];
  readonly actions: number;
  /** Column of the first myopic-margin input; the relative rates follow right after the margins. */
  readonly marginOffset: number;
  /** Column of the fluid marginal-value input, added to the marginal-value and kappa outputs (residual learning). */
  readonly fluidOffset: number;
}

export interface LayerParams {
  readonly kernel: tf.Variable;
  readonly bias: tf.Variable;
}

let instances = 0;

/**
 * A batch of states: `x` [rows * inputs] the network inputs, `margins` and `rates` [rows * actions] the head's
 * per-action inputs (see ProductModel.writeHeadInputs).
 */
export interface NetworkBatch {
  readonly rows: number;
  readonly x: Float32Array;
  readonly margins: Float32Array;
  readonly rates: Float32Array;
}

/**
 * A gradient step's batch laid out for `QNetwork.trainPrepared` (`prepareStep`): the inputs transposed, and the head's targets, loss weights, constant part and rates in the raw output's layout [rows * (2 + actions)].
 */
export interface StepInputs {
  readonly rows: number;
  readonly xT: Float32Array;
  readonly yOut: Float32Array;
  readonly wOut: Float32Array;
  readonly base: Float32Array;
  readonly ratesOut: Float32Array;
}

/** Zeroed `StepInputs` buffers for `rows` rows; `floats` allocates them (shared memory for another thread). */
export function createStepInputs(
  shape: Pick<QNetworkShape, "inputs" | "actions">,
  rows: number,
  floats: (length: number) => Float32Array = (length) => new Float32Array(length),
): StepInputs {
  const o = 2 + shape.actions;
  return {
    rows,
    xT: floats(shape.inputs * rows),
    yOut: floats(rows * o),
    wOut: floats(rows * o),
    base: floats(rows * o),
    ratesOut: floats(rows * o),
  };
}

/**
 * Lays out a batch (`y` and `w` like `predict`'s output) for `trainPrepared`: output layout [marginal, kappa, action
 * values], the kappa column without a target of its own (weight 0); the head's inputs folded so that
 * pred = raw + base - kappaRaw * ratesOut, with the fluid value in base and ratesOut. Cells left at zero are never
 * written.
 */
export function prepareStep(
  shape: Pick<QNetworkShape, "inputs" | "actions" | "fluidOffset">,
  batch: NetworkBatch,
  y: Float32Array,
  w: Float32Array,
  into: StepInputs,
): void {
  const { rows, x, margins, rates } = batch;
  const f = shape.inputs;
  const a = shape.actions;
  const o = 2 + a;
  const { yOut, wOut, base, ratesOut, xT } = into;
  const scale = 2 / rows;
  for (let r = 0; r < rows; r++) {
    const fluid = x[r * f + shape.fluidOffset] as number;
    const ro = r * o;
    const ry = r * (1 + a);
    const ra = r * a;
    yOut[ro] = y[ry] as number;
    wOut[ro] = (w[ry] as number) * scale;
    base[ro] = fluid;
    for (let k = 0; k < a; k++) {
      const rate = rates[ra + k] as number;
      yOut[ro + 2 + k] = y[ry + 1 + k] as number;
      wOut[ro + 2 + k] = (w[ry + 1 + k] as number) * scale;
      base[ro + 2 + k] = (margins[ra + k] as number) - fluid * rate;
      ratesOut[ro + 2 + k] = rate;
    }
    const rf = r * f;
    for (let c = 0; c < f; c++) xT[c * rows + r] = x[rf + c] as number;
  }
}

interface Inputs {
  readonly x: tf.Tensor2D;
  readonly margins: tf.Tensor2D;
  readonly rates: tf.Tensor2D;
  readonly fluid: tf.Tensor2D;
}

export class QNetwork {
  readonly shape: QNetworkShape;
  readonly layers: readonly LayerParams[];
  /**
   * The weights in `fromArrays` order as the source of truth: training updates them in place (see `trainStep`) and
   * the tfjs variables, which only the forward passes read, are refreshed from them before the next one.
   */
  private readonly weights: Float32Array[];
  private stale = false;
  /** `trainStep`'s host-side buffers for its batch size. */
  private scratch: StepInputs | null = null;
  /** The head's gradient, [rows * (2 + actions)], for `trainPrepared`'s batch size. */
  private dz: Float32Array | null = null;

  private constructor(shape: QNetworkShape, layers: LayerParams[], weights: Float32Array[]) {
    this.shape = shape;
    this.layers = layers;
    this.weights = weights;
  }

  static layerSizes(shape: QNetworkShape): number[] {
    return [shape.inputs, ...shape.hidden, 2 + shape.actions];
  }

  /** Glorot-uniform weights from a seeded generator; the last layer starts near zero (the myopic policy). */
  static init(shape: QNetworkShape, seed: number): QNetwork {
    const rng = seedrandom(`qnet:${seed}`);
    const sizes = QNetwork.layerSizes(shape);
    const flat: Float32Array[] = [];
    for (let l = 0; l + 1 < sizes.length; l++) {
      const fanIn = at(sizes, l);
      const fanOut = at(sizes, l + 1);
      const last = l + 2 === sizes.length;
      const limit = Math.sqrt(6 / (fanIn + fanOut)) * (last ? 0.1 : 1);
      const kernel = new Float32Array(fanIn * fanOut);
      for (let i = 0; i < kernel.length; i++) kernel[i] = (rng() * 2 - 1) * limit;
      flat.push(kernel, new Float32Array(fanOut));
    }
    return QNetwork.fromArrays(shape, flat);
  }

  /** Builds a network from [kernel0, bias0, kernel1, ...] as row-major float32 arrays. */
  static fromArrays(shape: QNetworkShape, arrays: readonly Float32Array[]): QNetwork {
    const sizes = QNetwork.layerSizes(shape);
    if (arrays.length !== 2 * (sizes.length - 1)) throw new RangeError("wrong number of weight tensors");
    const id = instances++;
    const layers: LayerParams[] = [];
    for (let l = 0; l + 1 < sizes.length; l++) {
      const kernel = at(arrays, 2 * l);
      const bias = at(arrays, 2 * l + 1);
      if (kernel.length !== at(sizes, l) * at(sizes, l + 1) || bias.length !== at(sizes, l + 1)) {
        throw new RangeError(`weight tensor ${l} has the wrong size`);
      }
      // A variable keeps its own reference to the initial tensor's data; the tensor itself must still be freed.
      const kernelInit = tf.tensor2d(kernel, [at(sizes, l), at(sizes, l + 1)]);
      const biasInit = tf.tensor1d(bias);
      layers.push({
        kernel: tf.variable(kernelInit, true, `qnet${id}_kernel${l}`),
        bias: tf.variable(biasInit, true, `qnet${id}_bias${l}`),
      });
      kernelInit.dispose();
      biasInit.dispose();
    }
    return new QNetwork(
      shape,
      layers,
      arrays.map((a) => Float32Array.from(a)),
    );
  }

  /**
   * The first layer's rows for `predictRaw`'s stock columns, kept between calls until the weights change: the
   * safety check's decider and the targets' value grid make some 20,000 small forward passes a training, and the
   * gather was one of their ten kernels each.
   */
  private stockKernel: { readonly columns: readonly number[]; readonly tensor: tf.Tensor2D } | null = null;

  private stockKernelOf(columns: readonly number[]): tf.Tensor2D {
    const kept = this.stockKernel;
    if (kept !== null && kept.columns === columns) return kept.tensor;
    kept?.tensor.dispose();
    const tensor = tf.keep(tf.gather(at(this.layers, 0).kernel, columns) as tf.Tensor2D);
    this.stockKernel = { columns, tensor };
    return tensor;
  }

  /** Copies the weights into the tfjs variables when training has moved them since. */
  private refresh(): void {
    if (!this.stale) return;
    this.stale = false;
    this.stockKernel?.tensor.dispose();
    this.stockKernel = null;
    this.variables().forEach((v, i) => {
      tf.tidy(() => v.assign(tf.tensor(at(this.weights, i), v.shape)));
    });
  }

  /** Pre-activations and activations of the hidden layers (index 0 of `act` = the input). */
  private hiddenTrace(x: tf.Tensor2D): { pre: tf.Tensor2D[]; act: tf.Tensor2D[] } {
    const pre: tf.Tensor2D[] = [];
    const act: tf.Tensor2D[] = [x];
    for (let l = 0; l + 1 < this.layers.length; l++) {
      const layer = at(this.layers, l);
      const z = tf.add(tf.matMul(at(act, l), layer.kernel as tf.Tensor2D), layer.bias) as tf.Tensor2D;
      pre.push(z);
      act.push(tf.relu(z));
    }
    return { pre, act };
  }

  /**
   * The head on the last hidden activation: marginal value [N, 1] and action values [N, A]. The output layer is
   * split by slicing its (small) weights rather than its (batch-sized) output, which the wasm backend copies.
   */
  private head(
    h: tf.Tensor2D,
    inputs: Inputs,
  ): { marginal: tf.Tensor2D; kappa: tf.Tensor2D; values: tf.Tensor2D } {
    const last = at(this.layers, this.layers.length - 1);
    const a = this.shape.actions;
    const k = last.kernel as tf.Tensor2D;
    const width = k.shape[0];
    const column = (from: number, size: number): tf.Tensor2D =>
      tf.add(
        tf.matMul(h, tf.slice(k, [0, from], [width, size])),
        tf.slice(last.bias, [from], [size]),
      ) as tf.Tensor2D;
    const marginal = tf.add(column(0, 1), inputs.fluid) as tf.Tensor2D;
    const kappa = tf.add(column(1, 1), inputs.fluid) as tf.Tensor2D;
    const values = tf.add(tf.sub(inputs.margins, tf.mul(kappa, inputs.rates)), column(2, a)) as tf.Tensor2D;
    return { marginal, kappa, values };
  }

  private tensors(batch: NetworkBatch): Inputs {
    const { rows, x } = batch;
    const a = this.shape.actions;
    const fluid = new Float32Array(rows);
    for (let r = 0; r < rows; r++) fluid[r] = at(x, r * this.shape.inputs + this.shape.fluidOffset);
    return {
      x: tf.tensor2d(x, [rows, this.shape.inputs]),
      margins: tf.tensor2d(batch.margins, [rows, a]),
      rates: tf.tensor2d(batch.rates, [rows, a]),
      fluid: tf.tensor2d(fluid, [rows, 1]),
    };
  }

  /**
   * Runs the network on `rows` input vectors packed in `x`; returns [rows * (1 + actions)]: per row the marginal
   * stock value, then one value per action.
   */
  predict(batch: NetworkBatch): Float32Array {
    const { rows } = batch;
    const a = this.shape.actions;
    const result = new Float32Array(rows * (1 + a));
    this.refresh();
    tf.tidy(() => {
      const inputs = this.tensors(batch);
      const { act } = this.hiddenTrace(inputs.x);
      const { marginal, values } = this.head(at(act, act.length - 1), inputs);
      const mu = marginal.dataSync();
      const u = values.dataSync();
      for (let r = 0; r < rows; r++) {
        result[r * (1 + a)] = at(mu, r);
        result.set(u.subarray(r * a, (r + 1) * a), r * (1 + a) + 1);
      }
    });
    return result;
  }

  /**
   * The first layer's response to the day-only inputs, per row of `dayInputs` (full input vectors whose stock
   * columns are zero): [rows * hidden0], without bias. Precomputed once per policy so that inference only
   * multiplies the few stock-dependent inputs.
   */
  embedDays(dayInputs: Float32Array, rows: number): Float32Array {
    let result: Float32Array = new Float32Array(0);
    this.refresh();
    tf.tidy(() => {
      const first = at(this.layers, 0).kernel as tf.Tensor2D;
      result = tf.matMul(tf.tensor2d(dayInputs, [rows, this.shape.inputs]), first).dataSync() as Float32Array;
    });
    return result;
  }

  /**
   * Inference from precomputed day embeddings: `stock` holds [rows * stockColumns.length] stock-dependent inputs,
   * `embedding` [rows * hidden0] the rows of `embedDays`. Returns the raw head [rows * (2 + actions)]: marginal
   * value and kappa residuals (before adding the fluid input), then the per-action residuals.
   */
  predictRaw(
    stock: Float32Array,
    embedding: Float32Array,
    rows: number,
    stockColumns: readonly number[],
  ): Float32Array {
    let result: Float32Array = new Float32Array(0);
    this.refresh();
    tf.tidy(() => {
      const first = at(this.layers, 0);
      const hidden0 = at(first.bias.shape, 0);
      const stockKernel = this.stockKernelOf(stockColumns);
      let h = tf.relu(
        tf.add(
          tf.add(
            tf.matMul(tf.tensor2d(stock, [rows, stockColumns.length]), stockKernel),
            tf.tensor2d(embedding, [rows, hidden0]),
          ),
          first.bias,
        ),
      ) as tf.Tensor2D;
      for (let l = 1; l < this.layers.length; l++) {
        const layer = at(this.layers, l);
        const z = tf.add(tf.matMul(h, layer.kernel as tf.Tensor2D), layer.bias) as tf.Tensor2D;
        h = l + 1 < this.layers.length ? (tf.relu(z) as tf.Tensor2D) : z;
      }
      result = h.dataSync() as Float32Array;
    });
    return result;
  }

  /**
   * The structured head in plain arithmetic over `predictRaw`'s rows: per row the marginal value (raw + fluid)
   * then u_a = margin_a - kappa * rate_a + residual_a with kappa = raw + fluid; `margins` and `rates` are
   * [rows * actions], `fluid` [rows]. Returns [rows * (1 + actions)], `predict`'s layout. Without head inputs
   * (null) only the marginal values are computed and the action values stay zero: a reader of the marginal value
   * alone need not write the head inputs.
   */
  finishHead(
    raw: Float32Array,
    rows: number,
    fluid: Float32Array,
    margins: Float32Array | null,
    rates: Float32Array | null,
  ): Float32Array {
    const a = this.shape.actions;
    const out = new Float32Array(rows * (1 + a));
    for (let r = 0; r < rows; r++) {
      const f = fluid[r] ?? 0;
      const rb = r * (2 + a);
      const ob = r * (1 + a);
      const ra = r * a;
      out[ob] = (raw[rb] ?? 0) + f;
      if (margins === null || rates === null) continue;
      const kappa = (raw[rb + 1] ?? 0) + f;
      for (let k = 0; k < a; k++) {
        out[ob + 1 + k] = (margins[ra + k] ?? 0) - kappa * (rates[ra + k] ?? 0) + (raw[rb + 2 + k] ?? 0);
      }
    }
    return out;
  }

  /**
   * One Adam step on the weighted squared error sum(w * (out - y)^2) / rows, with `y` and `w` laid out like
   * `predict`'s output; returns that loss. The backward pass is written out because tfjs's automatic one runs
   * transposed matrix products, which the wasm backend executes an order of magnitude slower than plain ones; the
   * weights and Adam's moments stay in plain arrays (`adam`), since tfjs's optimizer spends some 90 kernel calls a
   * step on six small tensors. Every tfjs call costs tens of microseconds whatever its size, so the step is laid
   * out for few of them: transposes and the head's constant parts are built here, the fluid input and the
   * kappa column folded into the targets' layout, and the head's loss and gradient computed in JS.
   */
  trainStep(adam: Adam, batch: NetworkBatch, y: Float32Array, w: Float32Array): number {
    if (this.scratch?.rows !== batch.rows) this.scratch = createStepInputs(this.shape, batch.rows);
    prepareStep(this.shape, batch, y, w, this.scratch);
    return this.trainPrepared(adam, batch.x, this.scratch);
  }

  /** `trainStep` of the inputs `x` of a batch `prepareStep` has laid out (here or in another thread). */
  trainPrepared(adam: Adam, x: Float32Array, inputs: StepInputs): number {
    const { rows, yOut, wOut, base, ratesOut, xT } = inputs;
    const f = this.shape.inputs;
    const o = 2 + this.shape.actions;
    if (this.dz?.length !== rows * o) this.dz = new Float32Array(rows * o);
    const dzOut = this.dz;
    const sizes = QNetwork.layerSizes(this.shape);
    const depth = this.layers.length;
    const grads: Float32Array[] = new Array(2 * depth);
    let loss = 0;
    tf.tidy(() => {
      const kernels: tf.Tensor2D[] = [];
      const biases: tf.Tensor1D[] = [];
      for (let l = 0; l < depth; l++) {
        kernels.push(tf.tensor2d(at(this.weights, 2 * l), [at(sizes, l), at(sizes, l + 1)]));
        biases.push(tf.tensor1d(at(this.weights, 2 * l + 1)));
      }
      const act: tf.Tensor2D[] = [tf.tensor2d(x, [rows, f])];
      for (let l = 0; l < depth; l++) {
        const last = l + 1 === depth;
        act.push(
          tf.fused.matMul({
            a: at(act, l),
            b: at(kernels, l),
            bias: at(biases, l),
            activation: last ? "linear" : "relu",
          }) as tf.Tensor2D,
        );
      }
      // The head's loss and its gradient in plain float32 arithmetic (Math.fround after each operation, as the
      // kernels round): some 14 small kernel calls a step fewer, each costing tens of microseconds whatever its size.
      const raw = at(act, depth).dataSync() as Float32Array;
      let lossSum = 0;
      for (let r = 0; r < rows; r++) {
        const ro = r * o;
        const kappaRaw = raw[ro + 1] as number;
        let dKappa = 0;
        for (let c = 0; c < o; c++) {
          const rate = ratesOut[ro + c] as number;
          const pred = Math.fround(
            Math.fround((raw[ro + c] as number) + (base[ro + c] as number)) - Math.fround(kappaRaw * rate),
          );
          const err = Math.fround(pred - (yOut[ro + c] as number));
          const dPred = Math.fround((wOut[ro + c] as number) * err);
          lossSum = Math.fround(lossSum + Math.fround(dPred * err));
          // kappaRaw enters every action value with -rate: its gradient is -sum(dPred * rate) over the row.
          dKappa = Math.fround(dKappa + Math.fround(dPred * rate));
          dzOut[ro + c] = dPred;
        }
        dzOut[ro + 1] = Math.fround((dzOut[ro + 1] as number) - dKappa);
      }
      let dz: tf.Tensor2D = tf.tensor2d(dzOut, [rows, o]);
      for (let l = depth - 1; l >= 0; l--) {
        const input = at(act, l);
        const inputT = l === 0 ? tf.tensor2d(xT, [f, rows]) : tf.transpose(input);
        grads[2 * l] = tf.matMul(inputT, dz).dataSync() as Float32Array;
        // Column sums in JS: the wasm backend's reduction over rows transposes first.
        grads[2 * l + 1] = columnSums(
          l + 1 === depth ? dzOut : (dz.dataSync() as Float32Array),
          rows,
          at(sizes, l + 1),
        );
        if (l > 0) {
          const kernelT = new Float32Array(at(sizes, l) * at(sizes, l + 1));
          transposeInto(at(this.weights, 2 * l), at(sizes, l), at(sizes, l + 1), kernelT);
          const dh = tf.matMul(dz, tf.tensor2d(kernelT, [at(sizes, l + 1), at(sizes, l)]));
          dz = tf.mul(dh, tf.step(input));
        }
      }
      // Weights were pre-scaled by 2 / rows (the gradient's factor); the loss divides by rows once.
      loss = lossSum / 2;
    });
    adam.step(this.weights, grads);
    this.stale = true;
    return loss;
  }

  /** Replaces the weights (`fromArrays` order and shapes), e.g. with another thread's network's `toArrays()`. */
  setWeights(arrays: readonly Float32Array[]): void {
    if (arrays.length !== this.weights.length) throw new RangeError("wrong number of weight tensors");
    this.weights.forEach((w, i) => {
      const source = at(arrays, i);
      if (source.length !== w.length) throw new RangeError(`weight tensor ${i} has the wrong size`);
      w.set(source);
    });
    this.stale = true;
  }

  variables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.kernel, l.bias]);
  }

  /** Weights as float32 arrays in `fromArrays` order (copies). */
  toArrays(): Float32Array[] {
    return this.weights.map((v) => Float32Array.from(v));
  }

  dispose(): void {
    this.stockKernel?.tensor.dispose();
    this.stockKernel = null;
    for (const v of this.variables()) v.dispose();
  }
}

/** `src` [rows x cols] row-major into `out` [cols x rows]. */
function transposeInto(src: Float32Array, rows: number, cols: number, out: Float32Array): void {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) out[c * rows + r] = src[r * cols + c] ?? Number.NaN;
  }
}

/** Sums over the rows of `m` [rows x cols] row-major. */
function columnSums(m: Float32Array, rows: number, cols: number): Float32Array {
  const sums = new Float64Array(cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let c = 0; c < cols; c++) sums[c] = (sums[c] as number) + (m[base + c] as number);
  }
  return Float32Array.from(sums);
}
