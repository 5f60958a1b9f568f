// Schemas of the ONNX operators that appeared or changed in opsets 18 to 21, which Debian's
// libonnx 1.12 does not know. The builder checks nodes above opset 17 against this table, and
// against libonnx's newest schema at or below 17 for every operator the table does not list
// (those changed in 18-21 only by widening their type lists or adding optional attributes, so
// what the old schema accepts is valid at the new opset too).
#pragma once

#include <string>
#include <vector>

namespace onnx {
class NodeProto;
}

namespace torch2onnx {

// Highest opset libonnx knows: above it the builder uses the table below and skips the libonnx
// checker and shape inference (ONNX Runtime checks the model when it loads it).
constexpr int kLibOnnxMaxOpset = 17;

struct OwnSchema {
  struct Param {
    std::string name;
    bool optional = false, variadic = false;
  };
  struct Attribute {
    std::string name;
    int type = 0; // onnx::AttributeProto::AttributeType
    bool required = false;
    std::vector<std::string> values; // allowed values of a string attribute; empty: any
  };
  std::string op;
  int since_version = 0;
  std::vector<Param> inputs, outputs;
  std::vector<Attribute> attributes;
};

// The table's schema of `op` at `opset` (the entry with the newest since_version <= opset), or
// nullptr when the table has none. Example: own_schema("ReduceMean", 21)->since_version == 18.
const OwnSchema *own_schema(const std::string &op, int opset);

// Checks input and output counts, attribute names and types, required attributes and the values
// of enumerated string attributes; throws Error describing the first mismatch.
void verify_own_schema(const OwnSchema &schema, const onnx::NodeProto &node);

// Whether ONNX's default domain has an operator `op` at some opset up to 21 (libonnx's schemas
// up to 17, the table above for 18-21). Example: is_onnx_op("Gelu") (20), !is_onnx_op("Frob").
bool is_onnx_op(const std::string &op);

// The ONNX IR version a model at `opset` declares (ONNX's versioning table: opset 19-20 came with
// IR 9, opset 21 with IR 10).
int ir_version_for_opset(int opset);

} // namespace torch2onnx
