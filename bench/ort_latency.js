// ONNX Runtime inference latency of one model for bench/benchmark.py: 1 intra-op thread, all
// graph optimizations, random inputs; prints JSON {"median_ms", "min_ms", "runs"}.
//   node bench/ort_latency.js MODEL.onnx RUNS NAME:TYPE:D1,D2,... [...]
// TYPE is float32 or int64 (int64 inputs are drawn from 0..9).
'use strict';
const path = require('path');
// The ONNX Runtime torch2onnx uses: TORCH2ONNX_ORT_DIR, else third_party/onnxruntime.
const ortDir = process.env.TORCH2ONNX_ORT_DIR || path.join(__dirname, '..', 'third_party', 'onnxruntime');
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, runsText, ...specs] = process.argv.slice(2);
  const runs = parseInt(runsText, 10);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const feeds = {};
  specs.forEach((spec, i) => {
    const [, type, dimsText] = spec.split(':');
    const dims = dimsText.split(',').map(Number);
    const n = dims.reduce((a, b) => a * b, 1);
    let data;
    if (type === 'int64') {
      data = new BigInt64Array(n);
      for (let k = 0; k < n; ++k) data[k] = BigInt(k % 10);
    } else {
      data = new Float32Array(n);
      for (let k = 0; k < n; ++k) data[k] = Math.sin(k * 0.37);
    }
    // Inputs in graph order: names differ between exporters, positions do not.
    feeds[session.inputNames[i]] = new ort.Tensor(type, data, dims);
  });
  for (let w = 0; w < 3; ++w) await session.run(feeds);
  const times = [];
  for (let r = 0; r < runs; ++r) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = runs % 2 ? times[(runs - 1) / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  console.log(JSON.stringify({ median_ms: median, min_ms: times[0], runs }));
}

main().catch((e) => {
  console.error(`ort_latency: ${e.message}`);
  process.exit(1);
});
