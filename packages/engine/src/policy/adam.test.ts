import { describe, expect, it } from "vitest";
import { initTfBackend, tf } from "../backend/tf-backend.js";
import { Adam } from "./adam.js";

describe("Adam on plain arrays", () => {
  // tfjs rounds every intermediate to float32, this loop only the stored values: they part by about 1e-5 in 50 steps.
  it("follows tfjs's Adam step for step, learning-rate changes included", async () => {
    await initTfBackend();
    const start = [0.5, -1.5, 2, 0];
    const target = [1, 2, -3, 0.25];
    const ours = [Float32Array.from(start)];
    const adam = new Adam(0.05);
    const theirs = tf.variable(tf.tensor1d(start));
    const reference = tf.train.adam(0.05);
    for (let step = 0; step < 50; step++) {
      const rate = step < 25 ? 0.05 : 0.01;
      adam.learningRate = rate;
      (reference as unknown as { learningRate: number }).learningRate = rate;
      // Gradient of sum((w - target)^2) / 2: w - target.
      const w = ours[0] ?? new Float32Array(0);
      adam.step(ours, [Float32Array.from(w, (x, i) => x - (target[i] ?? 0))]);
      tf.tidy(() => reference.applyGradients({ [theirs.name]: tf.sub(theirs, tf.tensor1d(target)) }));
    }
    const expected = Array.from(theirs.dataSync());
    Array.from(ours[0] ?? []).forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i] ?? Number.NaN, 4);
    });
    theirs.dispose();
    reference.dispose();
  });
});
