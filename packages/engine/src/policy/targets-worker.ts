import { parentPort, workerData } from "node:worker_threads";
import { initTfBackend } from "../backend/tf-backend.js";
import { dayTargets } from "./bellman-targets.js";
import { FLUID_VALUE_FEATURE, ProductModel } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import { buildSimulator } from "./simulator.js";
import type { TargetsReply, TargetsRequest, TargetsThreadData } from "./targets-in-worker.js";

// Entry point of a training's second thread (see `startTargetsThread`): the simulator once, then one day's replay
// rows of the products the parent asks for, under the parent's current weights.
const port = parentPort;
if (port === null) throw new Error("targets-worker must run in a worker thread");
const data = workerData as TargetsThreadData;
const { models } = buildSimulator(data.input);
const backendReady = initTfBackend();
let net: QNetwork | null = null;
port.on("message", (request: TargetsRequest) => {
  void (async () => {
    try {
      await backendReady;
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
          request.weights,
        );
      } else {
        net.setWeights(request.weights);
      }
      const rows = dayTargets(
        net,
        request.products.map((p) => {
          const model = models[p.index];
          if (model === undefined) throw new RangeError(`unknown product index ${p.index}`);
          return { model, stocks: p.stocks };
        }),
        request.day,
      );
      const reply: TargetsReply = { type: "rows", day: request.day, rows };
      port.postMessage(
        reply,
        rows.flatMap((r) => [
          r.stockX.buffer,
          r.margins.buffer,
          r.rates.buffer,
          r.y.buffer,
          r.w.buffer,
          r.values.buffer,
        ]) as ArrayBuffer[],
      );
    } catch (error) {
      const reply: TargetsReply = {
        type: "error",
        message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      };
      port.postMessage(reply);
    }
  })();
});
