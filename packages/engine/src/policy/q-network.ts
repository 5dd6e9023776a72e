import seedrandom from "seedrandom";
import { tf } from "../backend/tf-backend.js";
import { at } from "../base/checked-index.js";

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

interface Inputs {
  readonly x: tf.Tensor2D;
  readonly margins: tf.Tensor2D;
  readonly rates: tf.Tensor2D;
  readonly fluid: tf.Tensor2D;
}

export class QNetwork {
  readonly shape: QNetworkShape;
  readonly layers: readonly LayerParams[];

  private constructor(shape: QNetworkShape, layers: LayerParams[]) {
    this.shape = shape;
    this.layers = layers;
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
    return new QNetwork(shape, layers);
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
    tf.tidy(() => {
      const first = at(this.layers, 0);
      const hidden0 = at(first.bias.shape, 0);
      const stockKernel = tf.gather(first.kernel, stockColumns) as tf.Tensor2D;
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
   * One optimizer step on the weighted squared error sum(w * (out - y)^2) / rows, with `y` and `w` laid out like
   * `predict`'s output; returns that loss. The backward pass is written out because tfjs's automatic one runs
   * transposed matrix products, which the wasm backend executes an order of magnitude slower than plain ones.
   */
  trainStep(optimizer: tf.Optimizer, batch: NetworkBatch, y: Float32Array, w: Float32Array): number {
    const { rows } = batch;
    const a = this.shape.actions;
    const yMu = new Float32Array(rows);
    const wMu = new Float32Array(rows);
    const yU = new Float32Array(rows * a);
    const wU = new Float32Array(rows * a);
    for (let r = 0; r < rows; r++) {
      yMu[r] = at(y, r * (1 + a));
      wMu[r] = at(w, r * (1 + a));
      yU.set(y.subarray(r * (1 + a) + 1, (r + 1) * (1 + a)), r * a);
      wU.set(w.subarray(r * (1 + a) + 1, (r + 1) * (1 + a)), r * a);
    }
    let loss = 0;
    tf.tidy(() => {
      const inputs = this.tensors(batch);
      const { pre, act } = this.hiddenTrace(inputs.x);
      const h = at(act, act.length - 1);
      const { marginal, values } = this.head(h, inputs);
      const errMu = tf.sub(marginal, tf.tensor2d(yMu, [rows, 1]));
      const errU = tf.sub(values, tf.tensor2d(yU, [rows, a]));
      const dMuRaw = tf.mul(tf.tensor2d(wMu, [rows, 1]), errMu);
      const dURaw = tf.mul(tf.tensor2d(wU, [rows, a]), errU);
      const lossT = tf.div(tf.add(tf.sum(tf.mul(dMuRaw, errMu)), tf.sum(tf.mul(dURaw, errU))), rows);
      const dMu = tf.mul(dMuRaw, 2 / rows);
      const dU = tf.mul(dURaw, 2 / rows);
      const dKappa = tf.neg(tf.sum(tf.mul(dU, inputs.rates), 1, true));
      let dz = tf.concat([dMu, dKappa, dU], 1) as tf.Tensor2D;
      const grads: Record<string, tf.Tensor> = {};
      for (let l = this.layers.length - 1; l >= 0; l--) {
        const layer = at(this.layers, l);
        grads[layer.kernel.name] = tf.matMul(tf.transpose(at(act, l)), dz);
        grads[layer.bias.name] = tf.sum(dz, 0);
        if (l > 0) {
          const dh = tf.matMul(dz, tf.transpose(layer.kernel as tf.Tensor2D));
          dz = tf.mul(dh, tf.step(at(pre, l - 1))) as tf.Tensor2D;
        }
      }
      optimizer.applyGradients(grads);
      loss = at(lossT.dataSync(), 0);
    });
    return loss;
  }

  variables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.kernel, l.bias]);
  }

  /** Weights as float32 arrays in `fromArrays` order. */
  toArrays(): Float32Array[] {
    return this.variables().map((v) => Float32Array.from(v.dataSync()));
  }

  dispose(): void {
    for (const v of this.variables()) v.dispose();
  }
}
