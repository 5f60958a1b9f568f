// The rewrite rules (builder/optimize.h), one file each, and what they share. default_rules()
// (rules.cpp) lists them in the order they are tried.
#pragma once

#include "builder/optimize.h"

#include <onnx/onnx_pb.h>
#include <string>
#include <string_view>

namespace torch2onnx::rewrites {

RewriteRule identity_rule();              // identity.cpp
RewriteRule noop_cast_rule();             // noop_cast.cpp
RewriteRule noop_reshape_rule();          // noop_reshape.cpp
RewriteRule noop_expand_rule();           // noop_expand.cpp
RewriteRule noop_transpose_rule();        // noop_transpose.cpp
RewriteRule noop_dropout_rule();          // noop_dropout.cpp
RewriteRule fold_constants_rule();        // fold_constants.cpp
RewriteRule noop_index_wrap_rule();       // noop_index_wrap.cpp
RewriteRule fold_reshape_chain_rule();    // fold_reshape_chain.cpp
RewriteRule fold_conv_batchnorm_rule();   // fold_conv_batchnorm.cpp
RewriteRule fold_transpose_weight_rule(); // fold_transpose_weight.cpp
RewriteRule fold_matmul_batchnorm_rule(); // fold_matmul_batchnorm.cpp
RewriteRule fold_matmul_scale_rule();     // fold_matmul_scale.cpp
RewriteRule cse_rule();                   // cse.cpp

// ---- shared by the rules (rules.cpp) ----

// The attribute `name` of `n`, or nullptr.
const onnx::AttributeProto *attr(const onnx::NodeProto &n, const std::string &name);
// Bytes per element of the fixed-size ONNX element types; 0 for the others (strings).
size_t element_size(int type);
// True when one of n's attributes is a graph (If, Loop, Scan).
bool has_subgraph(const onnx::NodeProto &n);
// True when node i's output 0 can be replaced by its input 0: the output is no graph output and
// no other output of the node is read.
bool can_forward_input(const OptGraph &g, int i);
// Removes node i; its output 0's readers read its input 0 (after can_forward_input).
void forward_input(OptGraph &g, int i);
// `value`'s single producer when it is a default-domain `op` and nothing else reads `value` (nor
// is it a graph output), else -1.
int only_producer(const OptGraph &g, const std::string &value, const char *op);
// The constant float32 weight W [k, n] of MatMul node `matmul` (its input 1), in place, when
// nothing else reads it (a tied weight is never folded into).
bool read_matmul_weight(const OptGraph &g, int matmul, const float *&w, size_t &wn, int64_t &k,
                        int64_t &n);
// MatMul node `matmul`'s weight W [k, n] (values `w`, from read_matmul_weight) becomes
// W[:, c] * scale[c] (each product rounded to float once), an initializer named after the old one
// + `suffix`; the old one is released. Folds a per-feature factor after a Linear into it.
void scale_matmul_columns(OptGraph &g, int matmul, const float *w, int64_t k, int64_t n,
                          const std::vector<double> &scale, const std::string &suffix);

// `src` (elements of `es` bytes, dims `dims`, row-major) with its dims reordered by `perm` (output
// dim k is input dim perm[k]), as Transpose computes it. A permutation that swaps the last two
// dims only (a Linear's [out, in] -> [in, out], batched or not) takes a blocked copy; every other
// one, and transpose_bytes_generic, walks the output element by element. The two give the same
// bytes (tests/test_optimize.cpp). Example: transpose_bytes(w, {4, 3}, {1, 0}, 4).
std::string transpose_bytes(std::string_view src, const std::vector<int64_t> &dims,
                            const std::vector<int64_t> &perm, size_t es);
std::string transpose_bytes_generic(std::string_view src, const std::vector<int64_t> &dims,
                                    const std::vector<int64_t> &perm, size_t es);

} // namespace torch2onnx::rewrites
