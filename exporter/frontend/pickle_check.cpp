#include "exporter/frontend/pickle_check.h"

#include <cstdint>
#include <fmt/format.h>

namespace torch2onnx {
namespace {

// Argument layout of each pickle opcode (protocols 0-5, as listed in Python's pickletools).
enum class Arg { None, Fixed, Length, Line, TwoLines, Unknown };
struct OpInfo {
  Arg arg = Arg::Unknown;
  int bytes = 0; // Fixed: argument size; Length: size of the little-endian length prefix
};

struct OpTable {
  OpInfo op[256];
  OpTable() {
    for (unsigned char c :
         std::string("(.012NQRabdelostu}])\x81\x85\x86\x87\x88\x89\x90\x91\x92\x93\x94\x97\x98"))
      op[c] = {Arg::None, 0};
    for (auto [c, n] : {std::pair<unsigned char, int>{'J', 4},
                        {'K', 1},
                        {'M', 2},
                        {'G', 8},
                        {'q', 1},
                        {'r', 4},
                        {'h', 1},
                        {'j', 4},
                        {0x80, 1},
                        {0x82, 1},
                        {0x83, 2},
                        {0x84, 4},
                        {0x95, 8}})
      op[c] = {Arg::Fixed, n};
    for (auto [c, n] : {std::pair<unsigned char, int>{0x8a, 1},
                        {0x8b, 4},
                        {'U', 1},
                        {'T', 4},
                        {'X', 4},
                        {0x8c, 1},
                        {0x8d, 8},
                        {'C', 1},
                        {'B', 4},
                        {0x8e, 8},
                        {0x96, 8}})
      op[c] = {Arg::Length, n};
    for (unsigned char c : std::string("ILFSVpgP"))
      op[c] = {Arg::Line, 0};
    op['c'] = {Arg::TwoLines, 0};
    op['i'] = {Arg::TwoLines, 0};
  }
};

uint64_t little_endian(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

} // namespace

std::string pickle_length_problem(const unsigned char *data, size_t size) {
  static const OpTable table;
  size_t pos = 0;
  while (pos < size) {
    const unsigned char code = data[pos];
    const OpInfo &info = table.op[code];
    const size_t at = pos++;
    switch (info.arg) {
    case Arg::Unknown:
      return {};
    case Arg::None:
      if (code == '.')
        return {}; // STOP
      break;
    case Arg::Fixed:
      pos += static_cast<size_t>(info.bytes);
      break;
    case Arg::Length: {
      if (size - pos < static_cast<size_t>(info.bytes))
        return {}; // cut short: LibTorch says so
      const uint64_t n = little_endian(data + pos, info.bytes);
      pos += static_cast<size_t>(info.bytes);
      if (n > size - pos)
        return fmt::format("the value at byte {} claims {} bytes but only {} follow", at, n,
                           size - pos);
      pos += static_cast<size_t>(n);
      break;
    }
    case Arg::Line:
    case Arg::TwoLines:
      for (int lines = info.arg == Arg::Line ? 1 : 2; lines > 0 && pos < size; ++pos)
        if (data[pos] == '\n')
          --lines;
      break;
    }
  }
  return {};
}

} // namespace torch2onnx
