#!/usr/bin/env python3
"""Write an ONNX file torch2onnx did not write, for the `torch2onnx show` tests (tests/test_show.cpp):
an If whose branches read outer values, a Loop, a call of a model-local function, and a
producer other than torch2onnx. Needs python3-onnx (scripts/install_deps.sh).

    /usr/bin/python3 models/make_show_fixture.py OUT.onnx
"""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
# then: y = x * 2; else: y = x + w (w an initializer of the main graph, read from the subgraph)
then_g = helper.make_graph(
    [helper.make_node("Mul", ["x", "two"], ["then_y"], name="then_mul")], "then_body", [],
    [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, ["N", 4])])
else_g = helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["else_y"], name="else_add")], "else_body", [],
    [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, ["N", 4])])
# a Loop summing x trip_count times
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="body_add")],
    "loop_body",
    [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["N", 4])])
nodes = [
    helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
    helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
    helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g, name="branch"),
    helper.make_node("Loop", ["trips", "", "y"], ["z"], body=body, name="repeat"),
    helper.make_node("MyScale", ["z"], ["out"], domain="custom.fn", name="scale"),
]
graph = helper.make_graph(
    nodes, "other_exporter",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["N", 4])],
    initializer=[numpy_helper.from_array(np.float32(2.0), "two"),
                 numpy_helper.from_array(np.float32(0.0), "zero"),
                 numpy_helper.from_array(np.int64(3), "trips"),
                 numpy_helper.from_array(np.arange(4, dtype=np.float32), "w"),
                 numpy_helper.from_array(np.zeros((64, 32), dtype=np.float32), "big")])
fn = helper.make_function(
    "custom.fn", "MyScale", ["a"], ["b"],
    [helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.FLOAT, [], [0.5])),
     helper.make_node("Mul", ["a", "k"], ["b"])],
    [helper.make_opsetid("", 17)])
model = helper.make_model(graph, producer_name="other-exporter", producer_version="9.9",
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom.fn", 1)],
                          functions=[fn])
model.ir_version = 8
onnx.save(model, out)
