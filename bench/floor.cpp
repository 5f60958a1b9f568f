// The floor of an export, for bench/benchmark.py: a process that starts LibTorch, loads a
// TorchScript file and writes every distinct weight's bytes to a file (then fsync). No exporter can
// be faster than this on the same machine; torch2onnx's time is reported as a ratio to it.
//
//   t2o_floor MODEL.pt OUT.bin     load + write the weights; prints the bytes written, and on
//                                  stderr "floor: load S s, write S s" (write includes fsync)
//   t2o_floor --baseline           only start LibTorch (for its baseline memory)
#include <ATen/ATen.h>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <set>
#include <string>
#include <torch/script.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "--baseline") {
    at::Tensor t = at::ones({4}); // touch ATen so its start-up is counted
    std::printf("baseline %.1f\n", t.sum().item<double>());
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: t2o_floor MODEL.pt OUT.bin | t2o_floor --baseline\n");
    return 2;
  }
  auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto t0 = std::chrono::steady_clock::now();
  torch::jit::Module m = torch::jit::load(argv[1]);
  double load_s = seconds_since(t0);
  auto t1 = std::chrono::steady_clock::now();
  int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(argv[2]);
    return 1;
  }
  size_t bytes = 0;
  std::set<const void *> written; // a tied weight (an LM head sharing the embedding) once
  auto write_tensor = [&](const at::Tensor &t) {
    if (!written.insert(t.storage().data()).second)
      return true;
    at::Tensor c = t.contiguous();
    const char *p = static_cast<const char *>(c.data_ptr());
    size_t n = c.nbytes();
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w <= 0)
        return false;
      p += w;
      n -= static_cast<size_t>(w);
      bytes += static_cast<size_t>(w);
    }
    return true;
  };
  for (const auto &p : m.named_parameters(true))
    if (!write_tensor(p.value))
      return 1;
  for (const auto &b : m.named_buffers(true))
    if (!write_tensor(b.value))
      return 1;
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return 1;
  std::fprintf(stderr, "floor: load %.3f s, write %.3f s\n", load_s, seconds_since(t1));
  std::printf("%zu\n", bytes);
  return 0;
}
