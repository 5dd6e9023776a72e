import { describe, expect, it } from "vitest";
import { STOCK_FEATURE_COLUMNS } from "./product-model.js";
import {
  BatchPipe,
  createBatch,
  createReplayMemory,
  createStepSlot,
  gatherBatch,
  gatherJob,
  gatherStep,
} from "./replay-batches.js";

const sc = STOCK_FEATURE_COLUMNS.length;

/** A memory of `rows` rows over two products of 3 days, every cell a distinct value. */
function filledMemory(rows: number) {
  const f = sc + 4;
  const memory = createReplayMemory(f, 2, 2, rows);
  let v = 1;
  for (let i = 0; i < rows; i++) {
    memory.rowModel[i] = i % 2;
    memory.rowDay[i] = i % 3;
  }
  for (const array of [memory.stockX, memory.packed, memory.productW]) {
    for (let i = 0; i < array.length; i++) array[i] = v++;
  }
  const dayFeatures = [0, 1].map(() => Float32Array.from({ length: 3 * f }, () => v++));
  return { memory, dayFeatures };
}

describe("replay batches", () => {
  it("gathers a row's day inputs, stock columns, head inputs, targets and product weights", () => {
    const { memory, dayFeatures } = filledMemory(10);
    const batch = createBatch(memory, 1);
    gatherBatch(memory, dayFeatures, Int32Array.of(7), 0, batch);
    const { f, a, out } = memory;
    const x = Array.from(dayFeatures[1]?.subarray(1 * f, 2 * f) ?? []);
    STOCK_FEATURE_COLUMNS.forEach((c, j) => {
      x[c] = memory.stockX[7 * sc + j] as number;
    });
    const width = 2 * a + out;
    expect(Array.from(batch.x)).toEqual(x);
    expect(Array.from(batch.m)).toEqual(Array.from(memory.packed.subarray(7 * width, 7 * width + a)));
    expect(Array.from(batch.r)).toEqual(Array.from(memory.packed.subarray(7 * width + a, 7 * width + 2 * a)));
    expect(Array.from(batch.y)).toEqual(
      Array.from(memory.packed.subarray(7 * width + 2 * a, (7 + 1) * width)),
    );
    expect(Array.from(batch.w)).toEqual(Array.from(memory.productW.subarray(out, 2 * out)));
  });

  it("hands over the batches the other end gathered and leaves the rest to the taker, the same bytes", () => {
    const { memory, dayFeatures } = filledMemory(10);
    const pipe = new BatchPipe(memory, { inputs: memory.f, actions: 2, fluidOffset: 3 }, 2, 8);
    const picks = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8];
    const shape = pipe.buffers.shape;
    const own = createStepSlot(memory, shape, 2);
    const expectStep = (k: number, first: number, gatheredThere: boolean): void => {
      const taken = pipe.take(k);
      expect(taken !== null).toBe(gatheredThere);
      gatherStep(memory, dayFeatures, shape, Int32Array.from(picks), first, own);
      expect(Array.from(taken?.batch.x ?? own.batch.x)).toEqual(Array.from(own.batch.x));
      expect(Array.from(taken?.batch.w ?? own.batch.w)).toEqual(Array.from(own.batch.w));
      expect(Array.from(taken?.prepared.base ?? own.prepared.base)).toEqual(Array.from(own.prepared.base));
      expect(Array.from(taken?.prepared.xT ?? own.prepared.xT)).toEqual(Array.from(own.prepared.xT));
      pipe.done();
    };
    // As many steps as there are slots: the other end gathers them all ahead.
    const first = pipe.begin(4, (into) => into.set(picks.slice(0, 8)));
    gatherJob(pipe.buffers, dayFeatures, first);
    for (let k = 0; k < 4; k++) expectStep(k, 2 * k, true);
    // A step taken back before the other end got to it is skipped there.
    const second = pipe.begin(2, (into) => into.set(picks.slice(8)));
    expectStep(0, 8, false);
    gatherJob(pipe.buffers, dayFeatures, second);
    expectStep(1, 10, true);
    pipe.close();
  });

  it("does the idle work while every slot is full, and returns once the job is superseded", () => {
    const { memory, dayFeatures } = filledMemory(10);
    const pipe = new BatchPipe(memory, { inputs: memory.f, actions: 2, fluidOffset: 3 }, 1, 8);
    // Six steps, four slots: the fifth waits for a consumed step, and the idle work ends the job meanwhile.
    const job = pipe.begin(6, (into) => into.set([1, 2, 3, 4, 5, 6]));
    let idled = 0;
    gatherJob(pipe.buffers, dayFeatures, job, () => {
      idled++;
      if (idled === 3) pipe.begin(1, (into) => into.set([7]));
      return true;
    });
    expect(idled).toBe(3);
  });
});
