import { STOCK_FEATURE_COLUMNS } from "./product-model.js";
import { createStepInputs, prepareStep, type QNetworkShape, type StepInputs } from "./q-network.js";

/**
 * A training's replay memory (see `ReplayTrainer`), in shared memory so that the second thread can read it: per row
 * its product, day, stock-dependent inputs and, side by side, head inputs and normalized targets; loss weights per
 * product.
 */
export interface ReplayMemory {
  /** Network inputs per row (the day's inputs from the product's model, then the stock columns). */
  readonly f: number;
  readonly a: number;
  /** Outputs per row: the marginal stock value and one advantage per action. */
  readonly out: number;
  readonly rowModel: Int32Array;
  readonly rowDay: Int32Array;
  readonly stockX: Float32Array;
  /** [rows * (2a + out)]: margins, rates, targets. */
  readonly packed: Float32Array;
  /** [product * out]. */
  readonly productW: Float32Array;
}

/** One gradient step's minibatch: inputs, head inputs, targets and loss weights, row by row. */
export interface TrainingBatch {
  readonly x: Float32Array;
  readonly m: Float32Array;
  readonly r: Float32Array;
  readonly y: Float32Array;
  readonly w: Float32Array;
}

/** What a gradient step reads: its minibatch, and the same laid out for the network (`prepareStep`). */
export interface StepSlot {
  readonly batch: TrainingBatch;
  readonly prepared: StepInputs;
}

export type StepShape = Pick<QNetworkShape, "inputs" | "actions" | "fluidOffset">;

export function createStepSlot(
  memory: ReplayMemory,
  shape: StepShape,
  rows: number,
  shared = false,
): StepSlot {
  const floats = shared ? sharedFloats : (length: number) => new Float32Array(length);
  return { batch: createBatch(memory, rows, shared), prepared: createStepInputs(shape, rows, floats) };
}

/** `gatherBatch` into the slot, then `prepareStep`: all of a step's work that does not depend on the weights. */
export function gatherStep(
  memory: ReplayMemory,
  dayFeatures: readonly Float32Array[],
  shape: StepShape,
  picks: Int32Array,
  from: number,
  slot: StepSlot,
): void {
  const { batch, prepared } = slot;
  gatherBatch(memory, dayFeatures, picks, from, batch);
  prepareStep(
    shape,
    { rows: prepared.rows, x: batch.x, margins: batch.m, rates: batch.r },
    batch.y,
    batch.w,
    prepared,
  );
}

/** Float32Arrays of these lengths on one SharedArrayBuffer each (zeroed). */
function sharedFloats(length: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(length * Float32Array.BYTES_PER_ELEMENT));
}

function sharedInts(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT));
}

export function createReplayMemory(f: number, a: number, products: number, capacity: number): ReplayMemory {
  const out = 1 + a;
  return {
    f,
    a,
    out,
    rowModel: sharedInts(capacity),
    rowDay: sharedInts(capacity),
    stockX: sharedFloats(capacity * STOCK_FEATURE_COLUMNS.length),
    packed: sharedFloats(capacity * (2 * a + out)),
    productW: sharedFloats(products * out),
  };
}

export function createBatch(memory: Pick<ReplayMemory, "f" | "a" | "out">, rows: number, shared = false) {
  const floats = shared ? sharedFloats : (length: number) => new Float32Array(length);
  return {
    x: floats(rows * memory.f),
    m: floats(rows * memory.a),
    r: floats(rows * memory.a),
    y: floats(rows * memory.out),
    w: floats(rows * memory.out),
  };
}

/**
 * The minibatch of rows `picks[from .. from + rows)` into `batch`; `dayFeatures[p]` is product p's model's day inputs.
 * The same bytes whichever thread gathers: a step's random reads of the memory (some 0.7 ms of a 2 ms step on
 * 100 products) are what the second thread takes off the training's critical path, with `prepareStep`.
 */
export function gatherBatch(
  memory: ReplayMemory,
  dayFeatures: readonly Float32Array[],
  picks: Int32Array,
  from: number,
  batch: TrainingBatch,
): void {
  const { f, a, out, rowModel, rowDay, stockX, packed, productW } = memory;
  const sc = STOCK_FEATURE_COLUMNS.length;
  const width = 2 * a + out;
  const rows = batch.y.length / out;
  for (let r = 0; r < rows; r++) {
    const row = picks[from + r] as number;
    const p = rowModel[row] as number;
    // The input vector as `ProductModel.writeFeatures` writes it: the day's inputs, then the stock columns.
    copyRow(dayFeatures[p] as Float32Array, batch.x, rowDay[row] as number, r, f);
    for (let j = 0; j < sc; j++)
      batch.x[r * f + (STOCK_FEATURE_COLUMNS[j] as number)] = stockX[row * sc + j] as number;
    const base = row * width;
    for (let j = 0; j < a; j++) {
      batch.m[r * a + j] = packed[base + j] as number;
      batch.r[r * a + j] = packed[base + a + j] as number;
    }
    for (let j = 0; j < out; j++) batch.y[r * out + j] = packed[base + 2 * a + j] as number;
    copyRow(productW, batch.w, p, r, out);
  }
}

/**
 * Row `from` of `src` into row `to` of `dst` (rows of `width` values). A plain loop: `set(subarray(...))` allocates
 * a view per call, and a gradient step copies five rows per sampled state (1.3 M copies for 100 products).
 */
function copyRow(src: Float32Array, dst: Float32Array, from: number, to: number, width: number): void {
  const s = from * width;
  const d = to * width;
  for (let j = 0; j < width; j++) dst[d + j] = src[s + j] as number;
}

/** Batches gathered ahead of the training's thread by the second: how many steps ahead it may be. */
const SLOTS = 4;

/** A batch the second thread has been gathering for this long (seconds) is never coming. */
const GIVE_UP_SECONDS = 30;

/** Phases of one step's batch in `BatchPipeBuffers.control` (plus 4 x the job number). */
const UNCLAIMED = 0;
const GATHERING = 1;
const READY = 2;
const TAKEN_BACK = 3;

/** Control words before the per-step states: steps consumed in total, the current job (-1: none, stop). */
const CONSUMED = 0;
const JOB = 1;
const STATES = 2;

/** What the two threads share to pass batches (structured-cloneable: shared buffers only). */
export interface BatchPipeBuffers {
  readonly memory: ReplayMemory;
  readonly shape: StepShape;
  /** Per step of the current job its batch's rows, [step * batchSize + r]. */
  readonly picks: Int32Array;
  readonly control: Int32Array;
  readonly slots: readonly StepSlot[];
  readonly batchSize: number;
}

/** A job for the second thread: gather the batches of `steps` steps, the first being step number `base` overall. */
export interface BatchJob {
  readonly job: number;
  readonly steps: number;
  readonly base: number;
}

/**
 * The training thread's end of the batch pipe. Per job (one day's steps, a chunk of the final phase) it draws every
 * step's rows first (the generator's draws in the same order as step by step) and offers the gathering to the second
 * thread; each step's batch is then claimed by whichever thread comes first, so a second thread busy elsewhere (the
 * rule's safety margins, a slow start) only means this one gathers more itself. The batches are the same either way.
 */
export class BatchPipe {
  readonly buffers: BatchPipeBuffers;
  private job = 0;
  private consumed = 0;

  constructor(memory: ReplayMemory, shape: StepShape, batchSize: number, maxSteps: number) {
    this.buffers = {
      memory,
      shape: { inputs: shape.inputs, actions: shape.actions, fluidOffset: shape.fluidOffset },
      picks: sharedInts(maxSteps * batchSize),
      control: sharedInts(STATES + maxSteps),
      slots: Array.from({ length: SLOTS }, () => createStepSlot(memory, shape, batchSize, true)),
      batchSize,
    };
    Atomics.store(this.buffers.control, JOB, -1);
  }

  /** Starts a job of `steps` steps whose rows `pick` writes; returns it for the second thread. */
  begin(steps: number, pick: (picks: Int32Array) => void): BatchJob {
    const { control, picks } = this.buffers;
    this.job++;
    pick(picks.subarray(0, steps * this.buffers.batchSize));
    for (let k = 0; k < steps; k++) Atomics.store(control, STATES + k, this.job * 4 + UNCLAIMED);
    Atomics.store(control, JOB, this.job);
    return { job: this.job, steps, base: this.consumed };
  }

  /** Step k's slot filled by the second thread, or null when this thread is to fill one (`gatherStep`). */
  take(k: number): StepSlot | null {
    const { control, slots } = this.buffers;
    const at = STATES + k;
    const tag = this.job * 4;
    const seen = Atomics.compareExchange(control, at, tag + UNCLAIMED, tag + TAKEN_BACK);
    if (seen === tag + UNCLAIMED) return null;
    // Being gathered there: a fraction of a step's time at most, unless that thread died mid-batch.
    for (let waited = 0; Atomics.load(control, at) === tag + GATHERING; waited++) {
      if (waited === GIVE_UP_SECONDS)
        throw new Error("the training's second thread stopped gathering a batch");
      Atomics.wait(control, at, tag + GATHERING, 1000);
    }
    return slots[k % SLOTS] as StepSlot;
  }

  /** Step k's batch is used up: its slot may take the batch SLOTS steps later. */
  done(): void {
    this.consumed++;
    Atomics.store(this.buffers.control, CONSUMED, this.consumed);
    Atomics.notify(this.buffers.control, CONSUMED);
  }

  /** No more jobs: a second thread still waiting for a slot gives up. */
  close(): void {
    Atomics.store(this.buffers.control, JOB, -1);
    Atomics.notify(this.buffers.control, CONSUMED);
  }
}

/**
 * The second thread's end: gathers the job's batches ahead of the training's thread, SLOTS at most, skipping those
 * that thread took back. Returns once the job is over (every step claimed) or superseded. While every slot is
 * full it calls `idle` (a few ms of other work; false when it has none) instead of waiting: a step it then misses
 * the training's thread gathers itself.
 */
export function gatherJob(
  buffers: BatchPipeBuffers,
  dayFeatures: readonly Float32Array[],
  { job, steps, base }: BatchJob,
  idle: () => boolean = () => false,
): void {
  const { control, picks, slots, memory, shape, batchSize } = buffers;
  const tag = job * 4;
  for (let k = 0; k < steps; k++) {
    // The slot is free once the step SLOTS before this one is used up.
    for (;;) {
      if (Atomics.load(control, JOB) !== job) return;
      const consumed = Atomics.load(control, CONSUMED);
      if (consumed >= base + k - SLOTS + 1) break;
      if (idle()) continue;
      Atomics.wait(control, CONSUMED, consumed, 1000);
    }
    const at = STATES + k;
    if (Atomics.compareExchange(control, at, tag + UNCLAIMED, tag + GATHERING) !== tag + UNCLAIMED) continue;
    gatherStep(memory, dayFeatures, shape, picks, k * batchSize, slots[k % SLOTS] as StepSlot);
    Atomics.store(control, at, tag + READY);
    Atomics.notify(control, at);
  }
}
