// Worker-thread entry of data-parallel SFT (parallel_sft.ts): a replica of the model that, given
// the current weights and its rows of a batch, returns the gradients of those rows' summed NLL over
// the whole batch's divisor. It holds no optimizer: the coordinator sums, clips and applies.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { parentPort, workerData } from 'node:worker_threads';
import type { ModelConfig } from '../../src/model_files/hf_config.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { sftGradients, type SftExample } from '../../src/rl/sft.ts';
import type { HelperReply, HelperRequest } from './parallel_sft.ts';

const { config, backend } = workerData as { config: ModelConfig; backend: string; entry: string };
const port = parentPort!;
if (!(await tf.setBackend(backend)))
  throw new Error(`tf.setBackend('${backend}') failed in an SFT worker`);
const model = CausalLM.fromWeights(config, randomWeights(config), { kind: 'full' });
const variables = [...model.trainableVariables()];

port.on('message', (request: HelperRequest) => {
  let reply: HelperReply;
  try {
    if (request.weights.length !== variables.length)
      throw new Error(`expected ${variables.length} weight arrays, got ${request.weights.length}`);
    variables.forEach(([name, variable], i) => {
      const data = request.weights[i]!;
      if (data.length !== variable.size)
        throw new Error(
          `weight ${name}: ${data.length} values for shape [${variable.shape.join(', ')}]`,
        );
      tf.tidy(() => variable.assign(tf.tensor(data, variable.shape)));
    });
    const { value, grads } = sftGradients(model, request.batch as SftExample[], request.divisor);
    const names = Object.keys(grads);
    // Copies (a backend's dataSync may return its own buffer), so they can be transferred.
    const data = names.map((name) => (grads[name]!.dataSync() as Float32Array).slice());
    Object.values(grads).forEach((g) => g.dispose());
    reply = { value, names, grads: data };
    port.postMessage(
      reply,
      data.map((d) => d.buffer as ArrayBuffer),
    );
  } catch (error) {
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    port.postMessage(reply);
  }
});
port.postMessage({ ready: true });
