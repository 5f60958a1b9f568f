#include "exporter/frontend/torchscript/pickle_tensors.h"

#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <unordered_map>
#include <vector>

namespace torch2onnx {

namespace {

// A value on the walk's stack: what the checks need to know of it, nothing more.
struct Value {
  enum Kind { Other, None, Int, Str, Global, Tuple, List, Storage } kind = Other;
  int64_t i = 0;
  std::string s;             // Str: the text; Global: "module.name"; Storage: its key
  std::string storage_class; // Storage: e.g. "FloatStorage"
  std::vector<std::shared_ptr<Value>> items; // Tuple, List
};
using Ref = std::shared_ptr<Value>;

Ref make(Value::Kind k) {
  auto v = std::make_shared<Value>();
  v->kind = k;
  return v;
}

int itemsize(const std::string &storage_class) {
  static const std::unordered_map<std::string, int> sizes = {
      {"FloatStorage", 4},    {"DoubleStorage", 8},       {"HalfStorage", 2},
      {"BFloat16Storage", 2}, {"LongStorage", 8},         {"IntStorage", 4},
      {"ShortStorage", 2},    {"CharStorage", 1},         {"ByteStorage", 1},
      {"BoolStorage", 1},     {"ComplexFloatStorage", 8}, {"ComplexDoubleStorage", 16},
      {"QInt8Storage", 1},    {"QUInt8Storage", 1},       {"QInt32Storage", 4},
      {"QUInt4x2Storage", 1}, {"QUInt2x4Storage", 1}};
  auto it = sizes.find(storage_class);
  return it == sizes.end() ? 0 : it->second;
}

class Walk {
public:
  Walk(const unsigned char *data, size_t size,
       const std::function<std::optional<uint64_t>(const std::string &)> &record_size)
      : p_(data), n_(size), record_size_(record_size) {}

  std::string run() {
    while (pos_ < n_ && problem_.empty()) {
      if (!step())
        break;
    }
    return problem_;
  }

private:
  // One opcode; false to stop (the end, or something this walk does not follow).
  bool step() {
    const unsigned char op = p_[pos_++];
    switch (op) {
    case 0x80: // PROTO
      return skip(1);
    case 0x95: // FRAME
      return skip(8);
    case '.': // STOP
      return false;
    case '(': // MARK
      marks_.push_back(stack_.size());
      return true;
    case ')':
      return push(make(Value::Tuple));
    case ']':
      return push(make(Value::List));
    case '}':
      return push(make(Value::Other));
    case 'N':
      return push(make(Value::None));
    case 0x88: // NEWTRUE
    case 0x89: // NEWFALSE
      return push(make(Value::Other));
    case 'J':
      return integer(4, true);
    case 'K':
      return integer(1, false);
    case 'M':
      return integer(2, false);
    case 0x8a: { // LONG1
      uint64_t len = 0;
      return fixed(1, len) && integer(static_cast<int>(len), true);
    }
    case 'G': // BINFLOAT
      return skip(8) && push(make(Value::Other));
    case 'X':
    case 'T':
    case 'B':
      return text(4, op == 'X');
    case 0x8c:
    case 'U':
    case 'C':
      return text(1, op == 0x8c);
    case 0x8d:
    case 0x8e:
      return text(8, op == 0x8d);
    case 'c':
      return global();
    case 0x93: // STACK_GLOBAL
      return stack_global();
    case 'q':
      return put(1);
    case 'r':
      return put(4);
    case 0x94: // MEMOIZE
      if (stack_.empty())
        return false;
      memo_[static_cast<uint32_t>(memo_.size())] = stack_.back();
      return true;
    case 'h':
      return get(1);
    case 'j':
      return get(4);
    case 't':
      return tuple_from_mark();
    case 0x85:
      return tuple_of(1);
    case 0x86:
      return tuple_of(2);
    case 0x87:
      return tuple_of(3);
    case 'a': // APPEND
      return append(1);
    case 'e': // APPENDS
      return appends();
    case 's': // SETITEM
      return pop_n(2);
    case 'u': // SETITEMS
      return pop_to_mark(nullptr);
    case 'b': // BUILD
      return pop_n(1);
    case '0': // POP
      return pop_n(1);
    case '1': // POP_MARK
      return pop_to_mark(nullptr);
    case '2': // DUP
      return !stack_.empty() && push(stack_.back());
    case 'Q': // BINPERSID
      return persistent_id();
    case 'R': // REDUCE
      return reduce();
    case 0x81: // NEWOBJ
      return pop_n(2) && push(make(Value::Other));
    default:
      return false; // an opcode LibTorch's unpickler judges itself
    }
  }

  bool skip(size_t k) {
    if (n_ - pos_ < k)
      return false;
    pos_ += k;
    return true;
  }
  bool fixed(int bytes, uint64_t &v) {
    if (bytes < 0 || n_ - pos_ < static_cast<size_t>(bytes))
      return false;
    v = 0;
    for (int k = bytes - 1; k >= 0; --k)
      v = (v << 8) | p_[pos_ + static_cast<size_t>(k)];
    pos_ += static_cast<size_t>(bytes);
    return true;
  }
  bool integer(int bytes, bool is_signed) {
    if (bytes > 8)
      return skip(static_cast<size_t>(bytes)) && push(make(Value::Other));
    uint64_t v = 0;
    if (!fixed(bytes, v))
      return false;
    auto r = make(Value::Int);
    if (is_signed && bytes > 0 && bytes < 8 && (v >> (bytes * 8 - 1)) & 1)
      v |= ~uint64_t{0} << (bytes * 8);
    r->i = static_cast<int64_t>(v);
    return push(r);
  }
  bool text(int len_bytes, bool is_str) {
    uint64_t len = 0;
    if (!fixed(len_bytes, len) || len > n_ - pos_)
      return false;
    auto r = make(is_str ? Value::Str : Value::Other);
    if (is_str)
      r->s.assign(reinterpret_cast<const char *>(p_ + pos_), static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return push(r);
  }
  bool line(std::string &out) {
    const void *nl = std::memchr(p_ + pos_, '\n', n_ - pos_);
    if (!nl)
      return false;
    const size_t end = static_cast<size_t>(static_cast<const unsigned char *>(nl) - p_);
    out.assign(reinterpret_cast<const char *>(p_ + pos_), end - pos_);
    pos_ = end + 1;
    return true;
  }
  bool global() {
    std::string module, name;
    if (!line(module) || !line(name))
      return false;
    auto r = make(Value::Global);
    r->s = module + "." + name;
    return push(r);
  }
  bool stack_global() {
    if (stack_.size() < 2)
      return false;
    Ref name = pop(), module = pop();
    auto r = make(Value::Global);
    r->s = module->s + "." + name->s;
    return push(r);
  }
  bool put(int bytes) {
    uint64_t id = 0;
    if (!fixed(bytes, id) || stack_.empty())
      return false;
    memo_[static_cast<uint32_t>(id)] = stack_.back();
    return true;
  }
  bool get(int bytes) {
    uint64_t id = 0;
    if (!fixed(bytes, id))
      return false;
    auto it = memo_.find(static_cast<uint32_t>(id));
    return it != memo_.end() && push(it->second);
  }
  bool push(Ref v) {
    stack_.push_back(std::move(v));
    return true;
  }
  Ref pop() {
    Ref v = stack_.back();
    stack_.pop_back();
    return v;
  }
  bool pop_n(size_t k) {
    if (stack_.size() < k)
      return false;
    stack_.resize(stack_.size() - k);
    return true;
  }
  bool pop_to_mark(std::vector<Ref> *out) {
    if (marks_.empty() || marks_.back() > stack_.size())
      return false;
    const size_t m = marks_.back();
    marks_.pop_back();
    if (out)
      out->assign(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return true;
  }
  bool tuple_from_mark() {
    auto r = make(Value::Tuple);
    return pop_to_mark(&r->items) && push(r);
  }
  bool tuple_of(size_t k) {
    if (stack_.size() < k)
      return false;
    auto r = make(Value::Tuple);
    r->items.assign(stack_.end() - static_cast<std::ptrdiff_t>(k), stack_.end());
    stack_.resize(stack_.size() - k);
    return push(r);
  }
  bool append(size_t k) {
    if (stack_.size() < k + 1)
      return false;
    return pop_n(k);
  }
  bool appends() {
    std::vector<Ref> items;
    return pop_to_mark(&items) && !stack_.empty();
  }

  bool persistent_id() {
    if (stack_.empty())
      return false;
    Ref pid = pop();
    auto r = make(Value::Other);
    const auto &t = pid->items;
    if (pid->kind == Value::Tuple && t.size() == 5 && t[0]->kind == Value::Str &&
        t[0]->s == "storage" && t[1]->kind == Value::Global && t[2]->kind == Value::Str &&
        t[4]->kind == Value::Int) {
      r->kind = Value::Storage;
      r->s = t[2]->s;
      const std::string &cls = t[1]->s;
      r->storage_class = cls.substr(cls.rfind('.') + 1);
      r->i = t[4]->i;
      check_storage(*r);
    }
    return push(r);
  }

  void check_storage(const Value &s) {
    const int item = itemsize(s.storage_class);
    std::optional<uint64_t> have = record_size_(s.s);
    if (item == 0 || !have)
      return; // LibTorch reports an unknown storage type or a missing record
    if (s.i < 0 || static_cast<unsigned __int128>(s.i) * static_cast<unsigned>(item) > *have)
      problem_ = fmt::format("the storage '{}' claims {} elements of {} bytes ({}), but its record "
                             "holds {} bytes",
                             s.s, s.i, item, s.storage_class, *have);
  }

  static bool ints(const Ref &v, std::vector<int64_t> &out) {
    if (v->kind != Value::Tuple)
      return false;
    for (const auto &e : v->items) {
      if (e->kind != Value::Int)
        return false;
      out.push_back(e->i);
    }
    return true;
  }

  bool reduce() {
    if (stack_.size() < 2)
      return false;
    Ref args = pop(), callable = pop();
    static const char *kRebuild[] = {"torch._utils._rebuild_tensor_v2",
                                     "torch._utils._rebuild_tensor",
                                     "torch._utils._rebuild_qtensor"};
    bool rebuild = false;
    for (const char *name : kRebuild)
      rebuild = rebuild || (callable->kind == Value::Global && callable->s == name);
    if (rebuild && args->kind == Value::Tuple && args->items.size() >= 4 &&
        args->items[0]->kind == Value::Storage)
      check_tensor(*args->items[0], args->items[1], args->items[2], args->items[3]);
    return push(make(Value::Other));
  }

  void check_tensor(const Value &storage, const Ref &offset, const Ref &size_v,
                    const Ref &stride_v) {
    std::vector<int64_t> size, stride;
    if (offset->kind != Value::Int || !ints(size_v, size) || !ints(stride_v, stride))
      return;
    bool bad = offset->i < 0 || size.size() != stride.size();
    unsigned __int128 last = static_cast<uint64_t>(std::max<int64_t>(offset->i, 0));
    bool empty = false;
    for (size_t d = 0; d < size.size() && d < stride.size(); ++d) {
      bad = bad || size[d] < 0 || stride[d] < 0;
      empty = empty || size[d] == 0;
      if (size[d] > 0 && stride[d] >= 0)
        last += static_cast<unsigned __int128>(size[d] - 1) * static_cast<uint64_t>(stride[d]);
    }
    const unsigned __int128 needed =
        empty ? static_cast<uint64_t>(std::max<int64_t>(offset->i, 0)) : last + 1;
    // Sub-byte quantized storages count bytes, their tensors values: 2 (4-bit) or 4 (2-bit) a byte.
    const uint64_t per_byte = storage.storage_class == "QUInt4x2Storage"   ? 2
                              : storage.storage_class == "QUInt2x4Storage" ? 4
                                                                           : 1;
    if (!bad &&
        needed <= static_cast<unsigned __int128>(std::max<int64_t>(storage.i, 0)) * per_byte)
      return;
    problem_ =
        fmt::format("a tensor of the storage '{}' has sizes [{}], strides [{}] and offset {}"
                    ": it reaches past the storage's {} elements",
                    storage.s, fmt::join(size, ","), fmt::join(stride, ","), offset->i, storage.i);
  }

  const unsigned char *p_;
  size_t n_;
  size_t pos_ = 0;
  const std::function<std::optional<uint64_t>(const std::string &)> &record_size_;
  std::vector<Ref> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, Ref> memo_;
  std::string problem_;
};

} // namespace

std::string pickle_tensor_problem(
    const unsigned char *data, size_t size,
    const std::function<std::optional<uint64_t>(const std::string &key)> &record_size) {
  return Walk(data, size, record_size).run();
}

} // namespace torch2onnx
