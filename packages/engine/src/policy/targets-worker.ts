import { parentPort } from "node:worker_threads";
import { initTfBackend } from "../backend/tf-backend.js";
import { dayTargets } from "./bellman-targets.js";
import { FLUID_VALUE_FEATURE, ProductModel } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import { type BatchPipeBuffers, gatherJob } from "./replay-batches.js";
import { RlPolicy } from "./rl-policy.js";
import {
  type PolicyMargins,
  policyMarginsUnderModels,
  type RuleMarginSteps,
  ruleMarginsInSteps,
  ruleMarginsUnderModels,
  ruleWorstMargin,
  type SafetyProduct,
} from "./safe-improvement.js";
import { buildSimulator } from "./simulator.js";
import type {
  DayRequest,
  InitRequest,
  PolicyRequest,
  TargetsReply,
  TargetsRequest,
  TargetsThreadData,
} from "./targets-in-worker.js";
import { epochMs } from "./targets-in-worker.js";
import type { TrainingInput } from "./training-input.js";

// Entry point of a training's second thread (see `spawnTargetsThread`): TensorFlow at once, the simulator when the
// training's input arrives, then one day's replay rows of the products the parent asks for under the parent's
// current weights; while the parent takes its gradient steps, their minibatches (`gatherJob`); between days and
// while every batch slot is full, the rule's safety-check margins; at the end the trained policy's margins the
// parent asks for.
const port = parentPort;
if (port === null) throw new Error("targets-worker must run in a worker thread");
const backendReady = initTfBackend();
let net: QNetwork | null = null;

interface Training {
  readonly data: TargetsThreadData;
  readonly models: readonly ProductModel[];
}
let training: Training | null = null;
let batches: { readonly buffers: BatchPipeBuffers; readonly dayFeatures: Float32Array[] } | null = null;
const current = (): Training => {
  if (training === null) throw new Error("the training thread has no input yet");
  return training;
};

const send = (reply: TargetsReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);
const fail = (error: unknown): void =>
  send({
    type: "error",
    message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });

// The parent computes every target itself until this is posted, so its first days never wait on the start-up.
void backendReady.then(() => send({ type: "ready" }), fail);

function networkWith(weights: readonly Float32Array[]): QNetwork {
  const { data, models } = current();
  const first = models[0];
  if (first === undefined) throw new RangeError("no products");
  if (net === null) {
    net = QNetwork.fromArrays(
      {
        inputs: first.featureCount,
        hidden: data.hidden,
        actions: first.actionCount,
        marginOffset: ProductModel.marginOffset,
        fluidOffset: FLUID_VALUE_FEATURE,
      },
      weights,
    );
  } else {
    net.setWeights(weights);
  }
  return net;
}

function answerDay(request: DayRequest): void {
  const { models } = current();
  const rows = dayTargets(
    networkWith(request.weights),
    request.products.map((p) => {
      const model = models[p.index];
      if (model === undefined) throw new RangeError(`unknown product index ${p.index}`);
      return { model, stocks: p.stocks };
    }),
    request.day,
  );
  send(
    { type: "rows", day: request.day, rows, finishedAt: epochMs() },
    rows.flatMap((r) => [
      r.stockX.buffer,
      r.margins.buffer,
      r.rates.buffer,
      r.y.buffer,
      r.w.buffer,
      r.values.buffer,
    ]) as ArrayBuffer[],
  );
}

function answerPolicy(request: PolicyRequest, z: number): void {
  const { data } = current();
  const policy = RlPolicy.create(request.policy);
  try {
    const byId = new Map(data.input.products.map((p) => [p.setup.productId, p]));
    const ruleById = new Map(rule);
    const margins: (readonly [string, PolicyMargins])[] = [];
    const { productIds, next } = request;
    for (let k = Atomics.add(next, 0, 1); k < productIds.length; k = Atomics.add(next, 0, 1)) {
      const id = productIds[k] as string;
      const product = byId.get(id);
      // The rule's margins are done long before the policy is (a product not reached yet is computed here).
      const ruleMargins = ruleById.get(id) ?? (product === undefined ? null : ruleMarginsOf(product, z));
      const worst = ruleWorstMargin(ruleMargins);
      margins.push([id, policyMarginsUnderModels(policy, id, product?.demandUncertainty, z, worst)]);
    }
    send({ type: "policy", margins });
  } finally {
    policy.dispose();
  }
}

function ruleMarginsOf(product: TrainingInput["products"][number], z: number): number[] | null {
  return ruleMarginsUnderModels(safetyProductOf(product), z);
}

function safetyProductOf(product: TrainingInput["products"][number]): SafetyProduct {
  return { ...product, rates: Float32Array.from(product.rates) };
}

// The rule's margins, product by product in the order of the input, one plausible model per `ruleStep`: between
// days one product per turn of the event loop (a day's request waits for one product at most), and while a batch
// waits for a free slot (`gatherJob`'s idle spells) one model at a time.
const rule: (readonly [string, number[] | null])[] = [];
let ruleWork: {
  readonly products: TrainingInput["products"];
  readonly z: number;
  next: number;
  current: { readonly id: string; readonly steps: RuleMarginSteps } | null;
} | null = null;

/** One plausible model of the rule's margins; false when none is left (the margins are then sent). */
function ruleStep(): boolean {
  const work = ruleWork;
  if (work === null) return false;
  if (work.current === null) {
    const product = work.products[work.next];
    if (product === undefined) {
      ruleWork = null;
      send({ type: "rule", margins: rule });
      return false;
    }
    work.next++;
    work.current = {
      id: product.setup.productId,
      steps: ruleMarginsInSteps(safetyProductOf(product), work.z),
    };
  }
  const { id, steps } = work.current;
  if (steps.step()) {
    rule.push([id, steps.margins]);
    work.current = null;
  }
  return true;
}

const ruleNext = (): void => {
  try {
    const done = rule.length;
    while (rule.length === done && ruleStep()) {
      // Until this product's margins are complete.
    }
    if (ruleWork !== null) setImmediate(ruleNext);
  } catch (error) {
    fail(error);
  }
};

function init(request: InitRequest): void {
  if (training !== null) throw new Error("the training thread has its input already");
  const { models } = buildSimulator(request.data.input);
  training = { data: request.data, models };
  const z = request.data.safetyZ;
  if (z !== null) {
    ruleWork = { products: request.data.input.products, z, next: 0, current: null };
    setImmediate(ruleNext);
  }
}

port.on("message", (request: TargetsRequest) => {
  // The input is taken at once, so the rule's margins start while TensorFlow may still be loading.
  if (request.type === "init") {
    try {
      init(request);
    } catch (error) {
      fail(error);
    }
    return;
  }
  // Batches need no TensorFlow, and the training's thread waits for one it sees this thread has started.
  if (request.type === "share-batches" || request.type === "batches") {
    try {
      if (request.type === "share-batches") {
        batches = { buffers: request.buffers, dayFeatures: current().models.map((m) => m.dayFeatures) };
      } else if (batches !== null) {
        gatherJob(batches.buffers, batches.dayFeatures, request.job, ruleStep);
      }
    } catch (error) {
      fail(error);
    }
    return;
  }
  void (async () => {
    try {
      await backendReady;
      const z = current().data.safetyZ;
      if (request.type === "day") answerDay(request);
      else if (z !== null) answerPolicy(request, z);
      else throw new Error("the safety check needs a thread started with a z");
    } catch (error) {
      fail(error);
    }
  })();
});
