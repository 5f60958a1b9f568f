// Exports a TorchScript file whose forward takes one image batch [N, 3, H, W], with a symbolic
// batch, and verifies the ONNX file in ONNX Runtime against LibTorch.
//   export_model MODEL.pt OUT.onnx [H W]
#include <cstdlib>
#include <iostream>
#include <torch/script.h>
#include <torch2onnx/torch2onnx.h>

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: export_model MODEL.pt OUT.onnx [H W]\n";
    return 2;
  }
  const int64_t h = argc == 5 ? std::atoll(argv[3]) : 16;
  const int64_t w = argc == 5 ? std::atoll(argv[4]) : 16;
  try {
    torch::jit::Module module = torch::jit::load(argv[1]);
    torch2onnx::ExportSettings settings;
    settings.opset = 17;
    settings.dynamic_dims = {{"x", {{0, "batch"}}}};
    settings.verify = true;
    settings.log = [](const std::string &line) { std::cerr << "  " << line << "\n"; };
    torch2onnx::ExportResult r =
        torch2onnx::export_module(module, {torch::randn({2, 3, h, w})}, argv[2], settings);
    std::cout << r.output_path << ": opset " << r.opset << ", " << r.nodes << " nodes, "
              << r.parameters << " parameters\n";
    for (const auto &o : r.outputs)
      std::cout << "  " << o.name << " (" << o.sizes << "): max abs error " << o.max_abs_error
                << (o.ok ? " ok" : " FAILED") << "\n";
    return r.verify_ok ? 0 : 1;
  } catch (const torch2onnx::Error &e) {
    std::cerr << "error: " << e.what() << "\n";
    if (!e.hint().empty())
      std::cerr << "hint: " << e.hint() << "\n";
    return 1;
  }
}
