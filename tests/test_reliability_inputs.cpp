// Reliability round 3 (issue 26), the readers of --input-data (.npy, .npz, .pb, torch.save .pt):
// every input crafted here at test time. Each reader refuses what is not a regular file, reads at
// most its file's size (a stated size is checked against the bytes there before anything of that
// size is made, without overflow), refuses a key or field given twice and a malformed number,
// refuses a tensor reaching past its data and more than 64 dims, and normalises bools.
#include "builder/error.h"
#include "builder/file_io.h"
#include "exporter/frontend/input_data.h"
#include "harness.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <torch/serialize.h>
#include <zlib.h>

using namespace t2o_test;
namespace fs = std::filesystem;
using torch2onnx::Error;

namespace {

void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string le_bytes(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A .npy file (format 1.0) with the header dict `dict` and the data `data`.
std::string npy(const std::string &dict, const std::string &data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + le_bytes(header.size(), 2) + header + data;
}

// The message of the Error `fn` throws ("" when it throws none). Any other exception fails.
template <typename Fn> std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

// One record of a crafted zip archive.
struct Record {
  std::string name, data;
  bool deflate = false;
  int64_t claimed_size = -1; // the stated uncompressed size, when not the real one
  int64_t header_of = -1;    // point the directory entry at this earlier record's header
};

std::string deflated(const std::string &in) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(in.size() + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zip(const std::vector<Record> &records) {
  std::string body, dir;
  std::vector<uint32_t> offsets;
  for (const Record &r : records) {
    std::string stored = r.deflate ? deflated(r.data) : r.data;
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef *>(r.data.data()), static_cast<uInt>(r.data.size())));
    uint64_t usize = r.claimed_size >= 0 ? static_cast<uint64_t>(r.claimed_size) : r.data.size();
    std::string common = le_bytes(20, 2) + le_bytes(0, 2) + le_bytes(r.deflate ? 8 : 0, 2) +
                         le_bytes(0, 4) + le_bytes(crc, 4) + le_bytes(stored.size(), 4) +
                         le_bytes(usize, 4) + le_bytes(r.name.size(), 2) + le_bytes(0, 2);
    offsets.push_back(static_cast<uint32_t>(body.size()));
    body += le_bytes(0x04034b50, 4) + common + r.name + stored;
    uint32_t local = r.header_of >= 0 ? offsets[static_cast<size_t>(r.header_of)] : offsets.back();
    dir += le_bytes(0x02014b50, 4) + le_bytes(20, 2) + common + le_bytes(0, 2) + le_bytes(0, 2) +
           le_bytes(0, 2) + le_bytes(0, 4) + le_bytes(local, 4) + r.name;
  }
  return body + dir + le_bytes(0x06054b50, 4) + le_bytes(0, 4) + le_bytes(records.size(), 2) +
         le_bytes(records.size(), 2) + le_bytes(dir.size(), 4) + le_bytes(body.size(), 4) +
         le_bytes(0, 2);
}

// A TensorProto written field by field: dims, data_type, raw_data (and `extra` fields after).
std::string tensor_proto(const std::vector<uint64_t> &dims, int type, const std::string &raw,
                         const std::string &extra = "") {
  auto varint = [](uint64_t v) {
    std::string s;
    do {
      s += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v);
    return s;
  };
  std::string out;
  for (uint64_t d : dims)
    out += '\x08' + varint(d);
  out += '\x10' + varint(static_cast<uint64_t>(type));
  out += '\x4a' + varint(raw.size()) + raw;
  return out + extra;
}

std::vector<std::string> names(std::initializer_list<const char *> n) {
  return std::vector<std::string>(n.begin(), n.end());
}

std::string torch_save_bytes(const c10::IValue &v) {
  std::vector<char> b = torch::pickle_save(v);
  return std::string(b.begin(), b.end());
}

// `bytes` with the first `from` replaced by `to` (same length: the zip's stored record keeps its
// size); REQUIREs that `from` is there.
std::string patched(std::string bytes, const std::string &from, const std::string &to) {
  size_t at = bytes.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(from.size() == to.size());
  return bytes.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("inputs: .npy headers are read as strictly as NumPy reads them", "[reliability]") {
  const std::string f4 = std::string(24, '\0');
  auto parse = [](const std::string &bytes) { torch2onnx::parse_npy(bytes, "'t.npy'"); };
  CHECK(torch2onnx::parse_npy(
            npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4), "x")
            .sizes() == at::IntArrayRef({2, 3}));
  // NumPy keeps the last of two keys; torch2onnx kept the first (ints read as floats): neither.
  CHECK(contains(error_of([&] {
                   parse(npy("{'descr': '<i4', 'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2, 3), }",
                             f4));
                 }),
                 "gives 'descr' twice"));
  // (2.0, 4e0) was read as the dims 2, 0, 4, 0.
  CHECK(contains(error_of([&] {
                   parse(
                       npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 4e0), }", f4));
                 }),
                 "not a non-negative integer"));
  for (const char *bad : {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }",
                          "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 3), }",
                          "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3), }",
                          "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }",
                          "{'descr': '<f4', 'shape': (2, 3), }",
                          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
                          "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3)}"}) {
    INFO(bad);
    CHECK(contains(error_of([&] { parse(npy(bad, f4)); }), "is not a valid .npy file"));
  }
}

TEST_CASE("inputs: ranks over 64 are refused at once, not in quadratic time", "[reliability]") {
  std::string dims;
  for (int i = 0; i < 100000; ++i)
    dims += "1, ";
  std::string big = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }",
                        std::string(4, '\0'));
  auto t0 = std::chrono::steady_clock::now();
  CHECK(contains(error_of([&] { torch2onnx::parse_npy(big, "x"); }), "more than 64 dimensions"));
  std::string dir = fresh_dir("in_rank");
  write_bytes(dir + "/r.pb", tensor_proto(std::vector<uint64_t>(100000, 1), 1, std::string(4, 0)));
  CHECK(contains(error_of([&] { torch2onnx::load_tensor_proto(dir + "/r.pb"); }),
                 "has 100000 dims; torch2onnx takes at most 64"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)); // was 34 s
  std::string spec = "x:f32[1";
  for (int i = 1; i < 20000; ++i)
    spec += ",1";
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", spec + "]"});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "more than 64 dims"));
}

TEST_CASE("inputs: sizes that overflow are refused, never wrapped or passed to LibTorch",
          "[reliability]") {
  std::string dir = fresh_dir("in_overflow");
  const uint64_t k62 = uint64_t{1} << 62, k32 = uint64_t{1} << 32, k40 = uint64_t{1} << 40;
  for (const auto &dims : std::vector<std::vector<uint64_t>>{{k62, 4}, {k32, k32}, {k40, k40}}) {
    write_bytes(dir + "/o.pb", tensor_proto(dims, 1, std::string(16, '\0')));
    std::string e = error_of([&] { torch2onnx::load_tensor_proto(dir + "/o.pb"); });
    INFO(e);
    CHECK(contains(e, "larger than any memory"));
    CHECK_FALSE(contains(e, "needs 0 bytes")); // [2^40,2^40] wrapped to 0
  }
  std::string e = error_of([&] {
    torch2onnx::parse_npy(
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", ""),
        "x");
  });
  CHECK(contains(e, "larger than any memory"));
  // The CLI: no "Storage size calculation overflowed" and its backtrace.
  write_bytes(dir + "/o.pb", tensor_proto({k62, 4}, 1, std::string(16, '\0')));
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input-data", dir + "/o.pb"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "larger than any memory"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 3);
}

TEST_CASE("inputs: a field given twice in a .pb is refused", "[reliability]") {
  std::string dir = fresh_dir("in_pb_twice");
  write_bytes(dir + "/t.pb",
              tensor_proto({2}, 6, std::string(8, '\0'), std::string("\x10\x01", 2)));
  CHECK(contains(error_of([&] { torch2onnx::load_tensor_proto(dir + "/t.pb"); }),
                 "gives the TensorProto field 2 twice"));
}

TEST_CASE("inputs: bools are normalised to 0 and 1 in every reader", "[reliability]") {
  const std::string raw("\x00\x01\x07\xff", 4);
  auto check = [](const at::Tensor &t) {
    REQUIRE(t.scalar_type() == at::kBool);
    at::Tensor bytes = t.contiguous().view(at::kByte);
    CHECK(bytes.equal(at::tensor({0, 1, 1, 1}, at::kByte)));
  };
  std::string dir = fresh_dir("in_bool");
  write_bytes(dir + "/b.npy",
              npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", raw));
  check(torch2onnx::read_npy(dir + "/b.npy"));
  write_bytes(dir + "/b.pb", tensor_proto({4}, 9, raw));
  auto pb = torch2onnx::load_input_data({dir + "/b.pb"}, names({"x"}));
  check(pb[0]->toTensor());
  at::Tensor b = at::zeros({4}, at::kBool);
  b.view(at::kByte).copy_(at::tensor({0, 1, 7, 255}, at::kByte));
  write_bytes(dir + "/b.pt", torch_save_bytes(c10::ivalue::Tuple::create({b})));
  check(torch2onnx::load_input_data({dir + "/b.pt"}, names({"x"}))[0]->toTensor());
}

TEST_CASE("inputs: .npz archives are checked before anything is inflated", "[reliability]") {
  std::string dir = fresh_dir("in_npz");
  std::string a =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, 0));
  write_bytes(dir + "/ok.npz", zip({{"x.npy", a}, {"y.npy", a, true}}));
  auto ok = torch2onnx::read_npz(dir + "/ok.npz");
  REQUIRE(ok.size() == 2);
  CHECK(ok[1].first == "y");
  // 198 bytes claiming 4 GB: refused by deflate's 1032:1 limit, not allocated.
  write_bytes(dir + "/big.npz", zip({{"x.npy", a, true, 4000000000}}));
  CHECK(fs::file_size(dir + "/big.npz") < 300);
  CHECK(contains(error_of([&] { torch2onnx::read_npz(dir + "/big.npz"); }),
                 "claims 4000000000 bytes"));
  write_bytes(dir + "/twice.npz", zip({{"x.npy", a}, {"x.npy", a}}));
  CHECK(contains(error_of([&] { torch2onnx::read_npz(dir + "/twice.npz"); }),
                 "two records named 'x.npy'"));
  write_bytes(dir + "/shared.npz", zip({{"x.npy", a}, {"y.npy", a, false, -1, 0}}));
  CHECK(contains(error_of([&] { torch2onnx::read_npz(dir + "/shared.npz"); }), "share bytes"));
}

TEST_CASE("inputs: torch.save files: counts, the legacy format, lengths and storages",
          "[reliability]") {
  std::string dir = fresh_dir("in_pt");
  at::Tensor x = at::arange(77, at::kFloat);
  SECTION("three values for one argument are counted as three") {
    write_bytes(dir + "/three.pt", torch_save_bytes(c10::ivalue::Tuple::create({x, x, x})));
    CHECK(
        contains(error_of([&] { torch2onnx::load_input_data({dir + "/three.pt"}, names({"x"})); }),
                 "holds 3 values but forward(x) takes 1 argument"));
  }
  SECTION("the legacy format says how to save it again") {
    write_bytes(dir + "/legacy.pt", std::string("\x80\x02\x8a\x0alfc\x9c"
                                                "F\xf9 j\xa8P\x19.",
                                                16));
    std::string e =
        error_of([&] { torch2onnx::load_input_data({dir + "/legacy.pt"}, names({"x"})); });
    CHECK(contains(e, "legacy torch.save format"));
    CHECK_FALSE(contains(e, "central directory"));
  }
  SECTION("a 4 GB string length in a small file is refused before it is allocated") {
    std::string bytes = patched(torch_save_bytes(c10::ivalue::Tuple::create({x})),
                                std::string("X\x07\x00\x00\x00storage", 12),
                                std::string("X\x08\x00\x00\xf6storage", 12));
    write_bytes(dir + "/len.pt", bytes);
    std::string e = error_of([&] { torch2onnx::load_input_data({dir + "/len.pt"}, names({"x"})); });
    CHECK(contains(e, "in the pickle record"));
    CHECK(contains(e, "claims 4127195144 bytes"));
  }
  SECTION("a tensor reaching past its storage is refused") {
    // sizes (77,) -> (255,): 255 floats read from a 77-float storage (heap bytes in the output).
    std::string size = patched(torch_save_bytes(c10::ivalue::Tuple::create({x})),
                               std::string("(K\x4dt(K\x01t", 8), std::string("(K\xfft(K\x01t", 8));
    write_bytes(dir + "/size.pt", size);
    std::string e =
        error_of([&] { torch2onnx::load_input_data({dir + "/size.pt"}, names({"x"})); });
    CHECK(contains(e, "reaches past its data"));
    CHECK(contains(e, "need 1020 bytes, the data holds 308"));
    // storage offset 66000 -> 2^31 - 256: a read far outside the heap (SIGSEGV).
    at::Tensor view = at::arange(70000, at::kFloat).as_strided({77}, {1}, 66000);
    std::string offset =
        patched(torch_save_bytes(c10::ivalue::Tuple::create({view})),
                std::string("J\xd0\x01\x01\x00", 5), std::string("J\x00\xff\xff\x7f", 5));
    write_bytes(dir + "/offset.pt", offset);
    e = error_of([&] { torch2onnx::load_input_data({dir + "/offset.pt"}, names({"x"})); });
    CHECK(contains(e, "reaches past its data"));
  }
}

TEST_CASE("inputs: files that are not regular files are refused at once", "[reliability]") {
  std::string dir = fresh_dir("in_fifo");
  std::string fifo = dir + "/f.npy", model_fifo = dir + "/m.pt", pb_fifo = dir + "/p.pb";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(model_fifo.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(pb_fifo.c_str(), 0600) == 0);
  const std::string cli = "timeout -s KILL 60 " + shell_quote(T2O_CLI);
  const std::string out = " -o " + shell_quote(dir + "/o.onnx");
  struct Case {
    std::string cmd, expect;
  } cases[] = {
      {cli + " " + test_model("tiny_cnn") + out + " --input-data " + fifo, "is a pipe (FIFO)"},
      {cli + " " + test_model("tiny_cnn") + out + " --input-data " + pb_fifo, "is a pipe (FIFO)"},
      {cli + " " + model_fifo + out + " --input f32[1,3,16,16]", "is a pipe (FIFO)"},
      {"(cat " + test_model("tiny_cnn") + " | " + cli + " /dev/stdin" + out +
           " --input f32[1,3,16,16])",
       "'/dev/stdin' is a pipe (FIFO)"},
      {cli + " show " + fifo, "is a pipe (FIFO)"},
  };
  for (const auto &c : cases) {
    INFO(c.cmd);
    auto r = run_command(c.cmd);
    INFO(r.err);
    CHECK(r.exit_code == 1); // not 137: killed by timeout while blocked or reading forever
    CHECK(contains(r.err, c.expect));
  }
  // A device under a reader's own extension: /dev/zero as .npy, /dev/urandom as .pb.
  fs::create_symlink("/dev/zero", dir + "/zero.npy");
  fs::create_symlink("/dev/urandom", dir + "/random.pb");
  for (const char *dev : {"/zero.npy", "/random.pb"}) {
    auto r = run_command("ulimit -v 4000000; " + cli + " " + test_model("tiny_cnn") + out +
                         " --input-data " + dir + dev);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "is a character device, not a regular file"));
  }
  CHECK_FALSE(fs::exists(dir + "/o.onnx"));
}
