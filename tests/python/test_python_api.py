"""The Python module (python/torch2onnx): `import torch2onnx` with Debian's /usr/bin/python3 and
python3-torch, run by ctest as python:api. The numbers are the module's own verification: LibTorch
against ONNX Runtime on the same inputs (verify=True)."""
import os
import tempfile
import unittest

import torch
from torch import nn

import torch2onnx


class Net(nn.Module):
    """A user-style model: conv + batch norm + dropout (eval mode matters) + a head."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        return self.head(self.drop(self.features(x)))


class Gate(nn.Module):
    """Scripted control flow on a runtime value, with an optional argument."""

    def forward(self, x, scale: float = 2.0):
        if bool(x.sum() > 0):
            return torch.relu(x) * scale
        return -x


class Block(nn.Module):
    """A repeated block for functions=: linear, layer norm, residual."""

    def __init__(self, width):
        super().__init__()
        self.lin = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + self.norm(torch.relu(self.lin(x)))


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(12), Block(12), Block(12))
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        return self.head(self.blocks(x))


class CachedDecoder(nn.Module):
    """A decoder layer pair taking past_key_values as a tuple of (key, value) pairs, the way
    Hugging Face's legacy cache is passed; returns the logits and the grown cache."""

    def __init__(self, vocab=40, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, dim)
        self.qkv = nn.ModuleList([nn.Linear(dim, 3 * dim) for _ in range(2)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, past_key_values):
        x = self.emb(input_ids)
        b, t, d = x.shape
        presents = []
        for qkv, (past_k, past_v) in zip(self.qkv, past_key_values):
            q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                       for z in qkv(x).split(d, dim=-1))
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
            att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
            x = x + (att @ v).transpose(1, 2).reshape(b, t, d)
            presents.append((k, v))
        return self.head(x), tuple(presents)


class Api(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_nn_module_traced_in_eval_mode(self):
        torch.manual_seed(0)
        model = Net()
        model.train()
        out = self.path("net.onnx")
        r = torch2onnx.export(model, (torch.randn(2, 3, 16, 16),), out, opset=17,
                              input_names=["images"], output_names=["logits"],
                              dynamic_dims={"images": {0: "batch"}}, verify=True)
        self.assertTrue(model.training, "the training flag is given back")
        self.assertTrue(os.path.exists(out))
        self.assertEqual(r["input_names"], ["images"])
        self.assertEqual(r["output_names"], ["logits"])
        self.assertTrue(r["verified"])
        self.assertTrue(r["verify_ok"], r["outputs"])
        self.assertEqual([o["sizes"] for o in r["outputs"]][0], "batch=2")
        self.assertEqual(len(r["outputs"]), 2)  # the example batch and a second one
        for o in r["outputs"]:
            self.assertLessEqual(o["max_abs_error"], o["tolerance"])

    def test_script_module_and_a_single_tensor(self):
        scripted = torch.jit.script(Gate())
        lines = []
        r = torch2onnx.export(scripted, torch.rand(3, 4), self.path("gate.onnx"), opset=13,
                              verify=True, log=lines.append)
        self.assertEqual(r["opset"], 13)
        self.assertTrue(r["verify_ok"], r["outputs"])
        self.assertTrue(any("written" in line for line in lines), lines)

    def test_errors_are_exceptions_with_the_message(self):
        class Svd(nn.Module):  # aten::linalg_svd has no converter
            def forward(self, x):
                return torch.linalg.svd(x, full_matrices=False)[1]

        out = self.path("svd.onnx")
        with self.assertRaises(torch2onnx.Error) as ctx:
            torch2onnx.export(Svd(), (torch.rand(2, 3) + 1,), out)
        self.assertIn("linalg_svd", str(ctx.exception))
        self.assertIsInstance(ctx.exception, RuntimeError)
        self.assertFalse(os.path.exists(out), "no half-written output")
        with self.assertRaises(torch2onnx.Error) as ctx:
            torch2onnx.export(Net(), (torch.randn(1, 3, 8, 8),), self.path("n.onnx"),
                              dynamic_dims={"nope": {0: "batch"}})
        self.assertIn("'nope'", str(ctx.exception))
        with self.assertRaises(torch2onnx.Error):
            torch2onnx.export(Net(), (torch.randn(1, 3, 8, 8),), self.path("n.onnx"), opset=5)
        with self.assertRaises(TypeError):
            torch2onnx.export(Net(), ("not a tensor",), self.path("n.onnx"))

    def test_functions(self):
        torch.manual_seed(0)
        r = torch2onnx.export(Stack(), (torch.randn(2, 12),), self.path("stack.onnx"), opset=17,
                              dynamic_dims={"x": {0: "batch"}}, verify=True, functions=["Block"])
        self.assertTrue(r["verify_ok"], r["outputs"])
        self.assertEqual(len(r["functions"]), 1, r["functions"])
        f = r["functions"][0]
        self.assertEqual((f["name"], f["module_type"]), ("Block", "Block"))
        self.assertEqual(f["calls"], ["blocks.0", "blocks.1", "blocks.2"])
        self.assertGreater(f["nodes"], 2)
        with self.assertRaises(torch2onnx.Error) as ctx:
            torch2onnx.export(Stack(), (torch.randn(2, 12),), self.path("s13.onnx"), opset=13,
                              functions=["Block"])
        self.assertIn("opset 15", str(ctx.exception))
        with self.assertRaises(torch2onnx.Error) as ctx:
            torch2onnx.export(Stack(), (torch.randn(2, 12),), self.path("s.onnx"),
                              functions=["Blok"])
        self.assertIn("Block", str(ctx.exception))  # the classes the model has are listed

    def test_fallback_domain(self):
        # torch2onnx has no converter for LAPACK's geqrf (docs/not_converted.txt): without
        # fallback_domain the export fails naming the op; with it the op becomes a node of that
        # domain, with a notice.
        class Geqrf(torch.nn.Module):
            def forward(self, x):
                return torch.geqrf(x)[0] * 2

        x = torch.randn(3, 3)
        with self.assertRaises(torch2onnx.Error) as ctx:
            torch2onnx.export(Geqrf(), (x,), self.path("fq.onnx"))
        self.assertIn("aten::geqrf", str(ctx.exception))
        self.assertFalse(os.path.exists(self.path("fq.onnx")))
        r = torch2onnx.export(Geqrf(), (x,), self.path("fq.onnx"), fallback_domain="my.ops")
        self.assertTrue(os.path.exists(self.path("fq.onnx")))
        self.assertTrue(any("geqrf" in n and "my.ops" in n
                            for n in r["notices"] + r["warnings"]), r)
        with open(self.path("fq.onnx"), "rb") as f:
            data = f.read()
        self.assertIn(b"my.ops", data)
        self.assertIn(b"geqrf", data)
        with self.assertRaises(torch2onnx.Error):
            torch2onnx.export(Geqrf(), (x,), self.path("fq2.onnx"), fallback_domain="my.ops",
                              verify=True)

    def test_settings_table(self):
        """Issue 27: the keywords are the settings table's rows, checked before tracing."""
        names = [name for name, _, _ in torch2onnx.settings_help()]
        for name in ("opset", "verify", "rtol", "atol", "seed", "locate", "verify_dims",
                     "external_data", "optimize", "functions", "load_library", "fallback_domain"):
            self.assertIn(name, names)
            self.assertIn(name + ":", torch2onnx.export.__doc__)
        x = torch.randn(1, 3, 8, 8)
        with self.assertRaises(TypeError) as ctx:
            torch2onnx.export(Net(), (x,), self.path("k.onnx"), verfy=True)
        self.assertIn("verfy", str(ctx.exception))
        self.assertIn("verify", str(ctx.exception))  # the settings there are
        for bad in ({"rtol": "small"}, {"rtol": True}, {"opset": 17.0}, {"verify": 1},
                    {"functions": [1]}, {"verify_dims": [3]}):
            with self.assertRaises(TypeError, msg=str(bad)):
                torch2onnx.export(Net(), (x,), self.path("k.onnx"), **bad)
        with self.assertRaises(torch2onnx.UsageError) as ctx:
            torch2onnx.export(Net(), (x,), self.path("k.onnx"), verify_dims={"batch": 0})
        self.assertIsInstance(ctx.exception, ValueError)
        self.assertIsInstance(ctx.exception, torch2onnx.Error)
        self.assertTrue(ctx.exception.hint)
        self.assertFalse(os.path.exists(self.path("k.onnx")))
        # A list setting takes one str as its flag does; the alias `libraries` still works.
        r = torch2onnx.export(Stack(), (torch.randn(2, 12),), self.path("s.onnx"), opset=15,
                              functions="Block", libraries=[], seed=3, verify=True, locate=True)
        self.assertTrue(r["verify_ok"], r["outputs"])
        self.assertEqual([f["module_type"] for f in r["functions"]], ["Block"])

    def test_dtype_f16(self):
        """Issue 29: dtype="f16" halves the weights; verified against float32 LibTorch."""
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.LayerNorm(256), nn.Linear(256, 10))
        x = torch.randn(4, 256)
        torch2onnx.export(model, (x,), self.path("f32.onnx"))
        r = torch2onnx.export(model, (x,), self.path("f16.onnx"), dtype="f16", verify=True)
        self.assertTrue(r["verify_ok"], r["outputs"])
        for o in r["outputs"]:
            self.assertGreaterEqual(o["tolerance"], 1e-2)  # the float16 tolerance
        self.assertLessEqual(os.path.getsize(self.path("f16.onnx")),
                             0.55 * os.path.getsize(self.path("f32.onnx")))
        with self.assertRaises(torch2onnx.UsageError):
            torch2onnx.export(model, (x,), self.path("bf.onnx"), dtype="bf16", verify=True)

    def test_past_key_values_tuple_of_pairs(self):
        """Nested tuple arguments: one ONNX input per tensor, named and made dynamic by path."""
        torch.manual_seed(0)
        ids = torch.randint(0, 40, (2, 3))
        past = tuple((torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)) for _ in range(2))
        model = CachedDecoder().eval()
        dims = {"input_ids": {0: "batch", 1: "seq"}}
        for layer in range(2):
            for kv in range(2):
                dims[f"past_key_values_{layer}_{kv}"] = {0: "batch", 2: "past"}
        out = self.path("cached.onnx")
        r = torch2onnx.export(model, (ids, past), out, dynamic_dims=dims, verify=True)
        self.assertEqual(r["input_names"], ["input_ids", "past_key_values_0_0",
                                            "past_key_values_0_1", "past_key_values_1_0",
                                            "past_key_values_1_1"])
        self.assertTrue(r["verify_ok"], r["outputs"])
        self.assertEqual(len(r["outputs"]), 10)  # 5 outputs at the example and at other sizes
        with self.assertRaises(TypeError):
            torch2onnx.export(model, (ids, ((past[0][0], 3),)), self.path("bad.onnx"))

    def test_dict_batch_argument(self):
        """A Dict[str, Tensor] argument: one input per key, <argument>_<key>."""

        class ByKey(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(6, 3)

            def forward(self, batch):
                return {"out": self.lin(batch["x"]) * batch["w"]}

        batch = {"x": torch.randn(4, 6), "w": torch.rand(4, 1)}
        r = torch2onnx.export(ByKey(), (batch,), self.path("bykey.onnx"),
                              dynamic_dims={"batch_x": {0: "n"}, "batch_w": {0: "n"}},
                              verify=True)
        self.assertEqual(r["input_names"], ["batch_x", "batch_w"])
        self.assertEqual(r["output_names"], ["out"])
        self.assertTrue(r["verify_ok"], r["outputs"])
        with self.assertRaises(TypeError):
            torch2onnx.export(ByKey(), ({"x": 1},), self.path("bad.onnx"))

    def test_argument_checks(self):
        """Reliability round 3 (issue 26): no file named 'None', no tolerance that passes anything."""
        x = torch.randn(1, 3, 8, 8)
        cwd = os.getcwd()
        os.chdir(self.dir.name)
        try:
            with self.assertRaises(TypeError):
                torch2onnx.export(Net(), (x,), None)
            self.assertFalse(os.path.exists("None"))
        finally:
            os.chdir(cwd)
        with self.assertRaises(ValueError):
            torch2onnx.export(Net(), (x,), "")
        for bad in (float("inf"), float("nan"), -1.0):
            with self.assertRaises(ValueError, msg=f"rtol={bad}"):
                torch2onnx.export(Net(), (x,), self.path("t.onnx"), verify=True, rtol=bad)
            with self.assertRaises(ValueError, msg=f"atol={bad}"):
                torch2onnx.export(Net(), (x,), self.path("t.onnx"), verify=True, atol=bad)
        self.assertFalse(os.path.exists(self.path("t.onnx")))

    def test_threads_exporting_to_one_path(self):
        """Two threads exporting to one file at once: both finish with a complete file."""
        import threading
        out = self.path("shared.onnx")
        results, errors = [], []

        x = torch.randn(1, 3, 8, 8)
        # Traced here: PyTorch's tracer is not for two threads at once; the exports are.
        models = [torch.jit.trace(Net().eval(), (x,)) for _ in range(2)]

        def run(model):
            try:
                results.append(torch2onnx.export(model, (x,), out, verify=True))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=run, args=(m,)) for m in models]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertTrue(all(r["verify_ok"] for r in results), results)
        self.assertTrue(os.path.exists(out))
        self.assertEqual(sorted(os.listdir(self.path("shared"))), ["test_data_set_0"])
        self.assertEqual([n for n in os.listdir(self.dir.name) if ".tmp" in n], [])

    def test_version(self):
        self.assertRegex(torch2onnx.__version__, r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
