// Two ONNX files of one model in ONNX Runtime, for bench/benchmark.py: latency of both in one
// process (runs alternating, so drift in machine load hits both alike) and the op counts of the
// graphs ONNX Runtime actually runs after its own optimizations.
//   node bench/ort_compare.js OURS.onnx PEER.onnx RUNS ROUNDS DUMP_DIR NAME:TYPE:D1,D2,... [...]
// 1 intra-op thread, graphOptimizationLevel 'all'. TYPE is float32 or int64 (int64 inputs are drawn
// from 0..9); or an input is NAME:npy:FILE.npy, the values of a NumPy file (float32, float64,
// int64, int32, bool). DUMP_DIR '-' skips writing the optimized graphs (files over 2 GB cannot be written).
// PEER.onnx '-' times OURS.onnx alone. Prints JSON:
//   {"ours_ms", "peer_ms", "ratio", "rounds": [{"ours_ms", "peer_ms"}...],
//    "ours_ops": {"Conv": 53, ...}, "peer_ops": {...}}
// ratio is the median over rounds of (median ours / median peer) within the round.
'use strict';
const fs = require('fs');
const path = require('path');
const ortDir = path.resolve(process.env.TORCH2ONNX_ORT_DIR || path.join(__dirname, '..', 'third_party', 'onnxruntime'));
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

// --- a minimal protobuf reader: just enough to count a ModelProto's node op types ---------------
function readVarint(buf, pos) {
  let value = 0;
  let shift = 1;
  for (;;) {
    const b = buf[pos++];
    value += (b & 0x7f) * shift;
    if (b < 0x80) return [value, pos];
    shift *= 128;
  }
}

// Calls visit(field, start, end) for each length-delimited field of the message in buf[start, end).
function eachField(buf, start, end, visit) {
  let pos = start;
  while (pos < end) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      [, pos] = readVarint(buf, pos);
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      visit(field, pos, pos + len);
      pos += len;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
}

// ModelProto.graph = 7, GraphProto.node = 1, NodeProto.op_type = 4, NodeProto.domain = 7.
// Ops of a domain other than ONNX's are counted as "domain:Op".
function opCounts(file) {
  const buf = fs.readFileSync(file);
  const counts = {};
  eachField(buf, 0, buf.length, (f, s, e) => {
    if (f !== 7) return;
    eachField(buf, s, e, (gf, gs, ge) => {
      if (gf !== 1) return;
      let op = '';
      let domain = '';
      eachField(buf, gs, ge, (nf, ns, ne) => {
        if (nf === 4) op = buf.toString('utf8', ns, ne);
        if (nf === 7) domain = buf.toString('utf8', ns, ne);
      });
      const key = domain && domain !== 'ai.onnx' ? `${domain}:${op}` : op;
      counts[key] = (counts[key] || 0) + 1;
    });
  });
  return counts;
}

// A .npy file (format 1.0-3.0, little-endian, C order) as an ort.Tensor.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const dims = shapeText.split(',').map((d) => d.trim()).filter((d) => d).map(Number);
  const types = {
    '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
    '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '|b1': ['bool', Uint8Array],
  };
  if (!types[descr]) throw new Error(`${file}: dtype ${descr} is not supported`);
  const [type, Typed] = types[descr];
  const bytes = buf.subarray(start);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const data = new Typed(copy.buffer, 0, bytes.length / Typed.BYTES_PER_ELEMENT);
  return new ort.Tensor(type, data, dims);
}

function makeFeeds(session, specs) {
  const feeds = {};
  specs.forEach((spec, i) => {
    const parts = spec.split(':');
    if (parts[1] === 'npy') {
      feeds[session.inputNames[i]] = readNpy(parts.slice(2).join(':'));
      return;
    }
    const [, type, dimsText] = parts;
    const dims = dimsText === '' ? [] : dimsText.split(',').map(Number);
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
  return feeds;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function timeOnce(session, feeds) {
  const t0 = process.hrtime.bigint();
  await session.run(feeds);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function open(model, dumpDir, tag) {
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' };
  let dumped = null;
  if (dumpDir !== '-') {
    dumped = path.join(dumpDir, `${tag}.ort.onnx`);
    options.optimizedModelFilePath = dumped;
  }
  const session = await ort.InferenceSession.create(model, options);
  return { session, dumped };
}

async function main() {
  const [oursPath, peerPath, runsText, roundsText, dumpDir, ...specs] = process.argv.slice(2);
  const runs = parseInt(runsText, 10);
  const rounds = parseInt(roundsText, 10);
  const files = [['ours', oursPath]];
  if (peerPath !== '-') files.push(['peer', peerPath]);
  const sessions = [];
  for (const [tag, model] of files) sessions.push({ tag, ...(await open(model, dumpDir, tag)) });
  for (const s of sessions) {
    s.feeds = makeFeeds(s.session, specs);
    for (let w = 0; w < 3; ++w) await s.session.run(s.feeds);
    s.all = [];
  }
  const result = { rounds: [] };
  for (let r = 0; r < rounds; ++r) {
    const times = sessions.map(() => []);
    for (let i = 0; i < runs; ++i) {
      // Alternate which file goes first, so neither always runs on a warmer cache.
      const order = i % 2 ? [...sessions.keys()].reverse() : [...sessions.keys()];
      for (const k of order) times[k].push(await timeOnce(sessions[k].session, sessions[k].feeds));
    }
    const round = {};
    sessions.forEach((s, k) => {
      round[`${s.tag}_ms`] = median(times[k]);
      s.all.push(...times[k]);
    });
    result.rounds.push(round);
  }
  for (const s of sessions) result[`${s.tag}_ms`] = median(s.all);
  if (sessions.length === 2) {
    result.ratio = median(result.rounds.map((r) => r.ours_ms / r.peer_ms));
  }
  for (const s of sessions) {
    if (s.dumped) {
      result[`${s.tag}_ops`] = opCounts(s.dumped);
      fs.rmSync(s.dumped, { force: true });
    }
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => {
  console.error(`ort_compare: ${e.message}`);
  process.exit(1);
});
