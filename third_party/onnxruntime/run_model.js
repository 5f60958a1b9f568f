// Runs one ONNX model in ONNX Runtime (onnxruntime-node) for torch2onnx --verify.
// Request file (text): line 1 model path, line 2 output folder, then one line per input:
//   name<TAB>type<TAB>dims(comma-separated)<TAB>raw-data file
// Writes <folder>/output_N.bin and <folder>/outputs.txt (same line format), in graph order.
// Names and paths are percent-encoded both ways (%XX per byte), so a name holding a tab or a
// newline ("y\nz") stays one field.
'use strict';
const fs = require('fs');
const path = require('path');
// Exit 3: the runtime itself could not be loaded (a broken install), as opposed to exit 1: the
// model failed to load or run ("model error: ..." on stderr).
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  process.stderr.write(`runtime error: cannot load onnxruntime-node: ${String((e && e.message) || e).split('\n')[0]}\n`);
  process.exit(3);
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int64: BigInt64Array,
  int32: Int32Array, int16: Int16Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};

// A percent-encoded field as bytes (paths: Node takes a Buffer as a path, whatever its bytes)
// and as text (names).
function bytes(field) {
  const out = [];
  for (let i = 0; i < field.length; i++) {
    if (field[i] === '%' && i + 2 < field.length && /^[0-9A-Fa-f]{2}$/.test(field.substr(i + 1, 2))) {
      out.push(parseInt(field.substr(i + 1, 2), 16));
      i += 2;
    } else {
      out.push(field.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(out);
}
const text = (field) => bytes(field).toString('utf8');
const encode = (s) => Array.from(Buffer.from(s, 'utf8'), (b) =>
  /[A-Za-z0-9/._-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');

function view(type, buf) {
  const Ctor = ARRAYS[type];
  if (!Ctor) throw new Error(`unsupported input type ${type}`);
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Ctor(copy.buffer, 0, buf.byteLength / Ctor.BYTES_PER_ELEMENT);
}

async function main() {
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.length);
  const [modelField, outDirField, ...inputs] = lines;
  const model = text(modelField);
  const outDir = text(outDirField);
  const threads = parseInt(process.env.TORCH2ONNX_ORT_THREADS || '1', 10);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const line of inputs) {
    const [name, type, dimsText, file] = line.split('\t');
    const dims = dimsText.length ? dimsText.split(',').map(Number) : [];
    feeds[text(name)] = new ort.Tensor(type, view(type, fs.readFileSync(bytes(file))), dims);
  }
  const results = await session.run(feeds);
  const out = [];
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    const file = path.join(outDir, `output_${i}.bin`);
    const data = t.data;
    fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    out.push([encode(name), t.type, t.dims.join(','), encode(file)].join('\t'));
  });
  fs.writeFileSync(path.join(outDir, 'outputs.txt'), out.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write('model error: ' + String((e && e.message) || e).split('\n')[0] + '\n');
  process.exit(1);
});
