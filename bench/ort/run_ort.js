// Times a model with ONNX Runtime's CPU provider, for compare_ort.py: W warm-up runs, then
// K timed runs of session.run on random inputs made once; prints one JSON object with each
// run's milliseconds. onnxruntime-node is installed next to this script, never as a project
// dependency (see bench/README.md).
//
// usage: node run_ort.js MODEL [--threads N] [--runs K] [--warmup W] [--input-shape name=AxB]
'use strict';

const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

function parseArgs(argv) {
  const options = { threads: 1, runs: 10, warmup: 3, shapes: {} };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--threads') options.threads = Number(next());
    else if (arg === '--runs') options.runs = Number(next());
    else if (arg === '--warmup') options.warmup = Number(next());
    else if (arg === '--input-shape') {
      const [name, dims] = next().split('=');
      options.shapes[name] = dims.split('x').map(Number);
    } else if (options.model === undefined) options.model = arg;
    else throw new Error(`unknown argument '${arg}'`);
  }
  if (options.model === undefined) throw new Error('no model given');
  return options;
}

// A fixed-seed generator (mulberry32): the same inputs on every run of the script.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Floats in [-1, 1), integers in [0, 10] (valid indices for embeddings and gathers).
function randomTensor(metadata, shapes, random) {
  const dims = metadata.shape.map((dim, i) => {
    if (shapes[metadata.name]) return shapes[metadata.name][i];
    return typeof dim === 'number' && dim > 0 ? dim : 1;
  });
  const count = dims.reduce((a, b) => a * b, 1);
  switch (metadata.type) {
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from({ length: count }, () => 2 * random() - 1), dims);
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from({ length: count }, () => BigInt(Math.floor(11 * random()))), dims);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from({ length: count }, () => Math.floor(11 * random())), dims);
    default:
      throw new Error(`input ${metadata.name}: dtype ${metadata.type} is not supported`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const loadStart = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(options.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
  const random = generator(0);
  const feeds = {};
  for (const metadata of session.inputMetadata) feeds[metadata.name] = randomTensor(metadata, options.shapes, random);
  const time = async (count) => {
    const ms = [];
    for (let i = 0; i < count; ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return ms;
  };
  const warmup = await time(options.warmup);
  const runs = await time(options.runs);
  console.log(JSON.stringify({
    model: options.model,
    threads: options.threads,
    onnxruntime: ort.env.versions.common,
    load_ms: loadMs,
    warmup_ms: warmup,
    runs_ms: runs,
  }));
}

main().catch((error) => {
  console.error(`run_ort.js: ${error.message}`);
  process.exit(1);
});
