"""Writing fixture files (shared by the scripts in models/).

Besides the TorchScript file, a fixture keeps the test suite's independent oracle (issue 25):
`save_oracle` writes NAME.expected.pt, the outputs Python computes from a fresh
`torch.jit.load(NAME.pt)` on the fixture's own inputs, which the tests hand to
`torch2onnx --expected-outputs` so the ONNX file is checked in ONNX Runtime against Python, not
only against the exporter's own LibTorch run (--verify).
"""
import json
import os
import re
import tempfile

import torch

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
          "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8,
          "u8": torch.uint8, "bool": torch.bool}

# Bump when what save_oracle writes changes: every NAME.expected.pt is then made again.
ORACLE_VERSION = 2


def save_module(module, path):
    """Saves a TorchScript module to `path` through a temporary file in the same folder, so an
    interrupted run never leaves a truncated fixture."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".pt.tmp")
    os.close(fd)
    module.save(tmp)
    os.replace(tmp, path)


def torch_save(value, path):
    """torch.save through a temporary file and a rename (never a half-written file)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    os.close(fd)
    torch.save(value, tmp)
    os.replace(tmp, path)


def parse_spec(spec):
    """'x:f32[1,3,224,224]' -> (torch.float32, [1, 3, 224, 224], None); symbolic dims give their
    example size ('x:f32[batch=2,3]' -> [2, 3]); a value range 'ids:i64[1,8]:0..99' -> (0, 99)."""
    m = re.fullmatch(r"(?:[A-Za-z_][\w.]*:)?(\w+)\[([^\]]*)\](?::([-+\w.]+)\.\.([-+\w.]+))?",
                     spec.strip())
    if not m or m.group(1) not in DTYPES:
        raise ValueError(f"bad input spec '{spec}' (expected [name:]dtype[dims], e.g. x:f32[1,3,224,224])")
    dims = [int(d.split("=")[-1]) for d in m.group(2).split(",") if d.strip()]
    rng = (float(m.group(3)), float(m.group(4))) if m.group(3) is not None else None
    return DTYPES[m.group(1)], dims, rng


def random_inputs(specs, seed=0):
    """The example values torch2onnx makes for these --input specs when no --input-data is given
    (exporter/verify/verify.cpp make_example_inputs): one CPU generator seeded with `seed` (the CLI's
    --seed, default 0) drawn in spec order; floats N(0,1) drawn as float32, integers in [0, 10),
    bools 0/1, or uniform in a spec's LO..HI. LibTorch and Python share the generator, so these are
    the very values `torch2onnx --verify` checks without --input-data."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for spec in specs:
        dtype, dims, rng = parse_spec(spec)
        if rng and dtype.is_floating_point:
            t = (torch.rand(dims, generator=g, dtype=torch.float64) * (rng[1] - rng[0]) + rng[0])
        elif rng:
            t = torch.randint(int(rng[0]), int(rng[1]) + 1, dims, generator=g)
        elif dtype.is_floating_point:
            t = torch.randn(dims, generator=g, dtype=torch.float32)
        elif dtype == torch.bool:
            t = torch.randint(0, 2, dims, generator=g)
        else:
            t = torch.randint(0, 10, dims, generator=g)
        out.append(t.to(dtype))
    return out


def flatten_outputs(value):
    """forward's result as torch2onnx's ONNX outputs: tensors of tuples, lists and dict values in
    order, None left out, numbers as 0-d tensors (exporter/core/tensor_util.cpp flatten_tensors)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flatten_outputs(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten_outputs(v)]
    if value is None:
        return []
    if isinstance(value, bool):
        return [torch.tensor(value, dtype=torch.bool)]
    if isinstance(value, int):
        return [torch.tensor(value, dtype=torch.int64)]
    if isinstance(value, float):
        return [torch.tensor(value, dtype=torch.float64)]
    raise TypeError(f"forward returned a {type(value).__name__}, which is not a tensor")


def stem_of(model_path):
    return model_path[:-3] if model_path.endswith(".pt") else model_path


def inputs_path(model_path):
    """Where a fixture keeps the example inputs it made (torch2onnx --input-data)."""
    return stem_of(model_path) + ".inputs.pt"


def expected_path(model_path):
    """Where a fixture keeps Python's outputs (torch2onnx --expected-outputs)."""
    return stem_of(model_path) + ".expected.pt"


def load_input_file(path):
    """The tensors of one --input-data file (.npy, .npz in order, or a torch.save'd tensor,
    tuple or list)."""
    if path.endswith(".npy"):
        import numpy
        return [torch.from_numpy(numpy.load(path))]
    if path.endswith(".npz"):
        import numpy
        with numpy.load(path) as z:
            return [torch.from_numpy(z[k]) for k in z.files]
    v = torch.load(path)
    return [v] if isinstance(v, torch.Tensor) else list(v)


def _same_tensors(path, tensors):
    if not os.path.exists(path):
        return False
    old = torch.load(path)
    return len(old) == len(tensors) and all(
        a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b) for a, b in zip(old, tensors))


def _stamp(path):
    st = os.stat(path)
    return [os.path.basename(path), st.st_size, st.st_mtime_ns]


def save_oracle(model_path, inputs=None, input_files=None):
    """Writes NAME.expected.pt beside `model_path`: the flat tuple of outputs (flatten_outputs) of a
    fresh torch.jit.load of the saved file, in eval mode under no_grad, on the fixture's inputs.
    Give either `inputs` (tensors this fixture made: also saved, as NAME.inputs.pt, for
    --input-data) or `input_files` (the --input-data files the tests pass). Kept when the model,
    the input files and ORACLE_VERSION are those NAME.expected.json recorded. Returns
    "expected kept" or "expected made"."""
    expected, meta = expected_path(model_path), stem_of(model_path) + ".expected.json"
    files = list(input_files) if input_files else [inputs_path(model_path)]
    if inputs is not None and input_files is None and not _same_tensors(files[0], inputs):
        torch_save(tuple(inputs), files[0])  # rewritten only when they changed (its stamp counts)
    record = {"version": ORACLE_VERSION, "torch": torch.__version__, "model": _stamp(model_path),
              "inputs": [_stamp(f) for f in files]}
    if os.path.exists(expected) and os.path.exists(meta):
        with open(meta) as f:
            old = json.load(f)
        old.pop("grad", None)
        if old == record:
            return "expected kept"
    args = [t for f in files for t in load_input_file(f)]
    model = torch.jit.load(model_path, map_location="cpu").eval()
    try:
        with torch.no_grad():
            outputs = flatten_outputs(model(*args))
    except RuntimeError as e:
        # nn.MultiheadAttention's fast path (no grad, eval) returns an undefined tensor for
        # need_weights=False, which TorchScript cannot hand to Python as None ("strides() called
        # on an undefined Tensor"); with grad enabled it takes the slow path, which returns None.
        if "undefined Tensor" not in str(e):
            raise
        record["grad"] = True
        outputs = flatten_outputs(model(*args))
    # A tuple: LibTorch 1.13 cannot unpickle a list of one element (no APPEND opcode).
    torch_save(tuple(t.detach().contiguous() for t in outputs), expected)
    with open(meta, "w") as f:
        json.dump(record, f)
    return "expected made"
