#include "exporter/frontend/torchscript/attribute_values.h"

#include "builder/error.h"

#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

namespace torch2onnx {

namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// Attribute name ("rot.cos_cached") -> the value it holds at this point of the walk.
using Slots = std::map<std::string, Value *>;

class AttributeValues {
public:
  explicit AttributeValues(torch::jit::Graph &g) : graph_(g), cursor_(g.block()->param_node()) {}

  std::vector<std::string> run() {
    std::set<std::string> written;
    collect_written(graph_.block(), written);
    if (written.empty())
      return {};
    Slots slots;
    walk(graph_.block(), slots);
    return {written.begin(), written.end()};
  }

private:
  // The module path of an object value ("" for self, "rot." for self.rot), if it is one.
  std::optional<std::string> path_of(const Value *v) const {
    if (v == graph_.inputs()[0])
      return std::string();
    const Node *n = v->node();
    if (n->kind() != c10::prim::GetAttr)
      return std::nullopt;
    auto base = path_of(n->input(0));
    if (!base)
      return std::nullopt;
    return *base + n->s(c10::attr::name) + ".";
  }

  // The attribute of a submodule a GetAttr / SetAttr names; nullopt for an object forward made
  // itself (torch.no_grad()'s context), which is left as it is.
  std::optional<std::string> slot_of(const Node *n) {
    auto base = path_of(n->input(0));
    if (!base)
      return std::nullopt;
    std::string slot = *base + n->s(c10::attr::name);
    auto cls = n->input(0)->type()->cast<c10::ClassType>();
    if (cls && cls->hasAttribute(n->s(c10::attr::name)))
      types_.emplace(slot, cls->getAttribute(n->s(c10::attr::name)));
    return slot;
  }

  void collect_written(const Block *b, std::set<std::string> &out) {
    for (const Node *n : b->nodes()) {
      if (n->kind() == c10::prim::SetAttr)
        if (auto slot = slot_of(n))
          out.insert(*slot);
      for (const Block *sub : n->blocks())
        collect_written(sub, out);
    }
  }

  // The saved value of an attribute: a GetAttr chain from self at the top of the graph.
  Value *initial(const std::string &slot) {
    auto it = initial_.find(slot);
    if (it != initial_.end())
      return it->second;
    Value *obj = graph_.inputs()[0];
    size_t start = 0;
    for (size_t dot = slot.find('.'); dot != std::string::npos; dot = slot.find('.', start)) {
      obj = get_attr(obj, slot.substr(0, dot + 1), slot.substr(start, dot - start));
      start = dot + 1;
    }
    Value *v = get_attr(obj, slot, slot.substr(start));
    initial_[slot] = v;
    return v;
  }

  Value *get_attr(Value *obj, const std::string &key, const std::string &name) {
    auto it = initial_.find(key);
    if (it != initial_.end())
      return it->second;
    Node *n = graph_.createGetAttr(obj, name);
    n->insertAfter(cursor_);
    cursor_ = n;
    initial_[key] = n->output();
    return n->output();
  }

  Value *current(const Slots &slots, const std::string &slot) {
    auto it = slots.find(slot);
    return it != slots.end() ? it->second : initial(slot);
  }

  c10::TypePtr type_of(const std::string &slot, const Value *v) const {
    auto it = types_.find(slot);
    return it != types_.end() ? it->second : v->type();
  }

  void walk(Block *b, Slots &slots) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node *n = *it;
      ++it;
      std::optional<std::string> slot;
      if (n->kind() == c10::prim::SetAttr || n->kind() == c10::prim::GetAttr)
        slot = slot_of(n);
      if (n->kind() == c10::prim::SetAttr && slot) {
        slots[*slot] = n->input(1);
        n->destroy();
      } else if (n->kind() == c10::prim::GetAttr && slot &&
                 !n->output()->type()->cast<c10::ClassType>()) {
        auto found = slots.find(*slot);
        if (found != slots.end()) {
          n->output()->replaceAllUsesWith(found->second);
          n->destroy();
        }
      } else if (n->kind() == c10::prim::If) {
        walk_if(n, slots);
      } else if (n->kind() == c10::prim::Loop) {
        walk_loop(n, slots);
      } else if (!n->blocks().empty()) {
        std::set<std::string> inside;
        for (const Block *sub : n->blocks())
          collect_written(sub, inside);
        T2O_CHECK(inside.empty(), "forward assigns {} inside a {} block", *inside.begin(),
                  n->kind().toQualString());
      }
    }
  }

  // Attributes assigned in a branch become If outputs (the value before the if on a path that
  // does not assign them).
  void walk_if(Node *n, Slots &slots) {
    Slots paths[2] = {slots, slots};
    std::set<std::string> changed;
    for (size_t k = 0; k < 2; ++k) {
      walk(n->blocks()[k], paths[k]);
      for (const auto &[slot, v] : paths[k]) {
        auto before = slots.find(slot);
        if (before == slots.end() || before->second != v)
          changed.insert(slot);
      }
    }
    for (const std::string &slot : changed) {
      Value *vals[2] = {current(paths[0], slot), current(paths[1], slot)};
      for (size_t k = 0; k < 2; ++k)
        n->blocks()[k]->registerOutput(vals[k]);
      slots[slot] = n->addOutput()->setType(type_of(slot, vals[0]));
    }
  }

  // Attributes assigned in a loop body are loop-carried.
  void walk_loop(Node *n, Slots &slots) {
    Block *body = n->blocks()[0];
    std::set<std::string> inside;
    collect_written(body, inside);
    Slots in_body = slots;
    for (const std::string &slot : inside) {
      Value *init = current(slots, slot);
      n->addInput(init);
      in_body[slot] = body->addInput()->setType(type_of(slot, init));
    }
    walk(body, in_body);
    for (const std::string &slot : inside) {
      body->registerOutput(in_body.at(slot));
      slots[slot] = n->addOutput()->setType(type_of(slot, in_body.at(slot)));
    }
  }

  torch::jit::Graph &graph_;
  Node *cursor_;                           // where the next saved-value GetAttr goes
  std::map<std::string, Value *> initial_; // saved values (and the objects on their paths)
  std::map<std::string, c10::TypePtr> types_;
};

} // namespace

std::vector<std::string> attributes_to_values(torch::jit::Graph &graph) {
  if (graph.inputs().empty() || graph.inputs()[0]->type()->kind() != c10::TypeKind::ClassType)
    return {};
  return AttributeValues(graph).run();
}

} // namespace torch2onnx
